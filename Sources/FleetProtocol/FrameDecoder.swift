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

    public mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [Output] {
        guard !failed else { return [] }
        var outputs: [Output] = []
        for byte in bytes {
            if byte == 0 {
                outputs.append(.frame(pending))
                pending.removeAll(keepingCapacity: true)
                continue
            }
            pending.append(byte)
            if pending.count > limit {
                failed = true
                pending = []
                outputs.append(.tooLarge)
                return outputs
            }
        }
        return outputs
    }
}
