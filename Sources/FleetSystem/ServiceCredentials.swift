internal import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// systemd's service credentials (`LoadCredential=`, `SetCredential=`, `ImportCredential=`): files systemd copies
/// into a directory of the service's own, announced in `$CREDENTIALS_DIRECTORY`.
///
/// A secret file (broker credentials, a passkey) is refused when its group or others have any permission on it.
/// systemd's credentials break that rule by construction: the directory (`/run/credentials/<unit>`, a mount of its
/// own that only systemd writes) is 0500 and each file 0400, both owned by root, and when the service runs as
/// another user systemd grants that user read through a POSIX ACL (`user:<uid>:r`), whose mask `stat` shows as
/// the group bits: 0440 (the directory 0550). So a file is accepted with those bits exactly when it is a
/// credential as systemd makes it:
///
/// - `$CREDENTIALS_DIRECTORY` is set, and the opened file (resolved through `/proc/self/fd`) lies directly in it;
/// - the directory is owned by root or by this process's user and is neither writable by its group or others
///   nor open to others;
/// - the file is a regular file owned by root or by this process's user, not writable by its group or others,
///   nothing for others;
/// - its group bits are an ACL's mask, not its group's permissions: the ACL names no group, gives the owning
///   group nothing, and names no user but root and this process's user, read-only.
///
/// Anything else (another directory, a plain `chmod 440`, an ACL for someone else) gets the ordinary check.
public enum ServiceCredentials {
    /// `$CREDENTIALS_DIRECTORY`, when systemd started this process with credentials.
    public static var directory: String? {
        guard let value = getenv("CREDENTIALS_DIRECTORY") else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Whether the file open at `descriptor` is a service credential as systemd makes it (see the type's rules),
    /// in `directory` (by default `$CREDENTIALS_DIRECTORY`).
    public static func isServiceCredential(descriptor: Int32, directory: String? = ServiceCredentials.directory) -> Bool {
        guard let directory, directory.hasPrefix("/"), let resolvedDirectory = realPath(directory),
              let filePath = path(of: descriptor) else { return false }
        guard let slash = filePath.lastIndex(of: "/"), filePath[..<slash] == resolvedDirectory[...] else { return false }
        let me = geteuid()
        var folder = stat()
        guard stat(resolvedDirectory, &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR,
              folder.st_uid == 0 || folder.st_uid == me, folder.st_mode & 0o027 == 0 else { return false }
        var file = stat()
        guard fstat(descriptor, &file) == 0, file.st_mode & S_IFMT == S_IFREG, file.st_uid == 0 || file.st_uid == me,
              file.st_mode & 0o027 == 0 else { return false }
        // No group bits: nothing beyond the owner, which the ordinary check accepts anyway.
        guard file.st_mode & 0o070 != 0 else { return true }
        return aclGrantsOnlyReadTo([0, me], descriptor: descriptor)
    }

    /// Whether the file's access ACL gives nothing to any group and only read to the users in `users`.
    static func aclGrantsOnlyReadTo(_ users: [uid_t], descriptor: Int32) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { fgetxattr(descriptor, "system.posix_acl_access", $0.baseAddress, $0.count) }
        // Without an ACL the group bits are the owning group's permissions: not systemd's making.
        guard count >= 4, (count - 4) % 8 == 0 else { return false }
        func value(_ offset: Int, _ size: Int) -> UInt32 {
            (0..<size).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        guard value(0, 4) == 2 else { return false }
        let read: UInt32 = 4
        for entry in stride(from: 4, to: count, by: 8) {
            let tag = value(entry, 2), permissions = value(entry + 2, 2), id = value(entry + 4, 4)
            switch tag {
            case 0x01, 0x10: continue  // the owner's own bits, and the mask (the group bits stat shows)
            case 0x02: guard users.contains(id), permissions & ~read == 0 else { return false }  // a named user
            case 0x04, 0x20: guard permissions == 0 else { return false }  // the owning group, others
            default: return false  // a named group, or a tag this code does not know
            }
        }
        return true
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path the descriptor was opened at, symbolic links resolved (what the kernel says in /proc/self/fd).
    private static func path(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
