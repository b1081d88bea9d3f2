import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bound datagram socket standing in for systemd's NOTIFY_SOCKET. Like systemd it reads every datagram as
/// it arrives (a thread drains it, so a daemon never blocks on a full socket queue); tests wait for a line
/// such as READY=1 with a deadline.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let fd: Int32
    private let condition = NSCondition()
    /// One reader of the socket at a time (the drain thread, or a wait's last look), so datagrams keep their order.
    private let reading = NSLock()
    private var messages: [String] = []
    private var consumed = 0
    private var closed = false

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
        let thread = Thread { [self] in drain() }
        thread.start()
    }

    deinit {
        condition.lock()
        closed = true
        condition.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }

    private func drain() {
        while true {
            condition.lock()
            let done = closed
            condition.unlock()
            if done { return }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            readQueued()
        }
    }

    /// Moves the datagrams queued on the socket into `messages`, in order, without blocking.
    private func readQueued() {
        reading.lock()
        defer { reading.unlock() }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { return }
            condition.lock()
            messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Every datagram received so far.
    public var received: [String] {
        condition.lock()
        defer { condition.unlock() }
        return messages
    }

    /// Waits for a datagram not yet consumed by an earlier wait that contains `line` (e.g. `READY=1`).
    public func wait(for line: String, timeout: Duration) throws {
        try wait(until: line, timeout: timeout) { $0 == line }
    }

    /// Waits for a datagram not yet consumed by an earlier wait with a line that `matches` (e.g. a STATUS= prefix);
    /// returns that line.
    @discardableResult
    public func wait(until what: String, timeout: Duration, matching matches: (Substring) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        var lastLook = false
        condition.lock()
        defer { condition.unlock() }
        while true {
            while consumed < messages.count {
                let message = messages[consumed]
                consumed += 1
                if let found = message.split(separator: "\n").first(where: matches) { return String(found) }
            }
            if lastLook { throw TestKitError("no \(what) on the notify socket within \(timeout); got \(messages)") }
            if !condition.wait(until: deadline) {
                // Once more with what the socket holds: a stall of the test process (the drain thread included) at the
                // end of the wait must not fail it. Reading takes `reading` before `condition`, so let go of it first.
                condition.unlock()
                readQueued()
                condition.lock()
                lastLook = true
            }
        }
    }
}
