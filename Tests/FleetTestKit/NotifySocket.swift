import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bound datagram socket standing in for systemd's NOTIFY_SOCKET: a test hands its path to a daemon and
/// waits for READY=1 (or any other line) with a deadline.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    public private(set) var received: [String] = []

    public init(path: String) throws {
        self.path = path
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8.prefix($0.count - 1)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestKitError("cannot bind notify socket \(path)") }
    }

    deinit { close(fd); unlink(path) }

    /// Waits for a datagram containing `line` (e.g. `READY=1`); every datagram seen is kept in `received`.
    public func wait(for line: String, timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw TestKitError("no \(line) on the notify socket within \(timeout); got \(received)") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(remaining.components.seconds * 1000 + 1, 60_000))
            guard poll(&pfd, 1, ms) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { continue }
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            received.append(text)
            if text.split(separator: "\n").contains(where: { $0 == line }) { return }
        }
    }
}
