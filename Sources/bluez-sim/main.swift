import BlueZSimulator
import FleetPlatform
import Foundation

// bluez-sim: a BlueZ 5.66 look-alike on any bus. See `bluez-sim --help` and docs/simulator.md.

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(code)
}

let options: SimulatorOptions
do {
    switch try SimulatorOptions.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
    case .help:
        print(SimulatorOptions.usage)
        exit(0)
    case .run(let parsed):
        options = parsed
    }
} catch {
    fail(error.description, code: error.exitCode)
}

var scenario: Scenario?
if let path = options.scenarioPath {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("bluez-sim: cannot read scenario \(path)", code: 2) }
    do { scenario = try Scenario.parse(text) } catch { fail("bluez-sim: \(path): \(error.description)", code: 2) }
}

let world: SimulatorWorld
do { world = try options.world(scenario: scenario) } catch { fail("bluez-sim: \(error.description)", code: 2) }

// The main thread parks here; the simulator runs on its own threads until the bus goes away.
let forever = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let simulator = BlueZSimulator(bus: try DBusConnection(address: options.busAddress), world: world, timeScale: options.timeScale)
        // Held for the life of the process: the control tree answers calls only while it exists.
        var control: SimulatorControl?
        if options.control {
            control = SimulatorControl(connection: try DBusConnection(address: options.busAddress), simulator: simulator)
            try await control?.start()
        }
        try await simulator.start()
        // bluetoothd releases every agent when it exits (btd_agent_cleanup); so does the simulator on SIGTERM.
        signal(SIGTERM, SIG_IGN)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM)
        termination.setEventHandler {
            Task {
                await simulator.releaseAgents()
                exit(0)
            }
        }
        termination.resume()
        print("ready: org.bluez on \(options.busAddress)")
        fflush(nil)
        while !simulator.bus.isClosed { try await Task.sleep(for: .seconds(1)) }
        withExtendedLifetime((control, termination)) {}
        fail("bluez-sim: the bus connection closed", code: 1)
    } catch {
        fail("bluez-sim: \(error)", code: 1)
    }
}
forever.wait()
