import FleetPlatform

/// Device1 and GATT property values with BlueZ's names and D-Bus types.
extension DeviceObject {
    static func manufacturerValue(_ data: [UInt16: [UInt8]]) -> DBusValue {
        .dictionary(key: .uint16, value: .variant, data.keys.sorted().map { DBusDictEntry(.uint16($0), .variant(.bytes(data[$0] ?? []))) })
    }

    static func serviceDataValue(_ data: [String: [UInt8]]) -> DBusValue {
        .dictionary(key: .string, value: .variant, data.keys.sorted().map { DBusDictEntry(.string($0), .variant(.bytes(data[$0] ?? []))) })
    }

    var aliasValue: String { alias ?? name ?? address.dashed }

    /// GetAll as BlueZ answers it: Name, RSSI, TxPower, ManufacturerData and ServiceData only when known.
    var properties: [String: DBusValue] {
        var p: [String: DBusValue] = [
            "Address": .string(address.description), "AddressType": .string(addressType.rawValue),
            "Alias": .string(aliasValue), "Paired": .boolean(false), "Bonded": .boolean(false),
            "Trusted": .boolean(trusted), "Blocked": .boolean(blocked), "LegacyPairing": .boolean(false),
            "Connected": .boolean(link.isConnected), "UUIDs": .strings(uuids),
            "Adapter": .objectPath(BlueZPath.adapterPath(adapter)), "ServicesResolved": .boolean(servicesResolved),
            "AdvertisingFlags": .bytes([0x06]),
        ]
        if let name { p["Name"] = .string(name) }
        if let rssi { p["RSSI"] = .int16(rssi) }
        if let txPower { p["TxPower"] = .int16(txPower) }
        if !manufacturerData.isEmpty { p["ManufacturerData"] = Self.manufacturerValue(manufacturerData) }
        if !serviceData.isEmpty { p["ServiceData"] = Self.serviceDataValue(serviceData) }
        return p
    }

    /// The GATT objects of `table`, parents before children, as BlueZ exports them once services resolve.
    func gattObjects(_ table: GattTable, values: [UInt16: [UInt8]]) -> [BusEffect] {
        var effects: [BusEffect] = []
        for service in table.services {
            let servicePath = BlueZPath.servicePath(path, service.handle)
            effects.append(.addObject(path: servicePath, interfaces: [InterfaceProperties(.gattService, [
                "UUID": .string(service.uuid), "Device": .objectPath(path), "Primary": .boolean(true), "Includes": .objectPaths([]),
            ])]))
            for chrc in service.characteristics {
                let chrcPath = BlueZPath.characteristicPath(servicePath, chrc.handle)
                var p: [String: DBusValue] = [
                    "UUID": .string(chrc.spec.uuid), "Service": .objectPath(servicePath),
                    "Flags": .strings(chrc.spec.flags), "MTU": .uint16(mtu),
                ]
                if chrc.spec.canNotify { p["Notifying"] = .boolean(!(notifying[chrc.handle]?.isEmpty ?? true)) }
                // 5.66 exports Value from the start, empty until the first read, write or notification fills
                // its attribute cache; a cached (kept) object shows what was last seen.
                p["Value"] = .bytes(gattExported ? values[chrc.valueHandle] ?? [] : [])
                effects.append(.addObject(path: chrcPath, interfaces: [InterfaceProperties(.gattCharacteristic, p)]))
                for desc in chrc.descriptors {
                    effects.append(.addObject(path: BlueZPath.descriptorPath(chrcPath, desc.handle), interfaces: [InterfaceProperties(.gattDescriptor, [
                        "UUID": .string(desc.uuid), "Characteristic": .objectPath(chrcPath),
                    ])]))
                }
            }
        }
        return effects
    }

    func characteristicPath(_ table: GattTable, handle: UInt16) -> String? {
        for service in table.services where service.characteristics.contains(where: { $0.handle == handle }) {
            return BlueZPath.characteristicPath(BlueZPath.servicePath(path, service.handle), handle)
        }
        return nil
    }
}
