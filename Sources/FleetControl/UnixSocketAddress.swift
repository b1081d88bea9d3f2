#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_un` for a filesystem path, checked against the kernel's 108-byte limit.
struct UnixSocketAddress {
    private var storage = sockaddr_un()

    init(path: String) throws(ControlSocketError) {
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            throw ControlSocketError(operation: "socket address", path: path, errno: ENAMETOOLONG)
        }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
    }

    /// Calls `body` with the address as a generic `sockaddr` pointer and its length.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
