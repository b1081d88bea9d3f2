import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted for one test, so the disk can really fill up.
public final class SmallFilesystem: @unchecked Sendable {
    // @unchecked: immutable after init.
    let directory: TemporaryDirectory
    public var path: String { directory.path }

    public init(size: String) throws {
        directory = try TemporaryDirectory(prefix: "fleet-fulldisk")
        let mount = try ChildProcess.run("mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", directory.path])
        guard mount.code == 0 else { throw TestKitError("mount -t tmpfs failed (\(mount.code)): \(mount.stderr)") }
    }

    deinit { _ = try? ChildProcess.run("umount", ["-l", directory.path]) }

    /// Whether this process may mount a tmpfs (root, or CAP_SYS_ADMIN): tried once.
    public static let isPermitted: Bool = (try? SmallFilesystem(size: "64k")) != nil

    /// Writes a file until the filesystem is full; returns its path.
    public func fill() throws -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw TestKitError("cannot create \(filler)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else { throw TestKitError("filling \(filler) stopped with errno \(errno), not ENOSPC") }
        // Single bytes use up the last partial page.
        var byte: UInt8 = 0
        while write(fd, &byte, 1) > 0 {}
        return filler
    }
}
