#if canImport(Glibc)
import Glibc
#endif
import FleetProtocol

/// The server's listening Unix stream socket: bound to a path with a mode and group, or inherited.
public struct ListeningSocket: Sendable {
    /// The listening file descriptor (non-blocking, close-on-exec).
    public let fd: Int32
    /// The path this process bound and should unlink on shutdown; nil for an inherited socket.
    public let ownedPath: String?

    /// Binds `path`: a stale socket file is removed first (refusing to remove anything that is not a socket),
    /// the parent directory is created if missing, and the socket gets `mode` and, if given, group `gid`.
    public static func bind(path: String, mode: mode_t, gid: gid_t?) throws(ControlSocketError) -> ListeningSocket {
        guard let address = UnixSocketAddress(path: path) else {
            throw ControlSocketError(operation: "socket address", path: path, errno: ENAMETOOLONG)
        }
        try removeStaleSocket(at: path)
        try createParentDirectory(of: path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlSocketError(operation: "socket", path: path, errno: errno) }
        // Bind under a restrictive umask so the socket never exists, even briefly, with wider permissions.
        let previousMask = umask(0o177)
        let bound = address.withSockaddr { Glibc.bind(fd, $0, $1) }
        let bindErrno = errno
        umask(previousMask)
        guard bound == 0 else {
            close(fd)
            throw ControlSocketError(operation: "bind", path: path, errno: bindErrno)
        }
        if let gid, chown(path, uid_t.max, gid) != 0 {
            let failure = ControlSocketError(operation: "chown", path: path, errno: errno, detail: "group \(gid)")
            close(fd)
            unlink(path)
            throw failure
        }
        guard chmod(path, mode) == 0 else {
            let failure = ControlSocketError(operation: "chmod", path: path, errno: errno)
            close(fd)
            unlink(path)
            throw failure
        }
        guard listen(fd, 128) == 0 else {
            let failure = ControlSocketError(operation: "listen", path: path, errno: errno)
            close(fd)
            unlink(path)
            throw failure
        }
        return ListeningSocket(fd: fd, ownedPath: path)
    }

    /// Adopts an already-listening descriptor (e.g. from systemd socket activation), making it non-blocking.
    public static func adopt(fd: Int32) throws(ControlSocketError) -> ListeningSocket {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw ControlSocketError(operation: "fcntl(O_NONBLOCK) on inherited fd \(fd)", errno: errno)
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return ListeningSocket(fd: fd, ownedPath: nil)
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
            throw ControlSocketError(operation: "remove stale socket", path: path, errno: EEXIST, detail: "not a socket; refusing to remove it")
        }
        guard unlink(path) == 0 else { throw ControlSocketError(operation: "unlink stale socket", path: path, errno: errno) }
    }

    private static func createParentDirectory(of path: String) throws(ControlSocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 { return }
        guard mkdir(parent, 0o755) == 0 || errno == EEXIST else {
            throw ControlSocketError(operation: "mkdir", path: parent, errno: errno)
        }
    }
}
