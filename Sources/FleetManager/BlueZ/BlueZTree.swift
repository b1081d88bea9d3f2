import FleetPlatform

/// fleetd's copy of bluetoothd's object tree: adapters, devices and characteristics, kept current by
/// applying `BlueZEvent`s. Pure; malformed properties are collected, not trapped on.
public struct BlueZTree: Sendable {
    public var adapters: [String: AdapterObject] = [:]
    public var devices: [String: DeviceObject] = [:]
    public var characteristics: [String: CharacteristicObject] = [:]
    /// Problems found since the caller last drained them.
    public var problems: [MalformedProperty] = []

    public init() {}

    /// What an event changed, for the supervisor to react to.
    public enum Change: Sendable {
        case adapterAdded(AdapterObject)
        case adapterChanged(AdapterObject)
        case adapterRemoved(String)
        case deviceAdded(DeviceObject)
        case deviceChanged(DeviceObject, changed: Set<String>)
        case deviceRemoved(DeviceObject)
        case characteristicAdded(CharacteristicObject)
        case characteristicRemoved(CharacteristicObject)
        case value(CharacteristicObject, [UInt8])
        case notifying(CharacteristicObject, Bool)
    }

    @discardableResult
    public mutating func apply(_ event: BlueZEvent) -> [Change] {
        switch event {
        case .interfacesAdded(let path, let interfaces):
            var out: [Change] = []
            if let props = interfaces[BlueZName.adapter] {
                let adapter = AdapterObject.read(path: path, props, problems: &problems)
                adapters[path] = adapter
                out.append(.adapterAdded(adapter))
            }
            if let props = interfaces[BlueZName.device], let device = DeviceObject.read(path: path, props, problems: &problems) {
                devices[path] = device
                out.append(.deviceAdded(device))
            }
            if let props = interfaces[BlueZName.characteristic],
               let characteristic = CharacteristicObject.read(path: path, props, problems: &problems) {
                characteristics[path] = characteristic
                out.append(.characteristicAdded(characteristic))
            }
            return out
        case .interfacesRemoved(let path, let interfaces):
            var out: [Change] = []
            if interfaces.contains(BlueZName.characteristic), let c = characteristics.removeValue(forKey: path) {
                out.append(.characteristicRemoved(c))
            }
            if interfaces.contains(BlueZName.device), let d = devices.removeValue(forKey: path) {
                for (key, c) in characteristics where c.device == path {
                    characteristics.removeValue(forKey: key)
                    out.append(.characteristicRemoved(c))
                }
                out.append(.deviceRemoved(d))
            }
            if interfaces.contains(BlueZName.adapter), adapters.removeValue(forKey: path) != nil {
                out.append(.adapterRemoved(path))
            }
            return out
        case .propertiesChanged(let path, let interface, let changed, let invalidated):
            switch interface {
            case BlueZName.adapter:
                guard var adapter = adapters[path] else { return [] }
                adapter.apply(changed, problems: &problems)
                adapters[path] = adapter
                return [.adapterChanged(adapter)]
            case BlueZName.device:
                guard var device = devices[path] else { return [] }
                device.apply(changed, invalidated: invalidated, problems: &problems)
                devices[path] = device
                return [.deviceChanged(device, changed: Set(changed.keys))]
            case BlueZName.characteristic:
                guard var characteristic = characteristics[path] else { return [] }
                var out: [Change] = []
                if let notifying = changed["Notifying"]?.bool {
                    characteristic.notifying = notifying
                    out.append(.notifying(characteristic, notifying))
                }
                if let mtu = changed["MTU"]?.integer { characteristic.mtu = Int(mtu) }
                characteristics[path] = characteristic
                if let raw = changed["Value"] {
                    if let bytes = raw.bytes {
                        out.append(.value(characteristic, bytes))
                    } else {
                        problems.append(MalformedProperty(path: path, interface: interface, property: "Value", got: raw.type.description))
                    }
                }
                return out
            default:
                return []
            }
        case .serviceLost:
            let out = devices.values.map { Change.deviceRemoved($0) } + adapters.keys.map { Change.adapterRemoved($0) }
            self = BlueZTree()
            return out
        case .serviceAppeared, .malformed:
            return []
        }
    }

    public func characteristics(of device: String) -> [CharacteristicObject] {
        characteristics.values.filter { $0.device == device }
    }
}
