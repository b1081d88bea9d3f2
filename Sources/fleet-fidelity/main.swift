// fleet-fidelity: runs the fidelity scenarios (Tests/FleetTestKit/FidelityScenario+Catalog.swift) against
// the BlueZ simulator or against real bluetoothd in the bluez-vm guest, printing one line per scenario
// and `N passed, N failed`. Exit status: 0 all passed, 1 some failed, 2 bad usage or setup.
import BlueZSimulator
import FleetTestKit
import Foundation

let usage = """
    usage: fleet-fidelity --backend sim|bluez [--link-up-order signalled|quiet] [--stale-bond-order reply-first|signals-first]
                          [--scenario NAME]... [--keep-logs DIR]
                          [--peripheral-script PATH] [--list]

    --backend sim     a private bus and bluez-sim per scenario (no radio needed), in both of bluetoothd 5.66's
                      link-up orders unless --link-up-order names one (docs/simulator.md); a stale bond is
                      answered reply-first (the rig's order) unless --stale-bond-order says signals-first
    --backend bluez   the system bus of the bluez-vm guest: real bluetoothd, fleetd on hci0 (+ hci5), the suite's
                      peripherals on hci1..hci4 served by scripts/bluez-peripheral/fidelity-peripheral.py
    --scenario NAME   run only this scenario (repeatable); --list prints the names
    --keep-logs DIR   copy fleetd's log of each failed scenario into DIR
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fleet-fidelity: \(message)\n".utf8))
    exit(2)
}

var backendName: String?
var only: [String] = []
var keepLogs: String?
var linkUpOrders = LinkUpOrder.allCases
var staleBondOrder = StaleBondOrder.replyFirst
var script = BuildProducts.repositoryRoot + "/scripts/bluez-peripheral/fidelity-peripheral.py"
let words = Array(CommandLine.arguments.dropFirst())
var index = 0
while index < words.count {
    let argument = words[index]
    index += 1
    var value: String {
        get {
            guard index < words.count else { fail("\(argument) needs a value\n\(usage)") }
            return words[index]
        }
    }
    switch argument {
    case "--backend": backendName = value; index += 1
    case "--scenario": only.append(value); index += 1
    case "--keep-logs": keepLogs = value; index += 1
    case "--link-up-order":
        guard let order = LinkUpOrder(rawValue: value) else { fail("--link-up-order is signalled or quiet, got '\(value)'") }
        linkUpOrders = [order]
        index += 1
    case "--stale-bond-order":
        guard let order = StaleBondOrder(rawValue: value) else { fail("--stale-bond-order is reply-first or signals-first, got '\(value)'") }
        staleBondOrder = order
        index += 1
    case "--peripheral-script": script = value; index += 1
    case "--list":
        FidelityScenario.all.forEach { print($0.name) }
        exit(0)
    case "-h", "--help":
        print(usage)
        exit(0)
    default: fail("unknown argument '\(argument)'\n\(usage)")
    }
}

var scenarios = FidelityScenario.all
if !only.isEmpty {
    for name in only where FidelityScenario.named(name) == nil { fail("no scenario '\(name)' (see --list)") }
    scenarios = scenarios.filter { only.contains($0.name) }
}

let backends: [any FidelityBackend]
switch backendName {
case "sim": backends = linkUpOrders.map { FidelitySimulatorBackend(linkUpOrder: $0, staleBondOrder: staleBondOrder) }
case "bluez":
    do {
        let bluez = try FidelityBlueZBackend(script: script, keepLogs: keepLogs)
        try await bluez.start(scenarios.first?.peripheralSetup ?? .plain)
        backends = [bluez]
    } catch {
        fail("cannot set up the bluez backend: \(error)")
    }
default: fail("--backend must be sim or bluez\n\(usage)")
}

var allPassed = true
for backend in backends {
    let results = await FidelitySuite.run(scenarios, on: backend) { line in
        print(line)
        fflush(nil)
    }
    allPassed = allPassed && results.allSatisfy(\.passed)
}
exit(allPassed ? 0 : 1)
