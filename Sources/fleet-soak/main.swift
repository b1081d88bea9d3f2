// fleet-soak: the chaos soak of issue 14 (docs/soak.md). fleetd runs on the BlueZ simulator with 200 devices
// on 4 adapters under faults drawn from a seed, and its invariants are checked while it runs. Prints the
// seed, the bound of invariant 6, any violation with its history, and the figures.
// Exit status: 0 no violation, 1 a violation (replay with the same --seed), 2 bad usage or setup.
import FleetTestKit
import Foundation

let options: SoakOptions
do {
    let clockSeed = UInt64(Date().timeIntervalSince1970 * 1000) % 1_000_000
    switch try SoakOptions.parse(Array(CommandLine.arguments.dropFirst()), defaultSeed: clockSeed) {
    case .help:
        print(SoakOptions.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    FileHandle.standardError.write(Data((error.description + "\n").utf8))
    exit(2)
}

let soak = SoakRun(options: options) { path in stateFileProblem(at: path) }
exit(await soak.run())
