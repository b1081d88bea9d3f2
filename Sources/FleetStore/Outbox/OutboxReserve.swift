#if canImport(Glibc)
import Glibc
#endif

/// Space the outbox keeps for itself on the store's file system (`<path>-reserve`, a file of `bytes`), given up
/// when a commit fails for lack of space (issue 41, point 15).
///
/// On a disk that is 100 % full even the deletion that would make room cannot commit: a WAL transaction appends
/// frames, and a checkpoint may have to grow the database file by the pages the WAL holds. Releasing the reserve
/// gives retention's own transaction and the checkpoint the room they need; after it the oldest readings' pages
/// are free inside the file and new readings reuse them without growing it. The reserve is made again once the
/// file system has twice its size free, so it never takes the last free space from the readings.
final class OutboxReserve {
    let path: String
    let bytes: Int

    init(databasePath: String, bytes: Int) {
        path = databasePath + "-reserve"
        self.bytes = bytes
    }

    var isHeld: Bool {
        var status = stat()
        return stat(path, &status) == 0 && Int(status.st_size) >= bytes
    }

    /// Makes the reserve if it is missing and the file system can spare it; true when it is held afterwards.
    @discardableResult
    func make() -> Bool {
        guard bytes > 0 else { return false }
        if isHeld { return true }
        guard freeBytes().map({ $0 >= 2 * bytes }) ?? false else { return false }
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // posix_fallocate allocates the blocks (a sparse file would reserve nothing).
        guard posix_fallocate(fd, 0, off_t(bytes)) == 0 else {
            unlink(path)
            return false
        }
        fsync(fd)
        return true
    }

    /// Gives the space back to the file system; true when there was a reserve to release.
    func release() -> Bool {
        guard isHeld else { return false }
        return unlink(path) == 0
    }

    private func freeBytes() -> Int? {
        var info = statvfs()
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard statvfs(directory.isEmpty ? "/" : directory, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
