internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// A new Unix stream socket, close-on-exec, and non-blocking when asked.
    public static func unixStreamSocket(nonBlocking: Bool) throws(Errno) -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return FileDescriptor(owning: try valueOrErrno { socket(AF_UNIX, type, 0) })
    }

    /// Takes the next waiting connection off this listening socket, non-blocking and close-on-exec from the
    /// start (accept4: a process spawned by another thread in between cannot inherit it).
    public func acceptConnection() throws(Errno) -> FileDescriptor {
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        return FileDescriptor(owning: try valueOrErrno { accept4(rawValue, nil, nil, flags) })
    }

    /// Sends at most `buffer.count` bytes on a connected socket and returns how many the kernel took. A peer
    /// that has gone away is `.brokenPipe` (MSG_NOSIGNAL), never a SIGPIPE that would kill the process.
    public func send(_ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.send(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Receives at most `buffer.count` bytes from a connected socket; 0 means the peer closed its end.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { recv(rawValue, buffer.baseAddress, buffer.count, 0) }
    }
}
