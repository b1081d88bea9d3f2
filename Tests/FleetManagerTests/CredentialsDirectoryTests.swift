import FleetTestKit
import Foundation
import Testing

/// `LoadCredential=broker:/etc/fleetd/broker.credentials` hands fleetd a copy in `$CREDENTIALS_DIRECTORY`, made
/// the way systemd makes it: the directory 0500, the file 0400 owned by root with an ACL entry giving the service's
/// user read, which `stat` shows as 0440. fleetd must accept that file, and still refuse a group-readable file
/// anywhere else (issue 41, point 11).
@Suite(.serialized) struct CredentialsDirectoryTests {
    /// The uid systemd would grant (the service's user): any uid other than the owner's, so that the ACL has a
    /// named entry and a mask, as systemd's has.
    static let serviceUID: uid_t = 65_534

    /// Grants `uid` the permissions `perm` (4 read, 1 execute) on `path` through a POSIX ACL, as systemd's
    /// fd_add_uid_acl_permission does: with setfacl when it is installed, else by writing the ACL's extended
    /// attribute directly. Nil on success, else why the ACL could not be set.
    static func grant(_ path: String, uid: uid_t, perm: UInt16) throws -> String? {
        for setfacl in ["/usr/bin/setfacl", "/bin/setfacl"] where FileManager.default.isExecutableFile(atPath: setfacl) {
            let letters = (perm & 4 != 0 ? "r" : "") + (perm & 1 != 0 ? "x" : "")
            let result = try ChildProcess.run(setfacl, ["-m", "u:\(uid):\(letters)", path])
            return result.code == 0 ? nil : "setfacl failed: \(result.stderr)"
        }
        // The Linux xattr form of an access ACL (posix_acl_xattr.h): version 2, then (tag, perm, id) entries in tag
        // order: the owner, the named user, the owning group, the mask, others.
        var info = stat()
        guard stat(path, &info) == 0 else { return "stat failed: errno \(errno)" }
        let mode = UInt16(info.st_mode & 0o777)
        let undefined = UInt32.max
        let entries: [(UInt16, UInt16, UInt32)] = [(0x01, mode >> 6 & 7, undefined), (0x02, perm, uid), (0x04, mode >> 3 & 7, undefined),
                                                   (0x10, perm | (mode >> 3 & 7), undefined), (0x20, mode & 7, undefined)]
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(UInt32(2))
        for (tag, perm, id) in entries { append(tag); append(perm); append(id) }
        // Swift's Glibc module does not export <sys/xattr.h>; the C library has it.
        typealias SetXattr = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setxattr") else { return "no setxattr in the C library (and no setfacl)" }
        let setxattr = unsafeBitCast(symbol, to: SetXattr.self)
        let rc = bytes.withUnsafeBytes { setxattr(path, "system.posix_acl_access", $0.baseAddress, $0.count, 0) }
        return rc == 0 ? nil : "setxattr(system.posix_acl_access) failed: \(String(cString: strerror(errno))) (no setfacl installed either)"
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o7777
    }

    /// `fleetd --check-config config` as the service's user (as systemd runs it with User=), with
    /// `$CREDENTIALS_DIRECTORY` set or not.
    static func checkConfig(_ config: String, credentialsDirectory: String?) throws -> (code: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["CREDENTIALS_DIRECTORY"] = credentialsDirectory
        return try ChildProcess.run("/usr/bin/setpriv", ["--reuid=\(serviceUID)", "--regid=\(serviceUID)", "--clear-groups",
                                                         BuildProducts.path("fleetd"), "--check-config", config], environment: environment)
    }

    static func writeConfig(_ path: String, credentials: String) throws {
        try "[mqtt]\nhost = 127.0.0.1\nallow-plaintext-password = yes\ncredentials-file = \(credentials)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
    }

    static func writeSecret(_ path: String, mode: mode_t, owner: uid_t) throws {
        try "username=ward-3\npassword=secret\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chown(path, owner, owner) == 0 && chmod(path, mode) == 0)
    }

    @Test func aCredentialMadeAsSystemdMakesItIsAcceptedAndTheSameModeElsewhereIsRefused() async throws {
        let work = try TemporaryDirectory(prefix: "fleet-credentials")
        chmod(work.path, 0o755)
        // As systemd makes it for a service running as another user: root's directory and file, read granted by ACL.
        let credentials = work.path + "/credentials"
        #expect(mkdir(credentials, 0o700) == 0)
        let loaded = credentials + "/broker"
        try Self.writeSecret(loaded, mode: 0o400, owner: 0)
        // The mode first, then the ACL: chmod sets an ACL's mask from the group bits.
        #expect(chmod(credentials, 0o500) == 0)
        defer { chmod(credentials, 0o700) }
        if let problem = try Self.grant(loaded, uid: Self.serviceUID, perm: 4) ?? Self.grant(credentials, uid: Self.serviceUID, perm: 5) {
            print("CredentialsDirectoryTests: skipped: this file system takes no POSIX ACL, so systemd's credentials cannot be made here (\(problem))")
            return
        }
        #expect(Self.mode(loaded) == 0o440, "stat shows the ACL's mask as the group bits: \(String(Self.mode(loaded), radix: 8))")
        #expect(Self.mode(credentials) == 0o550)

        let config = work.path + "/fleetd.conf"
        try Self.writeConfig(config, credentials: loaded)
        let accepted = try await offPool { try Self.checkConfig(config, credentialsDirectory: credentials) }
        #expect(accepted.code == 0, "a credential in $CREDENTIALS_DIRECTORY is accepted: \(accepted)")

        // Without CREDENTIALS_DIRECTORY the same file is an ordinary file, and 0440 is refused.
        let unannounced = try await offPool { try Self.checkConfig(config, credentialsDirectory: nil) }
        #expect(unannounced.code == 3 && unannounced.stderr.contains("0440"), "\(unannounced)")

        // The same secret, group-readable by chmod, outside the credentials directory: refused though the variable is set.
        let elsewhere = work.path + "/broker.credentials"
        try Self.writeSecret(elsewhere, mode: 0o440, owner: Self.serviceUID)
        let outside = work.path + "/outside.conf"
        try Self.writeConfig(outside, credentials: elsewhere)
        let refused = try await offPool { try Self.checkConfig(outside, credentialsDirectory: credentials) }
        #expect(refused.code == 3 && refused.stderr.contains("0440") && refused.stderr.contains("chmod 600"), "\(refused)")
    }

    @Test func aGroupReadableFileInTheCredentialsDirectoryWithoutSystemdsACLIsRefused() async throws {
        let work = try TemporaryDirectory(prefix: "fleet-credentials")
        chmod(work.path, 0o755)
        let credentials = work.path + "/credentials"
        #expect(mkdir(credentials, 0o755) == 0)
        // Group-readable by its group's own bits (no ACL): not what systemd makes.
        let planted = credentials + "/broker"
        try Self.writeSecret(planted, mode: 0o440, owner: Self.serviceUID)
        #expect(chmod(credentials, 0o500) == 0 && chown(credentials, Self.serviceUID, Self.serviceUID) == 0)
        defer { chmod(credentials, 0o700) }
        let config = work.path + "/fleetd.conf"
        try Self.writeConfig(config, credentials: planted)
        let refused = try await offPool { try Self.checkConfig(config, credentialsDirectory: credentials) }
        #expect(refused.code == 3 && refused.stderr.contains("0440"), "\(refused)")
    }
}
