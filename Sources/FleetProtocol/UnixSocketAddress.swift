#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for a filesystem path, checked against the kernel's 108-byte limit: where both ends of
/// the control socket meet.
public struct UnixSocketAddress {
    private var storage = sockaddr_un()

    /// Nil when `path` is empty, contains a NUL, or does not fit `sun_path` with its terminator.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
    }

    /// Calls `body` with the address as a generic `sockaddr` pointer and its length.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
