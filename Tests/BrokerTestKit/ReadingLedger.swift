import Foundation

/// The readings a subscriber received, per device: which sequence numbers arrived, how many twice, and which
/// are missing. Only reading topics (`<prefix>/<gateway>/<device>/<characteristic>`) count.
public struct ReadingLedger: Sendable {
    /// Sequence numbers received per device (each once).
    public private(set) var sequences: [String: Set<Int64>] = [:]
    /// Readings received more than once (MQTT at-least-once).
    public private(set) var duplicates = 0
    public private(set) var total = 0
    /// Topics under which each device's readings arrived.
    public private(set) var topics: [String: Set<String>] = [:]
    /// Payloads that did not parse as a reading.
    public private(set) var malformed: [String] = []

    public init(_ messages: [SubscribedMessage], base: String) {
        for message in messages {
            guard message.topic.hasPrefix(base + "/") else { continue }
            let levels = message.topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            guard levels.count == 2, levels[1] != "state", !levels[0].hasPrefix("_") else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any],
                  let device = object["device"] as? String, let sequence = (object["seq"] as? NSNumber)?.int64Value
            else {
                malformed.append(message.payload)
                continue
            }
            total += 1
            topics[device, default: []].insert(message.topic)
            if !sequences[device, default: []].insert(sequence).inserted { duplicates += 1 }
        }
    }

    /// Per device, the sequence numbers in 1…`last` that never arrived (empty when none is missing).
    public func missing(_ expected: [String: Int64]) -> [String: [Int64]] {
        var gaps: [String: [Int64]] = [:]
        for (device, last) in expected {
            let seen = sequences[device] ?? []
            let absent = (1...max(1, last)).filter { !seen.contains($0) }
            if last > 0, !absent.isEmpty { gaps[device] = absent }
        }
        return gaps
    }

    /// Whether every device received every sequence number in 1…`last`.
    public func isComplete(_ expected: [String: Int64]) -> Bool {
        expected.allSatisfy { device, last in
            guard let seen = sequences[device] else { return last == 0 }
            return seen.count >= last && (1...max(1, last)).allSatisfy { seen.contains($0) }
        }
    }
}
