import Dispatch
import FleetSystem
#if canImport(Glibc)
import Glibc
#endif

/// Unix signals as an AsyncStream, the way swift-service-lifecycle delivers them: the default actions are
/// ignored and a dispatch source per signal yields its number.
public enum UnixSignals {
    /// A stream of the given signals, in the order they arrive. Keep the returned sources alive as long as
    /// the stream is iterated.
    public static func stream(_ signals: [Int32]) -> (AsyncStream<Int32>, [any DispatchSourceSignal]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            do {
                try SignalDisposition.ignore(number)
            } catch {
                // Only SIGKILL, SIGSTOP or a number that is no signal: the caller's mistake.
                preconditionFailure("cannot ignore signal \(number): \(error)")
            }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        return (stream, sources)
    }
}
