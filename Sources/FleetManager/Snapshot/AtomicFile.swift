import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents so that a reader sees the old file or the new one, never half of either: a
/// temporary beside it is written whole and fsynced, renamed over the old one, and the directory fsynced.
/// Used for the snapshot and for the metrics textfile.
enum AtomicFile {
    struct WriteError: Error, Sendable, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// `mode` is set on the new file whatever the umask; `beforeRename` runs once the new contents are on
    /// disk and before they replace the old (the snapshot keeps its previous copy then).
    static func replace(_ path: String, with data: Data, mode: mode_t, beforeRename: () -> Void = {}) throws(WriteError) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError(message: "\(temporary): \(String(cString: strerror(errno)))") }
        var offset = 0
        let ok = data.withUnsafeBytes { raw -> Bool in
            guard fchmod(fd, mode) == 0 else { return false }
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return fsync(fd) == 0
        }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw WriteError(message: "\(temporary): write failed: \(String(cString: strerror(errno)))")
        }
        beforeRename()
        guard rename(temporary, path) == 0 else {
            throw WriteError(message: "rename \(temporary) → \(path): \(String(cString: strerror(errno)))")
        }
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }
}
