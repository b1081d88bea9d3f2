import FleetControl
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
        ].map(\.varlinkError) + [.permissionDenied(method: "m"), .slowConsumer(bufferedBytes: 1), .requestTooLarge(limit: 1), .invalidRequest("r")]
        for error in errors where error.name.hasPrefix(FleetInterface.name + ".") {
            #expect(FleetInterface.definition.contains("\nerror \(error.shortName) ("), "\(error.name) missing")
        }
    }

    @Test func onlyIntrospectionFriendlyMethodsAreReadOnly() {
        let readOnly = FleetInterface.Method.allCases.filter(\.isReadOnly).map(\.rawValue)
        #expect(Set(readOnly) == ["Status", "ListDevices", "ShowDevice", "Watch", "Metrics"])
    }
}
