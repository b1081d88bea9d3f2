@testable import FleetManager
import FleetSystem
import FleetTestKit
import Foundation
import Testing

@Suite("AtomicFile keeps the errno of the step that failed")
struct AtomicFileTests {
    @Test("the new contents replace the old with the asked mode, whatever the umask")
    func replaces() throws {
        let dir = try TemporaryDirectory(prefix: "fleet-atomic")
        let path = dir.path + "/metrics.prom"
        try AtomicFile.replace(path, with: Data("old\n".utf8), mode: 0o600)
        try AtomicFile.replace(path, with: Data("new\n".utf8), mode: 0o644)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test("a missing directory fails the create step with ENOENT")
    func missingDirectory() throws {
        let dir = try TemporaryDirectory(prefix: "fleet-atomic")
        do {
            try AtomicFile.replace(dir.path + "/absent/snapshot.json", with: Data(), mode: 0o600)
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect(error.step == .create)
            #expect(error.errno == .noSuchFileOrDirectory)
            #expect(error.message == "\(dir.path)/absent/snapshot.json.tmp: create: No such file or directory (ENOENT)")
        }
    }

    @Test("a directory in the file's place fails the rename with EISDIR and leaves no temporary behind")
    func renameOntoDirectory() throws {
        let dir = try TemporaryDirectory(prefix: "fleet-atomic")
        let path = dir.path + "/snapshot.json"
        try FileManager.default.createDirectory(atPath: path + "/occupied", withIntermediateDirectories: true)
        do {
            try AtomicFile.replace(path, with: Data("{}".utf8), mode: 0o600)
            Issue.record("renaming over a directory succeeded")
        } catch {
            #expect(error.step == .rename)
            #expect(error.errno == .isDirectory)
        }
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }
}
