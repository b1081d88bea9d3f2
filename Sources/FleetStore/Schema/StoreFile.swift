#if canImport(Glibc)
import Glibc
#endif

/// File-level operations on a store: moving an unusable one aside so fleetd can start from an empty store while
/// the old file is kept for an operator to inspect with `sqlite3`.
public enum StoreFile {
    /// Where a moved-aside store went.
    public struct MovedAside: Sendable, Equatable {
        /// The database's new path, `<path>.<label>-<UTC timestamp>`.
        public var path: String
        /// Every file moved: the database, and its `-wal` and `-shm` when they existed (renamed alongside as
        /// `<new path>-wal`, `<new path>-shm`, so `sqlite3 <new path>` still sees the committed WAL contents).
        public var files: [String]
    }

    /// A failed rename, with the errno.
    public struct MoveError: Error, Sendable, Equatable, CustomStringConvertible {
        public var from: String
        public var to: String
        public var errno: Int32
        public var description: String { "cannot move \(from) to \(to): \(String(cString: strerror(errno)))" }
    }

    /// Renames the database at `path` and its `-wal` and `-shm` files to `<path>.<label>-<timestamp>`
    /// (timestamp `YYYYMMDDTHHMMSSZ` of `wallSeconds`, with `-2`, `-3`… appended if that name is taken), then
    /// fsyncs the directory. Every connection to the file must be closed first.
    public static func moveAside(_ path: String, label: String = "corrupt",
                                 wallSeconds: Int = Int(StoreClock.wallNanoseconds() / 1_000_000_000)) throws(MoveError) -> MovedAside {
        let base = "\(path).\(label)-\(timestamp(wallSeconds))"
        var target = base
        var attempt = 1
        while exists(target) || exists(target + "-wal") {
            attempt += 1
            target = "\(base)-\(attempt)"
        }
        var moved: [String] = []
        // The database first: once it has moved, a stray -wal left behind can never be replayed into a new file
        // of the old name (SQLite ignores a WAL whose salt does not match the database).
        for suffix in ["", "-wal", "-shm"] where exists(path + suffix) {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw MoveError(from: path + suffix, to: target + suffix, errno: errno)
            }
            moved.append(target + suffix)
        }
        syncDirectory(of: path)
        return MovedAside(path: target, files: moved)
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func syncDirectory(of path: String) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    static func timestamp(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}
