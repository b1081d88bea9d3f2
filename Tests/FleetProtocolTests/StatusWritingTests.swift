@testable import FleetProtocol
import Testing

/// Status is written by hand (`StatusInfo+Writing`); it must be the bytes `JSONEncoder` writes, member for member.
@Suite struct StatusWritingTests {
    static let awkwardStrings = ["", "hci0", "a/b//c", #"q"uote\back"#, "\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1B}\u{1F}\u{7F}", "ünïcödé 😀 \u{2028}"]
    static let awkwardDoubles: [Double] = [0, -0.0, 0.1, 1e-7, 5, 123_456_789.125, 1e16, 1.5e300, -2.75, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
    static let awkwardIntegers: [Int] = [0, 1, -1, 9_007_199_254_740_993, .max, .min]

    /// A Status with every optional set and every string, double and integer above somewhere in it.
    static func everyMemberSet(_ variant: Int) -> StatusInfo {
        func text(_ offset: Int) -> String { awkwardStrings[(variant + offset) % awkwardStrings.count] }
        func double(_ offset: Int) -> Double { awkwardDoubles[(variant + offset) % awkwardDoubles.count] }
        func integer(_ offset: Int) -> Int { awkwardIntegers[(variant + offset) % awkwardIntegers.count] }
        let adapters = (0..<3).map { index in
            AdapterInfo(name: text(index), address: text(index + 1), powered: index % 2 == 0, slotsUsed: integer(index), slotsCapacity: integer(index + 1))
        }
        let consumers = (0..<2).map { index in
            ConsumerStatus(name: text(index + 2), cursor: Int64(integer(index + 2)), unacknowledged: Int64(integer(index + 3)),
                           oldestUnacknowledgedSeconds: double(index + 2), lostPlace: index == 1)
        }
        return StatusInfo(
            daemon: DaemonInfo(version: text(3), uptimeSeconds: double(0), state: DaemonState.allCases[variant % DaemonState.allCases.count]),
            adapters: adapters,
            counts: DeviceCounts(wanted: integer(0), ready: integer(1), backingOff: integer(2), failed: integer(3)),
            broker: BrokerLinkInfo(broker: text(4), gateway: text(5), topicBase: text(6), state: BrokerLinkInfo.LinkState.allCases[variant % 4],
                                   reconnects: integer(4), published: integer(5), acknowledged: integer(6), backlog: integer(7),
                                   oldestUnpublishedSeconds: double(5), lost: integer(8), lastError: text(7)),
            outbox: OutboxStatus(depth: integer(9), pending: integer(10), lastCursor: Int64(integer(11)), commitLatencySeconds: double(6),
                                 bytesWritten: Int64(integer(12)), droppedByRetention: Int64(integer(13)), droppedInMemory: Int64(integer(14)),
                                 failing: variant % 2 == 1, lastError: text(8), consumers: consumers))
    }

    @Test(arguments: 0..<12)
    func handWrittenStatusIsWhatTheEncoderWrites(_ variant: Int) throws {
        let status = Self.everyMemberSet(variant)
        let written = try VarlinkReply(status: status).json
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: try VarlinkReply(parameters: status).json, as: UTF8.self))
    }

    @Test func nilOptionalsAndEmptyListsAreLeftOutAsTheEncoderLeavesThemOut() throws {
        var status = Self.everyMemberSet(0)
        status.broker = nil
        status.adapters = [AdapterInfo(name: "hci0", powered: false, slotsUsed: 0, slotsCapacity: 7)]
        status.outbox?.lastError = nil
        status.outbox?.consumers = [ConsumerStatus(name: "c", cursor: 1, unacknowledged: 0, oldestUnacknowledgedSeconds: nil, lostPlace: false)]
        #expect(try VarlinkReply(status: status).json == VarlinkReply(parameters: status).json)
        status.outbox = nil
        status.adapters = []
        #expect(try VarlinkReply(status: status).json == VarlinkReply(parameters: status).json)
    }

    /// The comparisons above can only catch a member left out of the hand writer if the fixture sets it.
    @Test func theFixtureSetsEveryOptionalMember() {
        func unsetOptionals(_ value: Any, path: String) -> [String] {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else { return [path] }
                return unsetOptionals(wrapped, path: path)
            }
            return mirror.children.flatMap { child in unsetOptionals(child.value, path: path + "." + (child.label ?? "[]")) }
        }
        #expect(unsetOptionals(Self.everyMemberSet(0), path: "status") == [])
    }

    @Test func aNumberJSONCannotCarryFailsAsTheEncoderFails() {
        var status = Self.everyMemberSet(0)
        status.daemon.uptimeSeconds = .nan
        #expect(throws: VarlinkError.self) { try VarlinkReply(parameters: status) }
        #expect(throws: VarlinkError.self) { try VarlinkReply(status: status) }
        status.daemon.uptimeSeconds = 1
        status.outbox?.consumers[0].oldestUnacknowledgedSeconds = .infinity
        #expect(throws: VarlinkError.self) { try VarlinkReply(parameters: status) }
        #expect(throws: VarlinkError.self) { try VarlinkReply(status: status) }
    }
}
