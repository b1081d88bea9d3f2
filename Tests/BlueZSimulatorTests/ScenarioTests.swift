@testable import BlueZSimulator
import Foundation
import Testing

@Suite struct ScenarioTests {
    @Test func parsesDevicesAndFaults() throws {
        let scenario = try Scenario.parse("""
        adapters 2   # two dongles
        capacity 3
        device hr address=A0:9E:1A:00:00:01 name="Polar H10" manufacturer=0x006b:0a01,0x0059:ff service-data=180d:00 profile=heart-rate rotate=15
        every 7 drop-link hr
        at 3 power-cycle hci1 2.5
        at 4 connect-behaviour hr fail org.bluez.Error.Failed le-connection-abort-by-remote
        """)
        #expect(scenario.adapters == 2 && scenario.capacity == 3)
        let hr = try #require(scenario.devices.first)
        #expect(hr.name == "Polar H10")
        #expect(hr.manufacturerData == [0x006B: [0x0A, 0x01], 0x0059: [0xFF]])
        #expect(hr.serviceData == ["0000180d-0000-1000-8000-00805f9b34fb": [0x00]])
        #expect(hr.addressType == .random, "a rotating device uses random addresses")
        #expect(hr.uuids == ["0000180d-0000-1000-8000-00805f9b34fb"])
        #expect(scenario.faults == [
            ScriptedFault(at: .seconds(7), every: .seconds(7), action: .dropLink(device: "hr")),
            ScriptedFault(at: .seconds(3), action: .powerCycle(adapter: 1, offFor: .milliseconds(2500))),
            ScriptedFault(at: .seconds(4), action: .connectBehaviour(device: "hr", .fail(BlueZError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-remote")))),
        ])
    }

    @Test(arguments: [
        ("device x address=zz", ScenarioError.Code.badValue, 1),
        ("flood 3", .unknownKeyword, 1),
        ("device x address=A0:9E:1A:00:00:01\nat 3 drop-link y", .unknownDevice, 2),
        ("device x address=A0:9E:1A:00:00:01 profile=toaster", .badValue, 1),
        ("device x address=A0:9E:1A:00:00:01 name=\"open", .syntax, 1),
        ("device x address=A0:9E:1A:00:00:01\ndevice x address=A0:9E:1A:00:00:02", .duplicateDevice, 2),
        ("at 3 power-cycle hci4 1", .badValue, 1),
        ("adapters 2\nlink-up-order sideways", .badValue, 2),
        ("link-up-order", .badValue, 1),
        ("device x address=A0:9E:1A:00:00:01 advertise-while-linked=maybe", .badValue, 1),
    ])
    func rejectsBadInputWithTheLine(text: String, code: ScenarioError.Code, line: Int) {
        #expect { try Scenario.parse(text) } throws: { error in
            (error as? ScenarioError).map { $0.code == code && $0.line == line } ?? false
        }
    }

    @Test func shippedScenariosParse() throws {
        let directory = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("../../deploy/scenarios").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".scenario") }
        #expect(files.contains("demo.scenario"))
        for file in files {
            let scenario = try Scenario.parse(String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8))
            #expect(!scenario.devices.isEmpty, "\(file) defines devices")
            _ = try SimulatorWorld(scenario: scenario, configuration: WorldConfiguration())
        }
    }

    @Test func scriptedFaultsRunOnTheTimeline() throws {
        let scenario = try Scenario.parse("""
        device hr address=A0:9E:1A:00:00:01 profile=heart-rate
        every 5 drop-link hr
        at 2 power-cycle hci0 1
        """)
        var world = try SimulatorWorld(scenario: scenario, configuration: WorldConfiguration())
        let effects = world.advance(to: .seconds(3.5))
        #expect(effects.changes("/org/bluez/hci0", .adapter).map(\.1) == [.boolean(false), .boolean(true)])
        _ = try world.startDiscovery(adapter: 0, sender: ":1")
        _ = world.advance(to: .seconds(4.9))
        _ = Fixture.connect(&world, Fixture.strapPath)
        #expect(world.counters.linksUp == 1)
        _ = world.advance(to: .seconds(10.1))
        #expect(world.counters.linksLost == 1)
    }

    @Test func optionsParse() throws {
        let env = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/tmp/x"]
        guard case .run(let o) = try SimulatorOptions.parse(["--capacity", "7", "--time-scale", "10", "--gatt-cache", "always"], environment: env) else {
            Issue.record("expected run"); return
        }
        #expect(o.busAddress == "unix:path=/tmp/x" && o.capacity == 7 && o.timeScale == 10 && o.gattCache == .always)
        #expect(try SimulatorOptions.parse(["--help"], environment: [:]) == .help)
        #expect(throws: SimulatorOptions.UsageError.self) { try SimulatorOptions.parse(["--capacity", "x"], environment: [:]) }
        #expect(throws: SimulatorOptions.UsageError.self) { try SimulatorOptions.parse(["--frobnicate"], environment: [:]) }
    }

    @Test func linkUpOrderIsSignalledUnlessTheScenarioOrTheCommandLineSaysQuiet() throws {
        #expect(try Scenario.parse("adapters 1").linkUpOrder == .signalled)
        let quiet = try Scenario.parse("link-up-order quiet")
        #expect(quiet.linkUpOrder == .quiet)
        guard case .run(let plain) = try SimulatorOptions.parse([], environment: [:]),
              case .run(let signalled) = try SimulatorOptions.parse(["--link-up-order", "signalled"], environment: [:]) else {
            Issue.record("expected run"); return
        }
        #expect(try plain.world(scenario: nil).configuration.linkUpOrder == .signalled)
        #expect(try plain.world(scenario: quiet).configuration.linkUpOrder == .quiet)
        #expect(try signalled.world(scenario: quiet).configuration.linkUpOrder == .signalled, "the command line wins")
        #expect(throws: SimulatorOptions.UsageError.self) { try SimulatorOptions.parse(["--link-up-order", "later"], environment: [:]) }
    }

    @Test func staleBondOrderIsReplyFirstUnlessTheScenarioOrTheCommandLineSaysOtherwise() throws {
        #expect(try Scenario.parse("adapters 1").staleBondOrder == .replyFirst)
        let signalsFirst = try Scenario.parse("stale-bond-order signals-first")
        #expect(signalsFirst.staleBondOrder == .signalsFirst)
        #expect(throws: ScenarioError.self) { try Scenario.parse("stale-bond-order later") }
        guard case .run(let plain) = try SimulatorOptions.parse([], environment: [:]),
              case .run(let replyFirst) = try SimulatorOptions.parse(["--stale-bond-order", "reply-first"], environment: [:]) else {
            Issue.record("expected run"); return
        }
        #expect(try plain.world(scenario: nil).configuration.staleBondOrder == .replyFirst)
        #expect(try plain.world(scenario: signalsFirst).configuration.staleBondOrder == .signalsFirst)
        #expect(try replyFirst.world(scenario: signalsFirst).configuration.staleBondOrder == .replyFirst, "the command line wins")
        #expect(throws: SimulatorOptions.UsageError.self) { try SimulatorOptions.parse(["--stale-bond-order", "later"], environment: [:]) }
    }
}
