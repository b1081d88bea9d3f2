import FleetProtocol
import Foundation
import Testing

@Suite struct FleetInterfaceTests {
    @Test func embeddedDefinitionIsIdenticalToTheDeployedFile() throws {
        // The test directory is symlinked into scratch packages; resolve to find the repository's deploy/.
        let here = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        let file = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/io.fleetd.Fleet.varlink")
        let deployed = try String(contentsOf: file, encoding: .utf8)
        #expect(FleetInterface.definition + "\n" == deployed)
    }

    @Test func everyMethodIsDeclaredInTheDefinition() {
        for method in FleetInterface.Method.allCases {
            #expect(FleetInterface.definition.contains("\nmethod \(method.rawValue)("), "\(method.rawValue) missing")
        }
    }

    @Test func everyFleetErrorTheServerSendsIsDeclared() {
        let errors: [VarlinkError] = [
            FleetControlError.deviceNotFound(reference: "x"), .ambiguousDevice(reference: "x", candidates: []), .notConnected(device: "x"),
            .characteristicNotFound(device: "x", characteristic: "y"), .bluez(name: "n", message: "m"),
            .invalidPolicyClass("c", known: []), .noCapacity(device: "x", reason: "r"), .failed("f"),
            .lostPlace(consumer: "c", lost: LostReadings(firstCursor: 1, lastCursor: 2)), .storeUnavailable(reason: "r"),
            .reservedConsumer(consumer: "mqtt", reserved: "mqtt"),
        ].map(\.varlinkError) + [.permissionDenied(method: "m"), .slowConsumer(bufferedBytes: 1), .requestTooLarge(limit: 1), .invalidRequest("r")]
        for error in errors where error.name.hasPrefix(FleetInterface.name + ".") {
            #expect(FleetInterface.definition.contains("\nerror \(error.shortName) ("), "\(error.name) missing")
        }
    }

    /// The members of `type NAME (…)` or of an inline enum after `field: (`, in order.
    static func enumMembers(after marker: String) -> [String] {
        guard let start = FleetInterface.definition.range(of: marker) else { return [] }
        let rest = FleetInterface.definition[start.upperBound...]
        guard let end = rest.firstIndex(of: ")") else { return [] }
        return rest[..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test func deviceAndDaemonStatesAreDeclaredAsTheEnumsBothEndsUse() {
        #expect(Self.enumMembers(after: "\ntype DeviceState (") == DeviceState.allCases.map(\.rawValue))
        #expect(Self.enumMembers(after: "  state: (") == DaemonState.allCases.map(\.rawValue))
        for typed in ["  state: DeviceState,", "state: ?DeviceState,", "-> (device: string, state: DeviceState, evicted: ?string",
                      "-> (device: string, state: DeviceState)"] {
            #expect(FleetInterface.definition.contains(typed), "\(typed) missing")
        }
        #expect(!FleetInterface.definition.contains("state: string"), "no state travels as loose text")
        // The wire spelling of each state is the identifier varlink allows in an enum (no dashes).
        #expect(DeviceState.allCases.allSatisfy { $0.rawValue.allSatisfy { $0.isLetter } })
    }

    @Test func aWatchEventOfEveryKindSurvivesTheWire() throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000.25)
        let kinds: [WatchEvent.Kind] = [.lifecycle(state: .backingOff), .disconnected, .reconnected,
                                        .notification(characteristic: "2a37", value: [0x16, 0x48])]
        for (position, kind) in kinds.enumerated() {
            let event = WatchEvent(sequence: position + 1, time: time, device: "mfr-0059-0a1b", kind: kind, text: "t")
            let reply = try VarlinkReply(frame: try VarlinkReply(parameters: WatchUpdate(event: event), continues: true).json)
            #expect(reply.continues)
            #expect(try reply.parameters(as: WatchUpdate.self).event == event)
        }
        let wire = try VarlinkReply(parameters: WatchUpdate(event: WatchEvent(sequence: 1, time: time, device: "d", kind: kinds[0], text: "t")))
        #expect(String(decoding: wire.json, as: UTF8.self).contains(#""kind":"lifecycle","sequence":1,"state":"backingOff""#))
    }

    @Test func onlyIntrospectionFriendlyMethodsAreReadOnly() {
        let readOnly = FleetInterface.Method.allCases.filter(\.isReadOnly).map(\.rawValue)
        #expect(Set(readOnly) == ["Status", "ListDevices", "ShowDevice", "Watch", "Metrics", "Readings", "Records"], "Acknowledge moves a shared cursor: it is a mutation")
    }
}
