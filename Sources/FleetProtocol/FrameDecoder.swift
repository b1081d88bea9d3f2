/// Splits a varlink byte stream into NUL-terminated frames, refusing any frame longer than a limit.
///
/// Pure and incremental: feed bytes as they arrive and take out complete frames. Once a frame has
/// overrun the limit the decoder stays failed, because the connection is closed after the error reply.
public struct FrameDecoder: Sendable {
    /// The outcome of feeding bytes.
    public enum Output: Sendable, Equatable {
        case frame([UInt8])
        /// A frame exceeded `limit` bytes before its terminator arrived.
        case tooLarge
    }

    public let limit: Int
    private var pending: [UInt8] = []
    private var failed = false

    public init(limit: Int) { self.limit = limit }

    /// Bytes received but not yet part of a complete frame.
    public var pendingCount: Int { pending.count }

    /// Feeds received bytes; returns the frames they complete, in order.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) -> [Output] {
        guard !failed else { return [] }
        var outputs: [Output] = []
        var rest = bytes
        // Whole runs up to each NUL are appended at once: a byte-at-a-time loop showed up in ControlBench's profile.
        while !rest.isEmpty {
            let end = rest.firstIndex(of: 0)
            let run = rest[..<(end ?? rest.endIndex)]
            if pending.count + run.count > limit {
                failed = true
                pending = []
                outputs.append(.tooLarge)
                return outputs
            }
            pending.append(contentsOf: run)
            guard let end else { break }
            outputs.append(.frame(pending))
            pending.removeAll(keepingCapacity: true)
            rest = rest[(end + 1)...]
        }
        return outputs
    }

    /// Feeds received bytes; returns the frames they complete, in order.
    public mutating func feed(_ bytes: [UInt8]) -> [Output] { feed(bytes[...]) }
}
