import FleetPlatform
import Foundation

/// Flood mode, for benchmarks: RSSI PropertiesChanged on every exported device in turn, as fast as
/// asked. The signals are emitted directly, bypassing the object tree's store and the world model, so
/// a Get of RSSI during a flood returns the last advertised value, not the flooded one.
extension BlueZSimulator {
    /// Starts flooding at `signalsPerSecond` (0: as fast as the bus takes them). Needs discovered devices.
    public func startFlood(signalsPerSecond rate: Int) {
        guard !flooding.exchange(true, ordering: .relaxed) else { return }
        let paths = state.withLock { $0.world.devicePaths }
        let thread = Thread { [self] in runFlood(paths: paths, rate: rate) }
        thread.name = "bluez-sim-flood"
        thread.start()
    }

    public func stopFlood() { flooding.store(false, ordering: .relaxed) }

    /// PropertiesChanged signals flood mode has emitted since the last ResetCounters.
    public var floodedSignals: UInt64 { floodCount.load(ordering: .relaxed) }

    private func runFlood(paths: [String], rate: Int) {
        guard !paths.isEmpty else { flooding.store(false, ordering: .relaxed); return }
        let start = ContinuousClock.now
        var sent: UInt64 = 0
        var index = 0
        let batch = 256
        let interfaceName = DBusValue.string(BlueZInterface.device.rawValue)
        let noneInvalidated = DBusValue.strings([])
        while flooding.load(ordering: .relaxed) {
            for _ in 0..<batch {
                let rssi = Int16(-40 - Int((sent / UInt64(paths.count)) % 40))
                try? bus.emitSignal(path: paths[index], interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                                    arguments: [interfaceName, .vardict(["RSSI": .int16(rssi)]), noneInvalidated])
                index = (index + 1) % paths.count
                sent += 1
            }
            floodCount.add(UInt64(batch), ordering: .relaxed)
            guard rate > 0 else { continue }
            // Pace against the schedule rather than sleeping a fixed amount, so the average rate holds.
            let due = start + .seconds(Double(sent) / Double(rate))
            let ahead = ContinuousClock.now.duration(to: due)
            if ahead > .zero { Thread.sleep(forTimeInterval: Double(ahead.components.attoseconds) * 1e-18 + Double(ahead.components.seconds)) }
        }
    }
}
