import FleetPlatform

/// Control methods for stored-record meters: the RACP faults, taking a record, and reading the memory back.
extension SimulatorControl {
    private static func noMeter(_ name: String) -> DBusError {
        .remote(name: unknownDevice, message: "no simulated device '\(name)' with stored records (records=)")
    }

    private static func count(_ call: DBusMethodCall) throws(DBusError) -> Int {
        guard call.arguments.count > 1, case .uint32(let n) = call.arguments[1] else {
            throw DBusError.remote(name: invalid, message: "expected a device and a count (u)")
        }
        return Int(n)
    }

    private static func fault(_ sim: BlueZSimulator, _ call: DBusMethodCall, _ fault: RecordFault) throws {
        let name = call.arguments.first?.string ?? ""
        try sim.withWorld { world throws -> ((), [BusEffect]) in
            guard let effects = world.applyRecordFault(named: name, fault) else { throw noMeter(name) }
            return ((), effects)
        }
    }

    var recordMethods: [String: DBusMethod] {
        let sim = simulator
        return [
            "SetRACPDropAfter": DBusMethod(in: "su", immediate: { call in
                try Self.fault(sim, call, .dropAfter(try Self.count(call)))
                return []
            }),
            "SetRACPBusy": DBusMethod(in: "su", immediate: { call in
                try Self.fault(sim, call, .busy(try Self.count(call)))
                return []
            }),
            "ResetSequence": DBusMethod(in: "s", immediate: { call in
                try Self.fault(sim, call, .sequenceReset)
                return []
            }),
            "SetClockDrift": DBusMethod(in: "sx", immediate: { call in
                guard call.arguments.count > 1, case .int64(let s) = call.arguments[1] else {
                    throw DBusError.remote(name: Self.invalid, message: "expected a device and whole seconds (x)")
                }
                try Self.fault(sim, call, .clockDrift(s))
                return []
            }),
            "SetRACPQuirks": DBusMethod(in: "ss", immediate: { call in
                guard call.arguments.count > 1, let quirks = RACPQuirk.list(call.arguments[1].string ?? "") else {
                    throw DBusError.remote(name: Self.invalid, message: "quirks are a comma list of "
                        + RACPQuirk.allCases.map(\.rawValue).joined(separator: ", ") + ", or none")
                }
                try Self.fault(sim, call, .quirks(quirks))
                return []
            }),
            "TakeRecord": DBusMethod(in: "s", out: "q", immediate: { call in
                let name = call.arguments.first?.string ?? ""
                let sequence = try sim.withWorld { world throws -> (UInt16, [BusEffect]) in
                    guard let taken = world.takeRecord(named: name) else { throw Self.noMeter(name) }
                    return taken
                }
                return [.uint16(sequence)]
            }),
            "StoredRecords": DBusMethod(in: "s", out: "aay", immediate: { call in
                let name = call.arguments.first?.string ?? ""
                let records = try sim.withWorld { world throws -> ([[UInt8]], [BusEffect]) in
                    guard let records = world.storedRecords(named: name) else { throw Self.noMeter(name) }
                    return (records, [])
                }
                return [.array(.array(.byte), records.map { .bytes($0) })]
            }),
        ]
    }
}
