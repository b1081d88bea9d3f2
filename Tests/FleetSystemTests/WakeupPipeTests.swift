import FleetSystem
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("WakeupPipe")
struct WakeupPipeTests {
    @Test("wake() ends a poll that has no timeout")
    func wakesPoll() throws {
        let wakeup = try WakeupPipe()
        let ready = Mutex<Result<(count: Int, revents: Int16), Errno>?>(nil)
        let poller = BlockedThread(unblocking: SIGURG) {
            var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
            let result = Result { () throws(Errno) in try Poll.wait(&fds, timeoutMilliseconds: -1) }
            ready.withLock { $0 = result.map { ($0, fds[0].revents) } }
        }
        try #require(BlockedThread.waitUntil { poller.blockedSyscall.map(SyscallNumber.polls.contains) == true },
                     "the poller is blocked in poll")
        wakeup.wake()
        poller.join()
        let outcome = try #require(try ready.withLock { $0 }?.get())
        #expect(outcome.count == 1)
        #expect(outcome.revents & Int16(POLLIN) != 0)
        #expect(wakeup.drain())
    }

    @Test("many wakes are one drain; a drained pipe no longer polls ready")
    func drainResets() throws {
        let wakeup = try WakeupPipe()
        for _ in 0..<1000 { wakeup.wake() }
        var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        #expect(try Poll.wait(&fds, timeoutMilliseconds: 0) == 1)
        #expect(wakeup.drain())
        #expect(!wakeup.drain())
        fds[0].revents = 0
        #expect(try Poll.wait(&fds, timeoutMilliseconds: 0) == 0)
    }

    @Test("the wake-up descriptor is close-on-exec and non-blocking")
    func flags() throws {
        let wakeup = try WakeupPipe()
        #expect(fcntl(wakeup.descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(wakeup.descriptor, F_GETFL) & O_NONBLOCK != 0)
    }
}
