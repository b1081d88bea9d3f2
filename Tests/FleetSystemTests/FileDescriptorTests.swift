import FleetSystem
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Descriptor numbers are moved to a band no other test uses (fcntl F_DUPFD_CLOEXEC from a floor), because
/// tests run in parallel in one process and the lowest free number is handed to whichever thread asks
/// first.
@Suite("FileDescriptor")
struct FileDescriptorTests {
    /// A fresh descriptor (a pipe's read end) at or above `floor`, owned by the caller.
    func descriptor(atOrAbove floor: Int32) throws -> FileDescriptor {
        let pipe = try FileDescriptor.pipe()
        return FileDescriptor(owning: try valueOrErrno { fcntl(pipe.readEnd.rawValue, F_DUPFD_CLOEXEC, floor) })
    }

    func isOpen(_ number: Int32) -> Bool { fcntl(number, F_GETFD) != -1 }

    @Test("close() closes once: the number's next owner is not closed when the first value goes away")
    func closeOnce() throws {
        let floor: Int32 = 900
        let number: Int32
        do {
            let first = try descriptor(atOrAbove: floor)
            number = first.rawValue
            try first.close()
        }
        #expect(!isOpen(number))
        let second = try descriptor(atOrAbove: floor)
        try #require(second.rawValue == number, "the kernel hands the lowest free number in the band back")
        #expect(isOpen(number))
        try second.close()
        #expect(!isOpen(number))
    }

    @Test("an unclosed descriptor is closed when its owner goes away, and then only")
    func closedByDeinit() throws {
        let number: Int32
        do {
            let owned = try descriptor(atOrAbove: 920)
            number = owned.rawValue
            #expect(isOpen(number))
        }
        #expect(!isOpen(number))
    }

    @Test("a borrowed descriptor is never closed")
    func borrowedStaysOpen() throws {
        let owned = try descriptor(atOrAbove: 940)
        let flags = FileDescriptor.borrowing(owned.rawValue) { lent in fcntl(lent.rawValue, F_GETFD) }
        #expect(flags & FD_CLOEXEC != 0)
        #expect(isOpen(owned.rawValue))
    }

    @Test("close reports close's own errno")
    func closeReportsErrno() throws {
        let owned = try descriptor(atOrAbove: 960)
        let number = owned.rawValue
        let stolen = FileDescriptor(owning: number)
        try stolen.close()
        do {
            try owned.close()
            Issue.record("closing an already closed number succeeded")
        } catch {
            #expect(error == .badFileDescriptor)
        }
    }

    @Test("open, write, sync and read back; descriptors are close-on-exec")
    func readWrite() throws {
        let path = "/tmp/fleet-system-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        let file = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL, permissions: 0o600)
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        try file.writeAll(Array("fleet".utf8))
        try file.sync()
        try file.close()
        let reader = try FileDescriptor.open(path, O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try reader.read(into: raw) } }.get()
        #expect(String(decoding: buffer[..<count], as: UTF8.self) == "fleet")
        let copy = try reader.duplicate()
        #expect(copy.rawValue != reader.rawValue)
        #expect(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test("a pipe's ends are both close-on-exec")
    func pipeIsCloseOnExec() throws {
        let pipe = try FileDescriptor.pipe()
        #expect(fcntl(pipe.readEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.writeEnd.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }
}
