import FoundationEssentials
import Supervision
#if canImport(Glibc)
import Glibc
#endif

/// The JSON state snapshot of a fleetd from before the SQLite store: read once, for the import into the store
/// (`FleetStateStore.open`), and written only by StoreBench, for its side-by-side figures. It wrote atomically
/// (temporary file, fsync, previous good copy as `<path>.prev`, rename, directory fsync); a corrupt or
/// newer-version file is reported and the previous good copy used; the bad file is moved aside, never wiped.
public struct SnapshotStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public var previousPath: String { path + ".prev" }

    /// What loading found.
    public enum LoadResult: Sendable {
        case none
        case loaded(FleetSnapshot, from: String)
        /// The main file was rejected (reason); the snapshot (if any) came from the previous copy.
        case recovered(FleetSnapshot?, rejected: String, reason: String, keptAs: String?)
    }

    public func load() -> LoadResult {
        guard FileManager.default.fileExists(atPath: path) || FileManager.default.fileExists(atPath: previousPath) else { return .none }
        let main = decode(path)
        if case .success(let snapshot) = main { return .loaded(snapshot, from: path) }
        let reason: String
        switch main {
        case .failure(let error): reason = error.message
        case .success: reason = ""
        }
        var keptAs: String?
        if FileManager.default.fileExists(atPath: path) {
            let aside = path + ".rejected-\(Int(Date().timeIntervalSince1970))"
            if rename(path, aside) == 0 { keptAs = aside }
        }
        if case .success(let previous) = decode(previousPath) {
            return .recovered(previous, rejected: path, reason: reason, keptAs: keptAs)
        }
        return .recovered(nil, rejected: path, reason: reason, keptAs: keptAs)
    }

    /// Why a snapshot file could not be used.
    public struct SnapshotError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    func decode(_ file: String) -> Result<FleetSnapshot, SnapshotError> {
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(SnapshotError(message: "\(file): cannot be read"))
        }
        struct Version: Decodable { var schemaVersion: Int }
        guard let version = try? JSONDecoder().decode(Version.self, from: data) else {
            return .failure(SnapshotError(message: "\(file): not a fleetd snapshot (truncated or corrupt JSON, \(data.count) bytes)"))
        }
        guard version.schemaVersion <= FleetSnapshot.currentSchemaVersion else {
            return .failure(SnapshotError(message: "\(file): schema version \(version.schemaVersion) is newer than this fleetd understands (\(FleetSnapshot.currentSchemaVersion))"))
        }
        do {
            return .success(try JSONDecoder().decode(FleetSnapshot.self, from: data))
        } catch {
            return .failure(SnapshotError(message: "\(file): invalid snapshot: \(error)"))
        }
    }

    /// Writes the snapshot durably; returns the bytes written.
    @discardableResult
    public func write(_ snapshot: FleetSnapshot) throws(SnapshotError) -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(snapshot) } catch { throw SnapshotError(message: "cannot encode snapshot: \(error)") }
        let directory = AtomicFile.directory(of: path)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            try AtomicFile.replace(path, with: data, mode: 0o600) {
                // The new copy is on disk: the current one becomes the previous good copy.
                if access(path, F_OK) == 0 {
                    unlink(previousPath)
                    _ = link(path, previousPath)
                }
            }
        } catch {
            throw SnapshotError(message: error.message)
        }
        return data.count
    }
}
