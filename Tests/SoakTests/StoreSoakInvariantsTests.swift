import Foundation
import FleetTestKit
import Testing

/// The storage soak's pure parts (issue 41): the rules on made-up observations, each shown able to fail, and
/// the fault schedule.
@Suite struct StoreSoakInvariantsTests {
    typealias R = StoreSoakInvariants.Reading
    static let consumers = ["watch", "mqtt"]

    func r(_ seq: Int64, _ value: UInt32? = nil, epoch: String = "e1", device: String = "d1") -> R {
        R(device: device, epoch: epoch, seq: seq, value: value ?? UInt32(seq) + 100)
    }

    @Test("(a) a sequence going backwards within an epoch is a violation; a new epoch starts its own numbering")
    func backwards() {
        var rules = StoreSoakInvariants(consumers: Self.consumers)
        for s in 1...5 { #expect(rules.delivered(r(Int64(s)), to: "watch").isEmpty) }
        let found = rules.delivered(r(3), to: "watch")
        #expect(found.map(\.rule) == [.backwards], "3 after 5 with no kill in between")
        // A gap is not backwards (retention may drop; the end reconciles it).
        #expect(rules.delivered(r(9), to: "watch").isEmpty)
        // Another epoch numbers from 1 again: never compared with e1.
        #expect(rules.delivered(r(1, 7, epoch: "e2"), to: "watch").isEmpty)
        // A duplicate without a permitting event is not excused.
        #expect(rules.delivered(r(1, 7, epoch: "e2"), to: "watch").map(\.rule) == [.backwards])
    }

    @Test("(a) after a fleetd kill a consumer may be sent again what it saw, once, then forward; never a new value")
    func redelivery() {
        var rules = StoreSoakInvariants(consumers: Self.consumers)
        for s in 1...5 { rules.delivered(r(Int64(s)), to: "mqtt") }
        rules.allowRedelivery("mqtt")
        #expect(rules.delivered(r(4), to: "mqtt").isEmpty, "re-delivered from the acknowledged cursor")
        #expect(rules.delivered(r(5), to: "mqtt").isEmpty)
        #expect(rules.delivered(r(6), to: "mqtt").isEmpty)
        #expect(rules.delivered(r(4), to: "mqtt").map(\.rule) == [.backwards], "the replay must go forward")
        // Permitted only for the consumer named.
        for s in 1...3 { rules.delivered(r(Int64(s)), to: "watch") }
        rules.allowRedelivery("mqtt")
        #expect(rules.delivered(r(2), to: "watch").map(\.rule) == [.backwards])
        // A step back to a number never seen is not a re-delivery.
        var other = StoreSoakInvariants(consumers: Self.consumers)
        other.delivered(r(1), to: "watch"); other.delivered(r(3), to: "watch")
        other.allowRedelivery("watch")
        #expect(other.delivered(r(2), to: "watch").map(\.rule) == [.backwards])
    }

    @Test("(b) one (device, epoch, seq) never names two values, across consumers and the outbox")
    func conflicting() {
        var rules = StoreSoakInvariants(consumers: Self.consumers)
        #expect(rules.committed(r(1, 10)).isEmpty)
        #expect(rules.delivered(r(1, 11), to: "mqtt").map(\.rule) == [.conflicting])
        #expect(rules.delivered(r(1, 10, epoch: "e2"), to: "watch").isEmpty, "another epoch may reuse the number")
    }

    @Test("(c) a lost reading is a violation unless fleetd counted a drop; a reading out of nowhere always is")
    func reconcile() {
        let committed = Set((1...10).map { r(Int64($0)) })
        var rules = StoreSoakInvariants(consumers: Self.consumers)
        for s in 1...10 { rules.delivered(r(Int64(s)), to: "watch") }
        for s in 1...10 where s != 4 { rules.delivered(r(Int64(s)), to: "mqtt") }
        var lost = rules
        let (figures, found) = lost.reconcile(committed: committed, dropped: [:])
        #expect(found.map(\.rule) == [.unaccounted], "mqtt lacks seq 4")
        #expect(figures.committed == 10 && figures.delivered == ["watch": 10, "mqtt": 9] && figures.undelivered["mqtt"] == 1)
        var counted = rules
        #expect(counted.reconcile(committed: committed, dropped: ["retention": 1]).1.isEmpty)
        rules.delivered(r(11), to: "watch")
        #expect(rules.reconcile(committed: committed, dropped: ["retention": 1]).1.map(\.rule) == [.outOfNowhere])
    }

    @Test("(d) READY while the outbox cannot be written is a violation")
    func ready() {
        var rules = StoreSoakInvariants(consumers: Self.consumers)
        #expect(rules.ready().isEmpty)
        rules.outbox(writable: false)
        #expect(rules.ready("(filesystem full at start)").map(\.rule) == [.readyWithoutOutbox])
        rules.outbox(writable: true)
        #expect(rules.ready().isEmpty)
        #expect(rules.violations.count == 1 && rules.readyCount == 3)
    }

    @Test("a seed names one schedule; every run holds a start-full and a corrupt-page; fleetd stops are spaced")
    func schedule() {
        let a = StoreSoakSchedule(seed: 1, seconds: 90)
        #expect(a.faults == StoreSoakSchedule(seed: 1, seconds: 90).faults)
        #expect(a.faults != StoreSoakSchedule(seed: 2, seconds: 90).faults)
        for seed: UInt64 in 1...20 {
            let s = StoreSoakSchedule(seed: seed, seconds: 90)
            #expect(s.countsByKind[.startFull, default: 0] >= 1 && s.countsByKind[.corruptPage, default: 0] >= 1)
            let stops = s.faults.filter { [.fleetdKill, .corruptPage, .startFull].contains($0.kind) }.map(\.at)
            #expect(zip(stops, stops.dropFirst()).allSatisfy { $1 - $0 >= StoreSoakSchedule.fleetdSpacing })
            #expect(s.faults.allSatisfy { $0.at > 0 && $0.at < 85 })
            #expect(s.faults.filter { $0.kind == .clockStep }.allSatisfy { (60...7200).contains(abs($0.amount)) })
        }
        let long = StoreSoakSchedule(seed: 7, seconds: 600)
        #expect(Set(long.faults.map(\.kind)) == Set(StoreSoakFaultKind.allCases), "\(long.countsByKind)")
        #expect(StoreSoakSchedule.figureLine([.diskFull: 2]).hasPrefix("faults injected: disk-full 2, clock-step 0"))
    }
}

/// The wall-clock step the storage soak uses: libfaketime really moves a preloaded child's clock.
@Suite struct WallClockStepTests {
    func fakeNow(_ clock: WallClockStep) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["+%s"]
        process.environment = clock.environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test("a step of the timestamp file moves the child's wall clock, back and forward", .enabled(if: WallClockStep.available))
    func steps() throws {
        let path = NSTemporaryDirectory() + "wallclock-\(getpid())"
        defer { unlink(path) }
        let clock = try WallClockStep(path: path)
        try clock.step(-3600)
        let back = try fakeNow(clock) - Int(Date().timeIntervalSince1970)
        #expect(abs(back + 3600) < 30, "\(back)")
        try clock.step(7200)
        let forward = try fakeNow(clock) - Int(Date().timeIntervalSince1970)
        #expect(abs(forward - 3600) < 30, "\(forward)")
        #expect(ProcessInfo.processInfo.environment["LD_PRELOAD"] == nil, "the soak itself is not preloaded")
    }
}
