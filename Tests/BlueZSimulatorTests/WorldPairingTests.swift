@testable import BlueZSimulator
import FleetPlatform
import Testing

/// Device1.Pair / CancelPairing and the agent calls, on the pure world (docs/simulator.md, Pairing).
@Suite struct WorldPairingTests {
    private func connected(_ spec: PeripheralSpec = Fixture.meterSpec(), agent: String? = "KeyboardDisplay") throws -> SimulatorWorld {
        var world = try Fixture.meterWorld(spec, agent: agent)
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        return world
    }

    @Test func passkeyEntryAsksTheCallersAgentAndBondsOnTheRightPasskey() throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        let request = try #require(effects.agentCalls.first)
        #expect(request.member == "RequestPasskey" && request.owner == Fixture.agentOwner && request.path == Fixture.agentPath)
        #expect(request.arguments == [.objectPath(Fixture.meterPath)])
        #expect(effects.reply(2) == nil, "Pair waits for the pairing")
        effects = world.agentReplied(call: try #require(request.id), .success([.uint32(123456)]))
        effects += Fixture.run(&world)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Bonded=true,Paired=true", "reply2"], "one PropertiesChanged, then the reply")
        let bonds = try #require(world.bonds(named: "meter"))
        #expect(bonds.peripheral == ["hci0"] && bonds.adapters == ["hci0"])
    }

