import BrokerTestKit
import FleetProtocol
import FleetStore
import FleetTestKit
import Foundation
import Testing

/// One fleetd on the simulator publishing to a test's mosquitto: the scenario, the configuration, the waits on
/// its Status, and the final check of what a subscriber received against what fleetd says the broker
/// acknowledged.
struct BrokerFleet {
    let harness: FleetHarness
    let gateway: String
    var base: String { "fleetd/" + gateway }
    static let straps = 3
    static let ids = (1...straps).map(id)

    static func id(_ i: Int) -> String { "addr-A000000000\(String(format: "%02X", i))" }

    /// Heart-rate straps notifying every `interval` seconds.
    static func scenario(interval: Double) -> String {
        "adapters 1\n" + (1...straps).map { i in
            "device s\(i) address=A0:00:00:00:00:\(String(format: "%02X", i)) name=\"Strap \(i)\" profile=heart-rate,battery interval=\(interval) rssi=-\(50 + i)"
        }.joined(separator: "\n")
    }

    static func configuration(broker: MosquittoBroker, gateway: String, extra: String = "") -> String {
        (1...straps).map { "[device \"\(id($0))\"]\nname = Strap \($0)\nclass = critical\nsubscribe = 2a37\n" }.joined(separator: "\n")
            + "\n[mqtt]\nhost = \(broker.host)\nport = \(broker.port)\ngateway-id = \(gateway)\nkeep-alive = 5s\n" + extra
    }

    /// The harness, without fleetd yet: start the subscriber first, so it sees every reading.
    init(broker: MosquittoBroker, gateway: String, interval: Double = 0.1, extra: String = "") async throws {
        harness = try await FleetHarness(scenario: Self.scenario(interval: interval),
                                         configuration: Self.configuration(broker: broker, gateway: gateway, extra: extra), startFleetd: false)
        self.gateway = gateway
    }

    /// Status's `broker` record.
    func link() async throws -> [String: JSONValue] {
        try #require(try await harness.call(.status)["broker"]?.objectValue, "Status has no broker record")
    }

    func waitForLink(_ what: String, timeout: Duration = .seconds(40), _ condition: @escaping ([String: JSONValue]) -> Bool) async throws {
        do {
            try await waitUntil(what, timeout: timeout) { condition(try await link()) }
        } catch {
            throw TestKitError("\(error)\nlast Status broker: \((try? await link())?.description ?? "-")\n--- fleetd ---\n\(harness.logTail(30))")
        }
    }

    /// Waits until every device is ready and the subscriber has `count` readings from each.
    func waitForReadings(_ subscriber: MosquittoSubscriber, atLeast count: Int, timeout: Duration = .seconds(40)) async throws {
        let base = self.base
        try await subscriber.waitFor("\(count) readings of every device under \(base)", timeout: timeout) { messages in
            let ledger = ReadingLedger(messages, base: base)
            return Self.ids.allSatisfy { (ledger.sequences[$0]?.count ?? 0) >= count }
        }
    }

    /// What the broker acknowledged, read from the outbox after fleetd stopped cleanly: per device, the highest
    /// seq at or below the `mqtt` consumer's cursor.
    func acknowledged() throws -> (cursor: Int64, lastSeq: [String: Int64]) {
        let outbox = try Outbox(path: harness.outboxPath)
        defer { outbox.close() }
        let cursor = outbox.cursor(of: "mqtt") ?? 0
        var last: [String: Int64] = [:]
        var after: Int64 = 0
        while after < cursor {
            let page = try outbox.read(after: after, limit: 1000)
            for stored in page.readings where stored.id <= cursor { last[stored.device] = max(last[stored.device] ?? 0, stored.seq) }
            after = page.next
            if page.reachedEnd { break }
        }
        return (cursor, last)
    }

    /// Stops fleetd (SIGTERM: its cursor is committed), then waits until the subscriber holds every reading the
    /// broker acknowledged and returns its ledger; `allowGap` lets one run of missing seqs per device through
    /// (retention), reported in the result.
    func stopAndCheckContinuity(_ subscriber: MosquittoSubscriber, allowGap: Bool = false) async throws -> (ledger: ReadingLedger, missing: [String: [Int64]]) {
        #expect(try await harness.signalDaemon(SIGTERM) == 0)
        let (cursor, lastSeq) = try acknowledged()
        #expect(cursor > 0, "the broker acknowledged nothing")
        for id in Self.ids { #expect((lastSeq[id] ?? 0) > 0, "\(id): nothing acknowledged") }
        let base = self.base
        if !allowGap {
            do {
                try await subscriber.waitFor("every acknowledged reading under \(base)", timeout: .seconds(20)) { ReadingLedger($0, base: base).isComplete(lastSeq) }
            } catch {
                let ledger = ReadingLedger(subscriber.messages(), base: base)
                Issue.record("\(error): missing \(ledger.missing(lastSeq).mapValues { $0.count > 20 ? Array($0.prefix(20)) : $0 })")
            }
        } else {
            try await subscriber.waitFor("the last acknowledged reading of every device under \(base)", timeout: .seconds(20)) { messages in
                let ledger = ReadingLedger(messages, base: base)
                return lastSeq.allSatisfy { ledger.sequences[$0.key]?.contains($0.value) == true }
            }
        }
        let ledger = ReadingLedger(subscriber.messages(), base: base)
        #expect(ledger.malformed.isEmpty, "malformed payloads: \(ledger.malformed.prefix(3))")
        let missing = ledger.missing(lastSeq)
        for (device, seqs) in missing {
            let oneRun = zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }
            #expect(allowGap && oneRun, "\(device) misses seq \(seqs.prefix(20))\(seqs.count > 20 ? "…" : "") (\(seqs.count))")
        }
        for id in Self.ids {
            // Beyond the acknowledged cursor, a reading can arrive whose PUBACK was lost with the stop: what arrived
            // is still without a hole.
            let seen = ledger.sequences[id] ?? []
            let top = seen.max() ?? 0
            let holes = (1...max(1, top)).filter { !seen.contains($0) && !(missing[id] ?? []).contains($0) }
            #expect(holes.isEmpty, "\(id): seq \(holes.prefix(20)) missing below \(top)")
        }
        return (ledger, missing)
    }

    /// Waits until the broker retains `payload` on `topic`.
    static func waitForRetained(_ payload: String, on topic: String, broker: MosquittoBroker, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil("'\(payload)' retained on \(topic)", timeout: timeout) {
            try await MosquittoSubscriber.retained(on: topic, broker: broker)?.payload == payload
        }
    }

    /// Waits until the broker retains a state payload for `device` containing `state`.
    func waitForRetainedState(_ device: String, _ state: String, broker: MosquittoBroker) async throws {
        let topic = base + "/" + device + "/state"
        try await waitUntil("\(device)'s state '\(state)' retained", timeout: .seconds(20)) {
            try await MosquittoSubscriber.retained(on: topic, broker: broker)?.payload.contains("\"state\":\"\(state)\"") == true
        }
    }
}
