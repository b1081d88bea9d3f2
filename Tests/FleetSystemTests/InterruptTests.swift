import FleetSystem
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How many times the test signal's handler has run.
private let handledSignals = Atomic<Int>(0)

private func noteSignal(_: Int32) {
    handledSignals.add(1, ordering: .relaxed)
}

/// A signal nothing else in the test process uses (its default action is to ignore it).
private let testSignal = SIGURG

@Suite("EINTR is retried in one place", .serialized)
struct InterruptTests {
    init() throws {
        // Without SA_RESTART the kernel fails an interrupted read with EINTR instead of restarting it.
        try SignalDisposition.handle(testSignal, with: noteSignal, restartInterruptedCalls: false)
    }

    /// Interrupts `thread` once while it is blocked in read(2); returns whether it was.
    func interruptRead(of thread: BlockedThread) -> Bool {
        guard BlockedThread.waitUntil({ thread.blockedSyscall == SyscallNumber.read }) else { return false }
        let before = handledSignals.load(ordering: .relaxed)
        thread.send(testSignal)
        return BlockedThread.waitUntil { handledSignals.load(ordering: .relaxed) > before }
    }

    @Test("a read interrupted by a signal is retried and returns the data")
    func readRetried() throws {
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd.rawValue
        let outcome = Mutex<Result<[UInt8], Errno>?>(nil)
        let reader = BlockedThread(unblocking: testSignal) {
            let result = FileDescriptor.borrowing(readEnd) { fd in
                var buffer = [UInt8](repeating: 0, count: 8)
                return buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try fd.read(into: raw) } }
                    .map { Array(buffer[..<$0]) }
            }
            outcome.withLock { $0 = result }
        }
        for _ in 0..<3 {
            try #require(interruptRead(of: reader), "the reader was interrupted while blocked in read")
        }
        // Blocked in read again after the last signal: the EINTR was retried, not returned.
        #expect(BlockedThread.waitUntil { reader.blockedSyscall == SyscallNumber.read })
        #expect(!reader.isFinished)
        try pipe.writeEnd.writeAll([42])
        reader.join()
        #expect(try outcome.withLock { $0 }?.get() == [42])
    }

    @Test("with retryOnInterrupt: false the caller sees EINTR, typed")
    func interruptSurfaces() throws {
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd.rawValue
        let outcome = Mutex<Result<Int, Errno>?>(nil)
        let reader = BlockedThread(unblocking: testSignal) {
            let result = FileDescriptor.borrowing(readEnd) { fd in
                var byte: UInt8 = 0
                return withUnsafeMutableBytes(of: &byte) { raw in
                    Result { () throws(Errno) in try fd.read(into: raw, retryOnInterrupt: false) }
                }
            }
            outcome.withLock { $0 = result }
        }
        try #require(interruptRead(of: reader))
        reader.join()
        #expect(throws: Errno.interrupted) { try outcome.withLock { $0 }?.get() }
    }

    @Test("valueOrErrno calls again after EINTR and only then")
    func attemptsCounted() throws {
        let pipe = try FileDescriptor.pipe()
        let readEnd = pipe.readEnd.rawValue
        let attempts = Atomic<Int>(0)
        let reader = BlockedThread(unblocking: testSignal) {
            var byte: UInt8 = 0
            _ = try? valueOrErrno { () -> Int in
                attempts.add(1, ordering: .relaxed)
                return read(readEnd, &byte, 1)
            }
        }
        try #require(interruptRead(of: reader))
        try #require(interruptRead(of: reader))
        #expect(BlockedThread.waitUntil { reader.blockedSyscall == SyscallNumber.read })
        try pipe.writeEnd.writeAll([1])
        reader.join()
        #expect(attempts.load(ordering: .relaxed) == 3)
    }
}