    @Test func aWrongPasskeyFailsAuthenticationAndLeavesNoBond() throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        let request = try #require(effects.agentCalls.first?.id)
        effects = world.agentReplied(call: request, .success([.uint32(654321)]))
        #expect(effects.reply(2) == .failure(BlueZError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")))
        #expect(effects.agentCalls.isEmpty, "the request is answered: nothing to cancel")
        #expect(world.bonds(named: "meter")?.adapters == [])
    }

    @Test(arguments: ["org.bluez.Error.Rejected", "org.bluez.Error.Canceled", "org.freedesktop.DBus.Error.NoReply"])
    func anAgentErrorIsANegativeReply(name: String) throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        effects = world.agentReplied(call: try #require(effects.agentCalls.first?.id), .failure(name: name, message: "no"))
        #expect(effects.reply(2).map { if case .failure(let e) = $0 { e.name } else { "" } } == "org.bluez.Error.AuthenticationFailed")
    }

    @Test func justWorksAsksNobody() throws {
        var world = try connected(Fixture.meterSpec(io: .noInputNoOutput, passkey: nil), agent: "KeyboardDisplay")
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.isEmpty)
        #expect(effects.reply(2) == .success([]))
    }

    @Test func withoutAnAgentTheKernelUsesNoInputNoOutputSoAPasskeyDeviceGetsJustWorks() throws {
        var world = try connected(agent: nil)
        var effects = world.pair(path: Fixture.meterPath, sender: ":1.77", token: 2)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.isEmpty && effects.reply(2) == .success([]))
    }

    @Test func aJustWorksBondDoesNotOpenAnAuthenticatedCharacteristic() throws {
        var world = try connected(Fixture.meterSpec(level: .authenticate), agent: nil)
        var effects = world.pair(path: Fixture.meterPath, sender: ":1.77", token: 2)
        effects += Fixture.run(&world)
        #expect(effects.reply(2) == .success([]), "a Linux responder pairs; it refuses the attribute later")
        effects = try world.readValue(path: Fixture.measurement, options: [:], token: 3)
        effects += Fixture.run(&world)
        #expect(effects.reply(3) == .failure(.notPermitted("Not paired")), "raising to HIGH needs MITM, which NoInputNoOutput cannot give")
        #expect(effects.agentCalls.isEmpty)
    }

    @Test func numericComparisonWithSecureConnectionsPasskeyEntryWithout() throws {
        var world = try connected(Fixture.meterSpec(io: .displayYesNo, passkey: nil))
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        let confirm = try #require(effects.agentCalls.first)
        #expect(confirm.member == "RequestConfirmation" && confirm.arguments.count == 2)
        effects = world.agentReplied(call: try #require(confirm.id), .success([]))
        effects += Fixture.run(&world)
        #expect(effects.reply(2) == .success([]))

        var legacy = try connected(Fixture.meterSpec(io: .displayYesNo, passkey: nil, secureConnections: false))
        effects = legacy.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&legacy)
        #expect(effects.agentCalls.map(\.member) == ["RequestPasskey"], "gen_method[DisplayYesNo][KeyboardDisplay] is REQ_PASSKEY")
    }

    @Test func aKeyboardPeripheralTypesWhatTheAgentDisplays() throws {
        var world = try connected(Fixture.meterSpec(io: .keyboardOnly, passkey: nil))
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world, 5)
        let display = try #require(effects.agentCalls.first)
        #expect(display.member == "DisplayPasskey" && display.id == nil, "no reply is awaited")
        #expect(display.arguments.count == 3 && display.arguments[2] == .uint16(0))
        #expect(effects.reply(2) == .success([]))
    }

    @Test func pairOnABondedDeviceIsAlreadyExistsAndTwiceIsInProgress() throws {
        var world = try connected(Fixture.meterSpec(io: .noInputNoOutput, passkey: nil))
        _ = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        #expect(world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 3).reply(3) == .failure(.inProgress))
        _ = Fixture.run(&world)
        #expect(world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 4).reply(4)
                == .failure(BlueZError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")))
    }

    @Test func cancelPairingCancelsTheAgentThenAnswersPairThenItself() throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        let request = try #require(effects.agentCalls.first?.id)
        effects = world.cancelPairing(path: Fixture.meterPath, token: 3)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["agent.Cancel", "reply2:AuthenticationCanceled", "reply3"])
        #expect(world.agentReplied(call: request, .success([.uint32(123456)])).isEmpty, "a late answer does nothing")
        #expect(world.bonds(named: "meter")?.adapters == [])
    }

    @Test func cancelPairingWithNothingToCancelUnpairsInTheKernelOnly() throws {
        var world = try connected(Fixture.meterSpec(io: .noInputNoOutput, passkey: nil))
        #expect(world.cancelPairing(path: Fixture.meterPath, token: 2).reply(2) == .failure(.doesNotExist))
        _ = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 3)
        _ = Fixture.run(&world)
        let effects = world.cancelPairing(path: Fixture.meterPath, token: 4)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=false,ServicesResolved=false", "reply4:DoesNotExist"])
        #expect(world.bonds(named: "meter")?.adapters == [], "the kernel forgot the keys")
        #expect(world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 5).reply(5)?.isAlreadyExists == true,
                "bluetoothd still thinks it is bonded")
    }

    @Test func anUnansweredAgentMeetsTheKernelsSMPTimeout() throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world, 29)
        #expect(effects.reply(2) == nil)
        effects = Fixture.run(&world, 2)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=false,ServicesResolved=false", "agent.Cancel", "reply2:AuthenticationCanceled"])
    }

    @Test func linkLossDuringPairingCancelsIt() throws {
        var world = try connected()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        effects = world.dropLink(named: "meter") ?? []
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=false,ServicesResolved=false", "agent.Cancel", "reply2:AuthenticationCanceled"])
    }

    @Test func pairOnADisconnectedDeviceConnectsFirstWithConnectedSignalled() throws {
        var world = try Fixture.meterWorld()
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        #expect(effects.pairingTrace(Fixture.meterPath).prefix(3) == ["Connected=true", "ServicesResolved=true", "agent.RequestPasskey"])
        effects = world.agentReplied(call: try #require(effects.agentCalls.first?.id), .success([.uint32(123456)]))
        effects += Fixture.run(&world)
        #expect(effects.reply(2) == .success([]))
    }

    @Test func pairWithAPeripheralGoneTimesOut() throws {
        var world = try Fixture.meterWorld()
        _ = world.removePeripheral(named: "meter")
        #expect(world.deviceObjectCount(adapter: 0) == 0)
        var spec = Fixture.meterSpec()
        spec.connectable = false
        world = try Fixture.meterWorld(spec)
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world, 19)
        #expect(effects.reply(2) == nil)
        effects = Fixture.run(&world, 2)
        #expect(effects.reply(2) == .failure(BlueZError(name: "org.bluez.Error.AuthenticationTimeout", message: "Authentication Timeout")))
    }
}

extension ReplyResult {
    var isAlreadyExists: Bool { if case .failure(let e) = self { e.name == "org.bluez.Error.AlreadyExists" } else { false } }
}
