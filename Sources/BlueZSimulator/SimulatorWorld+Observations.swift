/// Read-only views of the world for a soak's invariant checks: links and armed notifications per peripheral.
extension SimulatorWorld {
    /// The label of the peripheral behind a Device1 path, and how many links it has now on every adapter
    /// and address (connected or disconnecting); nil when no peripheral is behind that path.
    public func links(ofPeripheralAt path: String) -> (label: String, links: Int)? {
        guard let (_, object) = self.object(at: path), let peripheral = peripherals[object.peripheral] else { return nil }
        return (peripheral.spec.label, links(of: object.peripheral))
    }

    func links(of peripheral: Int) -> Int {
        adapters.reduce(0) { sum, adapter in sum + adapter.objects.values.filter { $0.peripheral == peripheral && $0.link.isConnected }.count }
    }

    /// Links per peripheral label now (labels without a link are left out).
    public var linksByLabel: [String: Int] {
        var out: [String: Int] = [:]
        for adapter in adapters {
            for object in adapter.objects.values where object.link.isConnected {
                guard let label = peripherals[object.peripheral]?.spec.label else { continue }
                out[label, default: 0] += 1
            }
        }
        return out
    }

    /// Per peripheral label, the characteristic UUIDs (128-bit, lowercase) that some client has a notify
    /// session on over a live link: what a client that says it subscribed must find here.
    public var armedNotifications: [String: [String]] {
        var out: [String: Set<String>] = [:]
        for adapter in adapters {
            for object in adapter.objects.values where object.link.isConnected {
                guard let peripheral = peripherals[object.peripheral] else { continue }
                for (handle, clients) in object.notifying where !clients.isEmpty {
                    guard let uuid = peripheral.table.characteristic(handle)?.spec.uuid else { continue }
                    out[peripheral.spec.label, default: []].insert(uuid)
                }
            }
        }
        return out.mapValues { $0.sorted() }
    }
}

extension SimulatorWorld {
    /// One notification of `value` now on the device's characteristic `uuid`, as its peripheral would send it,
    /// if a client has a notify session on it over a link; nil if none has. A test's probe: the caller knows
    /// when it was sent and can time it to its arrival (the soak's measured processing lag, docs/soak.md). Not
    /// counted as one of the peripheral's own notifications.
    public func notifyNow(device name: String, characteristic uuid: String, value: [UInt8]) -> [BusEffect]? {
        guard let id = peripheralID(named: name), let peripheral = peripherals[id] else { return nil }
        let wanted = uuid.lowercased()
        for adapter in adapters {
            for object in adapter.objects.values where object.peripheral == id && object.link.isConnected {
                for (handle, clients) in object.notifying where !clients.isEmpty {
                    guard peripheral.table.characteristic(handle)?.spec.uuid.lowercased() == wanted,
                          let path = object.characteristicPath(peripheral.table, handle: handle) else { continue }
                    return [.change(path, .gattCharacteristic, ["Value": .bytes(value)], always: true)]
                }
            }
        }
        return nil
    }
}
