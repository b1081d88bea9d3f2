#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol
import FleetSystem

/// The server's listening Unix stream socket: bound to a path with a mode and group, or inherited. It owns
/// its descriptor, which is closed exactly once, when the value goes away.
public struct ListeningSocket: ~Copyable, Sendable {
    /// The listening descriptor (non-blocking, close-on-exec).
    public let descriptor: FileDescriptor
    /// The path this process bound and should unlink on shutdown; nil for an inherited socket.
    public let ownedPath: String?

    /// Binds `path`: a stale socket file is removed first (refusing to remove anything that is not a socket),
    /// the parent directory is created if missing, and the socket gets `mode` and, if given, group `gid`.
    public static func bind(path: String, mode: mode_t, gid: gid_t?) throws(ControlSocketError) -> ListeningSocket {
        guard let address = UnixSocketAddress(path: path) else {
            throw ControlSocketError(operation: "socket address", path: path, errno: Errno(rawValue: ENAMETOOLONG))
        }
        try removeStaleSocket(at: path)
        try createParentDirectory(of: path)
        let socket: FileDescriptor
        do { socket = try .unixStreamSocket(nonBlocking: true) } catch { throw ControlSocketError(operation: "socket", path: path, errno: error) }
        let number = socket.rawValue
        // Bind under a restrictive umask so the socket never exists, even briefly, with wider permissions.
        let previousMask = umask(0o177)
        let bound = Result { () throws(Errno) in try nothingOrErrno { address.withSockaddr { Glibc.bind(number, $0, $1) } } }
        umask(previousMask)
        if case .failure(let error) = bound { throw ControlSocketError(operation: "bind", path: path, errno: error) }
        // From here on the path is this process's socket: a failure removes it again (the descriptor closes
        // itself when `socket` goes away).
        func unbinding(_ operation: String, detail: String? = nil, _ call: () -> Int32) throws(ControlSocketError) {
            do { try nothingOrErrno(call) } catch {
                try? removeFile(path)
                throw ControlSocketError(operation: operation, path: path, errno: error, detail: detail)
            }
        }
        if let gid { try unbinding("chown", detail: "group \(gid)") { chown(path, uid_t.max, gid) } }
        try unbinding("chmod") { chmod(path, mode) }
        try unbinding("listen") { listen(number, 128) }
        return ListeningSocket(descriptor: socket, ownedPath: path)
    }

    /// Adopts an already-listening descriptor (e.g. from systemd socket activation), making it non-blocking
    /// and close-on-exec; from here on this value owns it.
    public static func adopt(fd: Int32) throws(ControlSocketError) -> ListeningSocket {
        let socket = FileDescriptor(owning: fd)
        do {
            try socket.setNonBlocking(true)
        } catch {
            throw ControlSocketError(operation: "fcntl(O_NONBLOCK) on inherited fd \(fd)", errno: error)
        }
        do {
            try nothingOrErrno { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        } catch {
            throw ControlSocketError(operation: "fcntl(FD_CLOEXEC) on inherited fd \(fd)", errno: error)
        }
        return ListeningSocket(descriptor: socket, ownedPath: nil)
    }

    /// The first socket-activation descriptor (fd 3) when `LISTEN_PID` names this process and
    /// `LISTEN_FDS` is at least 1, as sd_listen_fds(3) specifies; nil otherwise.
    public static func activationDescriptor(environment: [String: String], pid: Int32) -> Int32? {
        guard let listenPID = environment["LISTEN_PID"].flatMap({ Int32($0) }), listenPID == pid,
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1 else { return nil }
        return 3
    }

    private static func removeStaleSocket(at path: String) throws(ControlSocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(operation: "remove stale socket", path: path, errno: .fileExists, detail: "not a socket; refusing to remove it")
        }
        do { try removeFile(path) } catch { throw ControlSocketError(operation: "unlink stale socket", path: path, errno: error) }
    }

    private static func createParentDirectory(of path: String) throws(ControlSocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 { return }
        do {
            try nothingOrErrno { mkdir(parent, 0o755) }
        } catch {
            // Another process creating it in between is as good as creating it here.
            guard error == .fileExists else { throw ControlSocketError(operation: "mkdir", path: parent, errno: error) }
        }
    }
}
