/// Why a store file could not be opened. The first three mean the file itself is unusable: the caller moves it
/// aside (`StoreFile.moveAside`) and starts from an empty store; `unavailable` means it could not be reached
/// (permissions, a full disk, a lock held too long) and moving it would lose good data.
public enum StoreOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a database, or damaged pages (SQLITE_NOTADB, SQLITE_CORRUPT, or a failed quick_check).
    case corrupt(path: String, SQLiteError)
    /// Written by a newer fleetd: its schema version is above what this build knows.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// A valid SQLite database that belongs to another application (its application_id is not fleetd's).
    case foreign(path: String, applicationID: Int32)
    /// The file could not be opened, read or migrated for a reason other than its contents.
    case unavailable(path: String, SQLiteError)

    /// True when the file's contents are the problem, so moving it aside and starting empty is the remedy.
    public var fileIsUnusable: Bool {
        switch self {
        case .corrupt, .newerSchema, .foreign: return true
        case .unavailable: return false
        }
    }

    public var path: String {
        switch self {
        case .corrupt(let path, _), .newerSchema(let path, _, _), .foreign(let path, _), .unavailable(let path, _): return path
        }
    }

    public var description: String {
        switch self {
        case .corrupt(let path, let error): return "\(path): the store is corrupt: \(error)"
        case .newerSchema(let path, let found, let supported):
            return "\(path): schema version \(found) is newer than this fleetd understands (\(supported))"
        case .foreign(let path, let id):
            return "\(path): not a fleetd store (application_id \(id), expected \(StoreSchema.applicationID))"
        case .unavailable(let path, let error): return "\(path): the store cannot be opened: \(error)"
        }
    }
}
