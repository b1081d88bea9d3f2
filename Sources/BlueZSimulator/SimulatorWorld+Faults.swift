/// Scenario loading and the scripted fault timeline.
extension SimulatorWorld {
    /// A world set up from a scenario: its devices on the air and its faults scheduled from time zero.
    public init(scenario: Scenario, configuration base: WorldConfiguration) throws(ScenarioError) {
        var configuration = base
        configuration.adapters = scenario.adapters
        configuration.capacity = scenario.capacity
        configuration.temporaryTimeout = scenario.temporaryTimeout
        configuration.linkUpOrder = scenario.linkUpOrder
        configuration.staleBondOrder = scenario.staleBondOrder
        self.init(configuration: configuration)
        for device in scenario.devices { try addPeripheral(device) }
        faults = scenario.faults
        for (index, fault) in faults.enumerated() { timers.schedule(.fault(index), at: fault.at) }
    }

    mutating func runScripted(_ index: Int, effects: inout [BusEffect]) {
        guard faults.indices.contains(index) else { return }
        let fault = faults[index]
        effects += apply(fault.action)
        if let every = fault.every, every > .zero { schedule(.fault(index), after: every) }
    }

    /// Performs a fault now. Unknown devices or adapters are ignored (a removed device's later faults).
    public mutating func apply(_ action: FaultAction) -> [BusEffect] {
        switch action {
        case .dropLink(let device):
            return dropLink(named: device) ?? []
        case .powerCycle(let adapter, let offFor):
            let effects = setPowered(adapter: adapter, false)
            if let offFor { schedule(.powerOn(adapter), after: offFor) }
            return effects
        case .setPowered(let adapter, let on):
            return setPowered(adapter: adapter, on)
        case .connectBehaviour(let device, let behaviour):
            _ = setConnectBehaviour(named: device, behaviour)
            return []
        case .removeDevice(let device):
            return removePeripheral(named: device) ?? []
        case .rotateAddress(let device):
            _ = rotateAddress(of: device)
            return []
        case .responseDelay(let device, let delay):
            _ = setResponseDelay(named: device, delay)
            return []
        case .forgetBond(let device):
            return forgetBond(named: device) ?? []
        case .records(let device, let fault):
            return applyRecordFault(named: device, fault) ?? []
        }
    }
}
