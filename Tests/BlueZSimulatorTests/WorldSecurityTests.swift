@testable import BlueZSimulator
import FleetPlatform
import Testing

/// Agents, bonds per adapter, stale bonds and characteristics that need a secure link, on the pure world.
@Suite struct WorldSecurityTests {
    private static let notPaired = ReplyResult.failure(.notPermitted("Not paired"))

    private func bonded(adapters: Int = 1, cache: GattCache = .yes, linkUpOrder: LinkUpOrder = .quiet,
                        staleBondOrder: StaleBondOrder = .replyFirst) throws -> SimulatorWorld {
        var world = try Fixture.meterWorld(adapters: adapters, cache: cache, linkUpOrder: linkUpOrder, staleBondOrder: staleBondOrder)
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        var effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 2)
        effects += Fixture.run(&world)
        _ = world.agentReplied(call: try #require(effects.agentCalls.first?.id), .success([.uint32(123456)]))
        _ = Fixture.run(&world)
        return world
    }

    @Test func agentManagerFollowsAgentC() throws {
        var world = try Fixture.meterWorld(agent: nil)
        try world.registerAgent(owner: ":1.1", path: "/a", capability: "")
        #expect(world.registeredAgents.map(\.capability) == [.keyboardDisplay], "an empty capability is KeyboardDisplay")
        #expect(world.registeredAgents.first?.isDefault == true, "the first agent becomes the default")
        #expect(throws: BlueZError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")) {
            try world.registerAgent(owner: ":1.1", path: "/b", capability: "DisplayOnly")
        }
        #expect(throws: BlueZError.invalidArguments) { try world.registerAgent(owner: ":1.2", path: "/b", capability: "Telepathy") }
        try world.registerAgent(owner: ":1.2", path: "/b", capability: "NoInputNoOutput")
        #expect(world.registeredAgents.first { $0.owner == ":1.2" }?.isDefault == false)
        #expect(throws: BlueZError.doesNotExist) { try world.requestDefaultAgent(owner: ":1.2", path: "/wrong") }
        try world.requestDefaultAgent(owner: ":1.2", path: "/b")
        #expect(world.registeredAgents.first { $0.owner == ":1.2" }?.isDefault == true)
        #expect(throws: BlueZError.doesNotExist) { _ = try world.unregisterAgent(owner: ":1.3", path: "/b") }
        #expect(try world.unregisterAgent(owner: ":1.2", path: "/b").isEmpty, "UnregisterAgent sends no Release")
        #expect(world.registeredAgents.first?.isDefault == true, "the next agent in the queue becomes the default")
        #expect(world.clientVanished(":1.1").agentCalls.isEmpty && world.registeredAgents.isEmpty, "a vanished client's agent goes without Release")
        try world.registerAgent(owner: ":1.4", path: "/c", capability: "DisplayYesNo")
        #expect(world.releaseAgents().agentCalls == [AgentCall(id: nil, owner: ":1.4", path: "/c", member: "Release", arguments: [])],
                "Release only when bluetoothd exits")
    }

    @Test func pairUsesTheCallersAgentElseTheDefault() throws {
        var world = try Fixture.meterWorld(agent: nil)
        try world.registerAgent(owner: ":1.1", path: "/default", capability: "KeyboardDisplay")
        try world.registerAgent(owner: ":1.2", path: "/own", capability: "KeyboardOnly")
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        var effects = world.pair(path: Fixture.meterPath, sender: ":1.2", token: 2)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.first?.path == "/own")
        _ = world.cancelPairing(path: Fixture.meterPath, token: 3)
        effects = world.pair(path: Fixture.meterPath, sender: ":1.9", token: 4)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.first?.path == "/default", "a caller without an agent gets the default agent")
    }

    @Test func aBondedReconnectIsEncryptedWithoutPairingAndSignalsConnected() throws {
        var world = try bonded()
        _ = world.disconnect(path: Fixture.meterPath, token: 3)
        _ = Fixture.run(&world)
        var effects = Fixture.connect(&world, Fixture.meterPath, token: 4)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=true", "reply4", "ServicesResolved=true"])
        effects = try world.readValue(path: Fixture.measurement, options: [:], token: 5)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.isEmpty)
        #expect(effects.reply(5).map { if case .success = $0 { true } else { false } } == true)
    }

    /// Real controllers' order: Connected=true is signalled once for a bonded reconnect and for Pair on a
    /// disconnected device (the bond and the base path both signalling it would send it twice).
    @Test func theSignalledOrderSignalsConnectedOnce() throws {
        var world = try bonded(linkUpOrder: .signalled)
        _ = world.disconnect(path: Fixture.meterPath, token: 3)
        _ = Fixture.run(&world)
        let effects = Fixture.connect(&world, Fixture.meterPath, token: 4)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=true", "reply4", "ServicesResolved=true"])
    }

    @Test func aBondStaysOnItsAdapter() throws {
        var world = try bonded(adapters: 2)
        let other = "/org/bluez/hci1/dev_C0_FF_EE_00_00_01"
        #expect(world.bonds(named: "meter")?.adapters == ["hci0"])
        _ = Fixture.connect(&world, other, token: 3)
        var effects = try world.readValue(path: other + "/service000a/char000b", options: [:], token: 4)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.map(\.member) == ["RequestPasskey"], "hci1 has no keys: the read makes it pair, asking the default agent")
    }

    @Test(arguments: StaleBondOrder.allCases, LinkUpOrder.allCases)
    func aPeripheralThatForgotItsBondDropsTheLinkAtEncryption(order: StaleBondOrder, linkUpOrder: LinkUpOrder) throws {
        var world = try bonded(linkUpOrder: linkUpOrder, staleBondOrder: order)
        _ = world.disconnect(path: Fixture.meterPath, token: 3)
        _ = Fixture.run(&world)
        _ = world.apply(.forgetBond(device: "meter"))
        #expect(world.bonds(named: "meter")?.peripheral == [])
        let effects = Fixture.connect(&world, Fixture.meterPath, token: 4)
        switch order {
        case .replyFirst:
            // The rig's order: the ATT socket's error is dispatched before the queued mgmt events.
            #expect(effects.pairingTrace(Fixture.meterPath) == ["reply4:Failed", "Connected=true", "Connected=false"])
            #expect(effects.reply(4) == .failure(.failed("le-connection-abort-by-local")))
        case .signalsFirst:
            #expect(effects.pairingTrace(Fixture.meterPath) == ["Connected=true", "reply4:Failed", "Connected=false"])
            #expect(effects.reply(4) == .failure(.failed("br-connection-canceled")))
        }
        #expect(world.bonds(named: "meter")?.adapters == ["hci0"], "bluetoothd keeps the stale bond")
        #expect(world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 5).reply(5)?.isAlreadyExists == true)
    }

    @Test func removeDeviceDeletesTheAdaptersBondOnly() throws {
        var world = try bonded()
        _ = try world.removeDevice(adapter: 0, path: Fixture.meterPath)
        #expect(world.bonds(named: "meter").map { ($0.peripheral, $0.adapters) } ?? ([], ["?"]) == (["hci0"], []))
        _ = Fixture.run(&world, 2)
        #expect(world.deviceObjectCount(adapter: 0) == 1, "rediscovered")
        var effects = Fixture.connect(&world, Fixture.meterPath, token: 3)
        #expect(!effects.pairingTrace(Fixture.meterPath).contains("Connected=true"), "a new, unbonded object")
        effects = world.pair(path: Fixture.meterPath, sender: Fixture.agentOwner, token: 4)
        effects += Fixture.run(&world)
        #expect(effects.agentCalls.map(\.member) == ["RequestPasskey"], "pairing again works: the peripheral just replaces its keys")
    }

    @Test func aSecureReadPairsSilentlyWithJustWorks() throws {
        var world = try Fixture.meterWorld(Fixture.meterSpec(io: .noInputNoOutput, passkey: nil), agent: nil)
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        var effects = try world.readValue(path: Fixture.measurement, options: [:], token: 2)
        effects += Fixture.run(&world)
        #expect(effects.pairingTrace(Fixture.meterPath) == ["Bonded=true,Paired=true", "reply2"])
        #expect(effects.reply(2).map { if case .success = $0 { true } else { false } } == true, "the read is retried once the link is encrypted")
    }

    @Test func aSecureReadThatNeedsAPasskeyAsksTheDefaultAgentAndFailsNotPairedOnRefusal() throws {
        var world = try Fixture.meterWorld()
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        var effects = try world.readValue(path: Fixture.measurement, options: [:], token: 2)
        effects += try world.readValue(path: Fixture.feature, options: [:], token: 3)
        effects += Fixture.run(&world)
        #expect(effects.reply(3).map { if case .success = $0 { true } else { false } } == true, "an open characteristic is not held")
        let request = try #require(effects.agentCalls.first)
        #expect(request.owner == Fixture.agentOwner && request.member == "RequestPasskey")
        effects = world.agentReplied(call: try #require(request.id), .failure(name: "org.bluez.Error.Rejected", message: "stranger"))
        #expect(effects.reply(2) == Self.notPaired)
    }

    @Test func anAuthenticatedCharacteristicOverJustWorksBondsThenFails() throws {
        var world = try Fixture.meterWorld(Fixture.meterSpec(io: .noInputNoOutput, passkey: nil, level: .authenticate), agent: nil)
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        var effects = try world.startNotify(path: Fixture.measurement, sender: ":1.9", token: 2)
        effects += Fixture.run(&world)
        #expect(effects.reply(2) == Self.notPaired)
        #expect(world.bonds(named: "meter")?.adapters == ["hci0"], "the first step (to MEDIUM) left an unauthenticated bond")
    }

    @Test func aWriteCommandOnAnInsecureLinkIsDroppedSilently() throws {
        var spec = Fixture.meterSpec()
        spec.profile = GattProfile(services: [GattProfile.controlPoint])
        spec.security.defaultLevel = .encrypt
        var world = try Fixture.meterWorld(spec)
        _ = Fixture.connect(&world, Fixture.meterPath, token: 1)
        let command = Fixture.meterPath + "/service000a/char000e"
        let effects = try world.writeValue(path: command, value: [0x42], options: ["type": .string("command")], token: 2)
        #expect(effects.reply(2) == .success([]) && effects.agentCalls.isEmpty)
        let read = try world.readValue(path: command, options: [:], token: 3) + Fixture.run(&world)
        #expect(read.agentCalls.count == 1, "reading it is what makes bluetoothd pair")
    }

    @Test func pairedDevicesKeepTheirGattObjectsWithCacheYes() throws {
        var world = try bonded()
        let effects = world.dropLink(named: "meter") ?? []
        #expect(effects.removedPaths.isEmpty)
    }

    @Test func aBondedDeviceThatLeavesKeepsItsObject() throws {
        var world = try bonded()
        _ = world.removePeripheral(named: "meter")
        #expect(world.deviceObjectCount(adapter: 0) == 1)
        try world.addPeripheral(Fixture.meterSpec())
        _ = Fixture.run(&world, 2)
        let effects = Fixture.connect(&world, Fixture.meterPath, token: 3)
        #expect(effects.reply(3) == .failure(.failed("le-connection-abort-by-local")), "a new peripheral at that address has no keys")
    }

    @Test func scenarioKeysAndTheForgetBondFault() throws {
        let scenario = try Scenario.parse("""
        device meter address=C0:FF:EE:00:00:01 profile=glucose io=display-only passkey=012345 secure-connections=no security=encrypt,2a52:authenticate
        at 5 forget-bond meter
        """)
        let meter = try #require(scenario.devices.first)
        #expect(meter.security == PeripheralSecurity(ioCapability: .displayOnly, passkey: 12345, secureConnections: false, defaultLevel: .encrypt,
                                                      characteristics: ["00002a52-0000-1000-8000-00805f9b34fb": .authenticate]))
        #expect(scenario.faults == [ScriptedFault(at: .seconds(5), action: .forgetBond(device: "meter"))])
        for bad in ["io=telepathy", "passkey=12345", "passkey=1234567", "security=secret", "secure-connections=maybe"] {
            #expect(throws: ScenarioError.self) { try Scenario.parse("device m address=C0:FF:EE:00:00:01 \(bad)") }
        }
        #expect(throws: ScenarioError.self) { try Scenario.parse("device m address=C0:FF:EE:00:00:01\nat 1 forget-bond x") }
    }

    @Test(arguments: IOCapability.allCases)
    func noMITMMeansJustWorksWhateverTheCapabilities(remote: IOCapability) {
        for local in IOCapability.allCases {
            #expect(AssociationModel.forInitiator(local: local, remote: remote, secureConnections: true, mitm: false) == .justWorks)
            #expect(AssociationModel.forInitiator(local: .noInputNoOutput, remote: remote, secureConnections: true, mitm: true) == .justWorks,
                    "a NoInputNoOutput column is Just Works throughout")
        }
    }

    @Test func theKernelTablesForAKeyboardDisplayCentral() {
        let expected: [(IOCapability, AssociationModel, AssociationModel)] = [
            (.displayOnly, .passkeyEntry, .passkeyEntry),
            (.displayYesNo, .numericComparison, .passkeyEntry),
            (.keyboardOnly, .passkeyDisplay, .passkeyDisplay),
            (.noInputNoOutput, .justWorks, .justWorks),
            (.keyboardDisplay, .numericComparison, .passkeyDisplay),
        ]
        for (remote, sc, legacy) in expected {
            #expect(AssociationModel.forInitiator(local: .keyboardDisplay, remote: remote, secureConnections: true, mitm: true) == sc, "\(remote) SC")
            #expect(AssociationModel.forInitiator(local: .keyboardDisplay, remote: remote, secureConnections: false, mitm: true) == legacy, "\(remote) legacy")
        }
        #expect(AssociationModel.forInitiator(local: .keyboardOnly, remote: .keyboardOnly, secureConnections: true, mitm: true) == .passkeyEntry,
                "both keyboards: each side enters the same passkey")
    }
}
