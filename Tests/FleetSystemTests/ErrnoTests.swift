import FleetSystem
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Errno")
struct ErrnoTests {
    @Test("a common errno shows the C library's text and its symbolic name")
    func naming() {
        #expect(Errno.interrupted.name == "EINTR")
        #expect(Errno.interrupted.description == "Interrupted system call (EINTR)")
        #expect(Errno.noSpace.description == "No space left on device (ENOSPC)")
        #expect(Errno(rawValue: EAGAIN) == .wouldBlock)
        #expect(Errno.wouldBlock.name == "EAGAIN")
    }

    @Test("a number with no name still shows the number")
    func unnamed() {
        #expect(Errno(rawValue: 4242).name == nil)
        #expect(Errno(rawValue: 4242).description == "Unknown error 4242 (errno 4242)")
    }

    @Test("a failed call throws its errno, typed")
    func failedCallKeepsErrno() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            _ = try FileDescriptor.open("/nonexistent/fleet-system-test", O_RDONLY)
        }
        do {
            _ = try FileDescriptor.open("/nonexistent/fleet-system-test", O_RDONLY)
        } catch {
            let typed: Errno = error // the compiler proves the type: `throws(Errno)`
            #expect(typed.rawValue == ENOENT)
        }
    }
}
