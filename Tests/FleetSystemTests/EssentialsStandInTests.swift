import Dispatch
import FleetSystem
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What FleetSystem gives the rooms fleetd links in place of full Foundation (issue 18) must do what Foundation did.
@Suite("FleetSystem's stand-ins for Foundation")
struct EssentialsStandInTests {
    @Test("fixedPointText writes what String(format: \"%.Nf\") wrote, ties and extremes included")
    func fixedPointMatchesStringFormat() {
        var values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.45, 2.5, 4.25, 1023.95, 1023.96, 17.0, -3.75, 1e-9, 123456789.123,
                                .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity, .nan]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(Double.random(in: -1e6...1e6, using: &generator)) }
        for _ in 0..<500 { values.append(Double(Int.random(in: 0...200_000, using: &generator)) / 1000) }
        for value in values {
            for digits in [0, 1, 2, 3, 6] {
                #expect(value.fixedPointText(fractionDigits: digits) == String(format: "%.\(digits)f", value), "\(value) with \(digits) digits")
            }
        }
    }

    @Test("a detached thread runs its body under its name, cut to the kernel's 15 bytes")
    func detachedThreadRunsNamed() throws {
        let seen = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        for name in ["dbus-io", "a-name-longer-than-fifteen"] {
            DetachedThread.start(name: name, stackSize: name == "dbus-io" ? nil : 1 << 20) {
                let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                seen.withLock { $0.append(comm.trimmingCharacters(in: .newlines)) }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success, "the thread named \(name) never ran its body")
        }
        #expect(seen.withLock { $0 } == ["dbus-io", "a-name-longer-t"])
    }
}
