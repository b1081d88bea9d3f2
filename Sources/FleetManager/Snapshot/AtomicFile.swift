import FleetSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file's contents so that a reader sees the old file or the new one, never half of either: a
/// temporary beside it is written whole and fsynced, renamed over the old one, and the directory fsynced.
/// Used for the snapshot and for the metrics textfile.
enum AtomicFile {
    /// Which step failed, on which path, and the errno it failed with.
    struct WriteError: Error, Sendable, CustomStringConvertible {
        enum Step: String, Sendable {
            case create, write, sync, close, rename
            case syncDirectory = "sync directory"
        }

        var step: Step
        var path: String
        var errno: Errno

        /// `/var/lib/fleetd/snapshot.json.tmp: write: No space left on device (ENOSPC)`.
        var message: String { "\(path): \(step.rawValue): \(errno)" }
        var description: String { message }
    }

    /// `mode` is set on the new file whatever the umask; `beforeRename` runs once the new contents are on
    /// disk and before they replace the old (the snapshot keeps its previous copy then).
    ///
    /// A failure to sync the directory is reported although the new contents are already in place: the
    /// rename may not survive a power cut, and the caller should know that.
    static func replace(_ path: String, with data: Data, mode: mode_t, beforeRename: () -> Void = {}) throws(WriteError) {
        let temporary = path + ".tmp"
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, permissions: mode)
        } catch {
            throw WriteError(step: .create, path: temporary, errno: error)
        }
        do {
            try fill(consume file, with: data, mode: mode)
        } catch {
            // The half-written temporary is useless. Its removal's own failure is dropped: the write's errno
            // is the one that explains what went wrong.
            try? removeFile(temporary)
            throw WriteError(step: error.step, path: temporary, errno: error.errno)
        }
        beforeRename()
        do {
            try renameFile(temporary, to: path)
        } catch {
            try? removeFile(temporary)
            throw WriteError(step: .rename, path: "\(temporary) → \(path)", errno: error)
        }
        let directory = directory(of: path)
        do {
            let handle = try FileDescriptor.open(directory, O_RDONLY | O_DIRECTORY)
            try handle.sync()
            try handle.close()
        } catch {
            throw WriteError(step: .syncDirectory, path: directory, errno: error)
        }
    }

    /// The directory holding `path`: `/var/lib/fleetd` for `/var/lib/fleetd/state.json`, `/` for `/state.json`,
    /// `.` for a bare file name; trailing and doubled slashes count as one (as NSString's
    /// `deletingLastPathComponent` did).
    static func directory(of path: String) -> String {
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        guard let slash = bytes[..<end].lastIndex(of: UInt8(ascii: "/")) else { return "." }
        var parentEnd = slash
        while parentEnd > 0 && bytes[parentEnd - 1] == UInt8(ascii: "/") { parentEnd -= 1 }
        return parentEnd == 0 ? "/" : String(decoding: bytes[..<parentEnd], as: UTF8.self)
    }

    /// Writes, syncs and closes the new file; close's own error counts, since a write-back failure can
    /// surface only there.
    private static func fill(_ file: consuming FileDescriptor, with data: Data, mode: mode_t) throws(StepFailure) {
        do {
            try file.setPermissions(mode)
            try file.writeAll(data)
        } catch {
            throw StepFailure(step: .write, errno: error)
        }
        do { try file.sync() } catch { throw StepFailure(step: .sync, errno: error) }
        do { try file.close() } catch { throw StepFailure(step: .close, errno: error) }
    }

    private struct StepFailure: Error {
        var step: WriteError.Step
        var errno: Errno
    }
}
