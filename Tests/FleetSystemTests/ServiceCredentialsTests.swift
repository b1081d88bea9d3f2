import FleetSystem
import Foundation
import Testing

/// Which files `ServiceCredentials` takes for a systemd credential: systemd's layout only (issue 41, point 11).
/// Runs as root, so "this process's user" is root here.
@Suite struct ServiceCredentialsTests {
    /// Sets an access ACL with one named user entry (`perm` 4 read, 5 read and execute) through its extended
    /// attribute, as setfacl would; nil when the file system refuses (then the ACL cases are skipped).
    static func grant(_ path: String, uid: uid_t, perm: UInt16, namedGroup: gid_t? = nil) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "stat failed" }
        let mode = UInt16(info.st_mode & 0o777), undefined = UInt32.max
        var entries: [(UInt16, UInt16, UInt32)] = [(0x01, mode >> 6 & 7, undefined), (0x02, perm, uid), (0x04, mode >> 3 & 7, undefined)]
        if let namedGroup { entries.append((0x08, 4, namedGroup)) }
        entries += [(0x10, perm | (mode >> 3 & 7), undefined), (0x20, mode & 7, undefined)]
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(UInt32(2))
        for (tag, perm, id) in entries { append(tag); append(perm); append(id) }
        typealias SetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr") else { return "no setxattr" }
        let rc = bytes.withUnsafeBytes { unsafeBitCast(symbol, to: SetXattr.self)(path, "system.posix_acl_access", $0.baseAddress, $0.count, 0) }
        return rc == 0 ? nil : String(cString: strerror(errno))
    }

    /// A credentials directory (0500) holding one file made by `make`; the verdict on that file.
    static func verdict(announce: Bool = true, directoryMode: mode_t = 0o500, subdirectory: Bool = false,
                        _ make: (String) -> String?) throws -> Bool? {
        var template = Array("/tmp/fleet-service-credentials-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw Errno.current }
        let work = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let directory = work + "/credentials"
        #expect(mkdir(directory, 0o700) == 0)
        var folder = directory
        if subdirectory { folder += "/sub"; #expect(mkdir(folder, 0o700) == 0) }
        let file = folder + "/secret"
        try "username=a\npassword=b\n".write(toFile: file, atomically: false, encoding: .utf8)
        if let problem = make(file) {
            print("ServiceCredentialsTests: skipped an ACL case: \(problem)")
            return nil
        }
        chmod(directory, directoryMode)
        defer { chmod(directory, 0o700) }
        let fd = open(file, O_RDONLY)
        defer { close(fd) }
        return ServiceCredentials.isServiceCredential(descriptor: fd, directory: announce ? directory : nil)
    }

    @Test func systemdsLayoutIsAccepted() throws {
        // 0400 with read granted to the service's user by ACL: stat shows 0440.
        #expect(try Self.verdict { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 4) } != false)
        // Where ACLs are not supported systemd chowns the 0400 file to the service's user instead.
        #expect(try Self.verdict { chmod($0, 0o400); return nil } == true)
    }

    @Test func anythingElseGetsTheOrdinaryCheck() throws {
        #expect(try Self.verdict(announce: false) { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 4) } != true,
                "no $CREDENTIALS_DIRECTORY")
        #expect(try Self.verdict { chmod($0, 0o440); return nil } == false, "group-readable by its group's own bits")
        #expect(try Self.verdict { chmod($0, 0o400); return Self.grant($0, uid: 65_534, perm: 4) } != true, "read granted to another user")
        #expect(try Self.verdict { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 4, namedGroup: 100) } != true, "a named group")
        #expect(try Self.verdict { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 6) } != true, "write granted")
        #expect(try Self.verdict { chmod($0, 0o404); return nil } == false, "others may read")
        #expect(try Self.verdict(directoryMode: 0o570) { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 4) } != true,
                "a directory its group may write")
        #expect(try Self.verdict(subdirectory: true) { chmod($0, 0o400); return Self.grant($0, uid: geteuid(), perm: 4) } != true,
                "not directly in the directory")
    }
}
