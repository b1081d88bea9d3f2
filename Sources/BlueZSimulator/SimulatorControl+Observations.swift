import FleetPlatform

/// The test-control methods a chaos soak polls (docs/simulator.md): connect concurrency per adapter and
/// client, link peaks per peripheral, the notifications armed per peripheral, and a notification sent on
/// demand (the soak's lag probe).
extension SimulatorControl {
    static func observationMethods(_ sim: BlueZSimulator) -> [String: DBusMethod] {
        [
            "ConnectConcurrency": DBusMethod(out: "a{su}", immediate: { _ in
                let peaks = sim.observations.withLock { $0.peakConnects }
                return [Self.counts(peaks.map { ($0.key.description, $0.value) })]
            }),
            "LinkPeaks": DBusMethod(out: "a{su}", immediate: { _ in
                let peaks = sim.observations.withLock { $0.peakLinks }
                return [Self.counts(peaks.map { ($0.key, $0.value) })]
            }),
            "ResetConcurrency": DBusMethod(immediate: { _ in
                let links = sim.withWorld { world in (world.linksByLabel, [BusEffect]()) }
                sim.observations.withLock { $0.reset(links: links) }
                return []
            }),
            "ArmedNotifications": DBusMethod(out: "a{sas}", immediate: { _ in
                let armed = sim.withWorld { world in (world.armedNotifications, [BusEffect]()) }
                return [.dictionary(key: .string, value: .array(.string),
                                    armed.keys.sorted().map { DBusDictEntry(.string($0), .strings(armed[$0] ?? [])) })]
            }),
            "Notify": DBusMethod(in: "ssay", out: "b", immediate: { call in
                let device = call.arguments.first?.string ?? ""
                let uuid = call.arguments.count > 1 ? call.arguments[1].string ?? "" : ""
                let value = call.arguments.count > 2 ? call.arguments[2].bytes ?? [] : []
                let sent = sim.withWorld { world -> (Bool, [BusEffect]) in
                    guard let effects = world.notifyNow(device: device, characteristic: uuid, value: value) else { return (false, []) }
                    return (true, effects)
                }
                return [.boolean(sent)]
            }),
        ]
    }

    private static func counts(_ pairs: [(String, Int)]) -> DBusValue {
        .dictionary(key: .string, value: .uint32,
                    pairs.sorted { $0.0 < $1.0 }.map { DBusDictEntry(.string($0.0), .uint32(UInt32(clamping: $0.1))) })
    }
}
