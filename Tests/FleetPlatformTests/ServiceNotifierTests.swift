import FleetPlatform
import FleetSystem
import FleetTestKit
import Foundation
import Testing

@Suite("sd_notify", .serialized)
struct ServiceNotifierTests {
    /// Binds a datagram socket and points NOTIFY_SOCKET at it, as systemd does for Type=notify services.
    func withNotifySocket(_ body: (Int32) throws -> Void) throws {
        let dir = try TemporaryDirectory(prefix: "fleet-notify")
        let path = dir.path + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        setenv("NOTIFY_SOCKET", path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        try body(fd)
    }

    func receive(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }

    @Test("READY=1 and STATUS= reach the notify socket")
    func readyAndStatus() throws {
        try withNotifySocket { fd in
            let notifier = ServiceNotifier()
            #expect(notifier.ready(status: "3 wanted, 0 ready"))
            #expect(receive(fd) == "READY=1\nSTATUS=3 wanted, 0 ready")
            #expect(notifier.status("3 wanted, 3 ready"))
            #expect(receive(fd) == "STATUS=3 wanted, 3 ready")
            #expect(notifier.watchdog())
            #expect(receive(fd) == "WATCHDOG=1")
            #expect(notifier.stopping())
            #expect(receive(fd) == "STOPPING=1")
        }
    }

    @Test("without NOTIFY_SOCKET nothing is sent and the call says so")
    func noSocket() {
        unsetenv("NOTIFY_SOCKET")
        #expect(ServiceNotifier().ready() == false)
    }

    @Test("a stale notify socket is an error with its errno, not a silent false")
    func staleSocket() throws {
        // A socket file whose socket has been closed, as after a crashed service manager.
        let dir = try TemporaryDirectory(prefix: "fleet-notify-stale")
        let path = dir.path + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)
        try #require(bound == 0)
        setenv("NOTIFY_SOCKET", path, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        #expect(throws: Errno.connectionRefused) { _ = try ServiceNotifier().deliver(["READY=1"]) }
        #expect(ServiceNotifier().ready() == false)
    }

    @Test("the watchdog interval comes from WATCHDOG_USEC")
    func watchdogInterval() {
        setenv("WATCHDOG_USEC", "20000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        #expect(ServiceNotifier().watchdogInterval() == .seconds(20))
        setenv("WATCHDOG_PID", "1", 1)
        #expect(ServiceNotifier().watchdogInterval() == nil)
        unsetenv("WATCHDOG_USEC")
        unsetenv("WATCHDOG_PID")
        #expect(ServiceNotifier().watchdogInterval() == nil)
    }
}
