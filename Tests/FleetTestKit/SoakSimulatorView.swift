import FleetPlatform

/// What the simulator reports for the soak's invariants (docs/simulator.md: ConnectConcurrency, LinkPeaks,
/// ArmedNotifications), read in one go.
public struct SoakSimulatorView: Sendable {
    /// Peak pending Connect calls per `hciN client` since the simulator started.
    public var connectPeaks: [String: Int]
    /// Peak simultaneous links per device label.
    public var linkPeaks: [String: Int]
    /// Armed notifications (128-bit UUIDs) per device label.
    public var armed: [String: Set<String>]

    public init(connectPeaks: [String: Int], linkPeaks: [String: Int], armed: [String: Set<String>]) {
        self.connectPeaks = connectPeaks
        self.linkPeaks = linkPeaks
        self.armed = armed
    }
}

extension FleetHarness {
    func soakSimulatorView() async throws -> SoakSimulatorView {
        func counts(_ body: [DBusValue]) -> [String: Int] {
            var out: [String: Int] = [:]
            for entry in body.first?.dictEntries ?? [] { out[entry.key.string ?? "?"] = Int(entry.value.integer ?? 0) }
            return out
        }
        let connects = counts(try await sim("ConnectConcurrency"))
        let links = counts(try await sim("LinkPeaks"))
        var armed: [String: Set<String>] = [:]
        for entry in try await sim("ArmedNotifications").first?.dictEntries ?? [] {
            armed[entry.key.string ?? "?"] = Set(entry.value.stringArray ?? [])
        }
        return SoakSimulatorView(connectPeaks: connects, linkPeaks: links, armed: armed)
    }

    /// Links made since this simulator started (its LinksUp counter).
    func soakLinksUp() async throws -> Int { Int(try await counters()["LinksUp"] ?? 0) }

    /// Performs one simulator step of a fault. A device that is already back (AddDevice after the simulator
    /// restarted, which puts every device on the air again) is not an error.
    func soakSimulatorStep(_ step: SoakStep, fleet: SoakFleet) async throws {
        switch step {
        case .dropLink(let label), .dropAfterSession(let label, _):
            try await sim("DropLink", [.string(label)])
        case .rotateAddress(let label):
            try await sim("RotateAddress", [.string(label)])
        case .power(let adapter, let on):
            try await sim("PowerAdapter", [.string("hci\(adapter)"), .boolean(on)])
        case .connectBehaviour(let label, let behaviour):
            try await sim("SetConnectBehaviour", [.string(label), .string(behaviour), .string(""), .string("")])
        case .removeDevice(let label):
            do { try await sim("RemoveDevice", [.string(label)]) } catch let error as DBusError where error.name.hasSuffix("UnknownDevice") {}
        case .addDevice(let label):
            guard let definition = fleet.device(label: label)?.definition else { return }
            do { try await sim("AddDevice", [.string(definition)]) } catch let error as DBusError where error.message.contains("already exists") {}
        case .reload, .killFleetd, .restartBluetoothd:
            break
        }
    }
}
