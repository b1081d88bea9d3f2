#if canImport(Glibc)
import Glibc
#endif

/// poll(2) over a set of descriptors.
public enum Poll {
    /// Waits until one of `descriptors` is ready or `timeoutMilliseconds` pass (-1: no limit) and returns
    /// how many are ready, with each entry's `revents` filled in.
    ///
    /// An interrupting signal returns 0, as a timeout would, rather than retrying: a poll loop recomputes
    /// its timeout from its deadlines on every turn, and retrying with the old one would push them back.
    public static func wait(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) throws(Errno) -> Int {
        do {
            let ready = try valueOrErrno(retryOnInterrupt: false) {
                descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMilliseconds) }
            }
            return Int(ready)
        } catch .interrupted {
            return 0
        }
    }
}
