/// Where a ``PublishPump`` takes its readings from: in fleetd, the outbox seen as one named consumer.
///
/// The pump calls these from one task at a time, never concurrently. They should be quick (an indexed read, a
/// cursor update): the pump does not publish while they run. An error is reported (``PublishPumpReport``) and the
/// call retried at the next poll; it does not stop the pump.
public protocol ReadingSource: Sendable {
    /// The consumer's acknowledged cursor when the pump starts: publishing resumes after it.
    func acknowledgedCursor() throws -> Int64
    /// Up to `limit` readings with a cursor greater than `cursor`, in increasing cursor order.
    func read(after cursor: Int64, limit: Int) throws -> [BrokerReading]
    /// Every reading with a cursor up to and including `cursor` was acknowledged by the broker (or settled as
    /// unpublishable); the source may advance the consumer's cursor and let retention drop them.
    func acknowledge(upTo cursor: Int64) throws
}
