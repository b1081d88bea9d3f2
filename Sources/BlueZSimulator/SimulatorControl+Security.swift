import FleetPlatform

/// Control methods for pairing: make a peripheral forget its bonds, and see who holds keys.
extension SimulatorControl {
    var securityMethods: [String: DBusMethod] {
        let sim = simulator
        return [
            "ForgetBond": DBusMethod(in: "s", immediate: { call in
                try Self.withDevice(sim, call) { world, name in world.forgetBond(named: name).map { ((), $0) } }
                return []
            }),
            "Bonds": DBusMethod(in: "s", out: "asas", immediate: { call in
                let (peripheral, adapters) = try Self.withDevice(sim, call) { world, name in world.bonds(named: name).map { ($0, []) } }
                return [.strings(peripheral), .strings(adapters)]
            }),
        ]
    }
}
