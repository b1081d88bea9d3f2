internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Wakes a thread blocked in `poll` from any other thread: the waiter polls `descriptor` for reading
/// alongside its real descriptors and calls `drain()` when it fires; anyone calls `wake()`.
///
/// An eventfd, not a self-pipe. It is one descriptor rather than two; it is an 8-byte counter that cannot
/// fill up, so `wake()` never finds the pipe full and never has to decide whether a dropped byte matters;
/// and one 8-byte read resets it however many wakes piled up, where a pipe needs a read loop. fleetd is
/// Linux-only (BlueZ, systemd), so portability buys nothing. eventfd is not in Swift's Glibc module, which
/// is what the small CLinux shim is for.
///
/// A class, so the descriptor lives exactly as long as anyone who might still call `wake()`: a late wake
/// can never write to a closed number that the kernel has since given to someone else.
public final class WakeupPipe: Sendable {
    private let counter: FileDescriptor

    /// Creates the eventfd, non-blocking and close-on-exec.
    public init() throws(Errno) {
        counter = FileDescriptor(owning: try valueOrErrno { eventfd(0, FLEET_EFD_CLOEXEC | FLEET_EFD_NONBLOCK) })
    }

    /// The descriptor to poll for POLLIN.
    public var descriptor: Int32 { counter.rawValue }

    /// Makes the descriptor readable until the next `drain()`. Safe from any thread, any number of times.
    public func wake() {
        var one: UInt64 = 1
        do {
            _ = try withUnsafeBytes(of: &one) { (bytes) throws(Errno) in try counter.write(bytes) }
        } catch {
            // EAGAIN: the counter is at its maximum, so the waiter is already due to wake. Nothing else can
            // fail on an eventfd this object owns, short of a bug.
            precondition(error == .wouldBlock, "eventfd write failed: \(error)")
        }
    }

    /// Resets the wake-up; returns whether there was one pending.
    @discardableResult
    public func drain() -> Bool {
        var count: UInt64 = 0
        do {
            return try withUnsafeMutableBytes(of: &count) { (bytes) throws(Errno) in try counter.read(into: bytes) } == 8
        } catch {
            precondition(error == .wouldBlock, "eventfd read failed: \(error)")
            return false
        }
    }
}
