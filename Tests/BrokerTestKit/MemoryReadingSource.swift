import FleetBroker
import Foundation
import Synchronization

/// A ``ReadingSource`` in memory, for tests, the probe and the bench: readings appended in cursor order
/// (cursor 1, 2, …), devices `dev-0` … `dev-<n-1>` in turn, each with its own sequence from 1.
public final class MemoryReadingSource: ReadingSource {
    private struct State {
        var readings: [BrokerReading] = []
        var acknowledged: Int64 = 0
        var acknowledgeCalls: [Int64] = []
        var nextSequence: [String: Int64] = [:]
    }

    private let state = Mutex(State())
    private let onAcknowledge: @Sendable (Int64) -> Void
    public static let characteristic = "00002a37-0000-1000-8000-00805f9b34fb"

    /// `onAcknowledge` is told every cursor the pump acknowledges, on the pump's task.
    public init(onAcknowledge: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.onAcknowledge = onAcknowledge
    }

    /// Appends `count` readings spread over `devices` devices; returns the last cursor.
    @discardableResult
    public func append(count: Int, devices: Int, gatewayTime: Date = Date()) -> Int64 {
        state.withLock { state in
            state.readings.reserveCapacity(state.readings.count + count)
            for _ in 0..<count {
                let cursor = Int64(state.readings.count + 1)
                let device = "dev-\(Int(cursor - 1) % devices)"
                let sequence = state.nextSequence[device, default: 1]
                state.nextSequence[device] = sequence + 1
                state.readings.append(BrokerReading(
                    cursor: cursor, device: device, characteristic: Self.characteristic, sequence: sequence,
                    kind: .notification, monotonicNanoseconds: UInt64(cursor) * 1_000_000, wallTime: gatewayTime,
                    session: 1, value: [UInt8(truncatingIfNeeded: sequence), UInt8(truncatingIfNeeded: sequence >> 8)]))
            }
            return Int64(state.readings.count)
        }
    }

    /// Appends readings as given (their cursors must continue the existing ones in increasing order).
    public func append(_ readings: [BrokerReading]) {
        state.withLock { $0.readings += readings }
    }

    public var lastCursor: Int64 { state.withLock { $0.readings.last?.cursor ?? 0 } }
    public var acknowledged: Int64 { state.withLock { $0.acknowledged } }
    /// Every cursor the pump acknowledged, in order.
    public var acknowledgeCalls: [Int64] { state.withLock { $0.acknowledgeCalls } }
    /// The last sequence number given to each device.
    public var lastSequences: [String: Int64] { state.withLock { $0.nextSequence.mapValues { $0 - 1 } } }

    public func acknowledgedCursor() throws -> Int64 { acknowledged }

    public func read(after cursor: Int64, limit: Int) throws -> [BrokerReading] {
        state.withLock { state in
            var low = 0, high = state.readings.count
            while low < high {
                let middle = (low + high) / 2
                if state.readings[middle].cursor <= cursor { low = middle + 1 } else { high = middle }
            }
            return Array(state.readings[low..<min(state.readings.count, low + limit)])
        }
    }

    public func acknowledge(upTo cursor: Int64) throws {
        state.withLock { state in
            precondition(cursor > state.acknowledged, "acknowledged cursor went from \(state.acknowledged) back to \(cursor)")
            state.acknowledged = cursor
            state.acknowledgeCalls.append(cursor)
        }
        onAcknowledge(cursor)
    }
}
