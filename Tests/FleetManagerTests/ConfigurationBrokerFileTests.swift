import FleetManager
import Foundation
import Testing

/// `FleetConfiguration.load` checks the files `[mqtt]` names as fleetd would use them, and names the key.
@Suite struct ConfigurationBrokerFileTests {
    func withFiles(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-config-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    func write(_ text: String, to path: String, mode: Int) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func aCredentialsFileReadableByOthersIsRefusedNamingTheKey() throws {
        try withFiles { directory in
            let credentials = directory + "/broker.credentials"
            try write("username=ward-3\npassword=secret\n", to: credentials, mode: 0o644)
            let config = directory + "/fleetd.conf"
            try "[mqtt]\nhost = broker\ncredentials-file = \(credentials)\n".write(toFile: config, atomically: true, encoding: .utf8)
            do {
                _ = try FleetConfiguration.load(path: config)
                Issue.record("a world-readable credentials file was accepted")
            } catch let error as ConfigError {
                #expect(error.code == .invalidValue)
                #expect(error.line == 3)
                #expect(error.key == "credentials-file")
                #expect(error.message.contains("0644") && error.message.contains("chmod 600"), "\(error)")
                #expect(!error.description.contains("secret"))
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: credentials)
            #expect(try FleetConfiguration.load(path: config).broker?.credentialsFile == credentials)
        }
    }

    @Test func aMalformedOrMissingCredentialsFileNamesTheKey() throws {
        try withFiles { directory in
            let credentials = directory + "/broker.credentials"
            try write("user=ward-3\n", to: credentials, mode: 0o600)
            let config = directory + "/fleetd.conf"
            for (path, says) in [(credentials, "unknown key 'user'"), (directory + "/absent", "cannot open")] {
                try "[mqtt]\nhost = broker\ncredentials-file = \(path)\n".write(toFile: config, atomically: true, encoding: .utf8)
                #expect { _ = try FleetConfiguration.load(path: config) } throws: { error in
                    guard let error = error as? ConfigError else { return false }
                    return error.key == "credentials-file" && error.line == 3 && error.message.contains(says)
                }
            }
        }
    }

    @Test func anUnreadableTLSFileNamesItsKey() throws {
        try withFiles { directory in
            let config = directory + "/fleetd.conf"
            try "[mqtt]\nhost = broker\nca-file = \(directory)/no-such-ca.pem\n".write(toFile: config, atomically: true, encoding: .utf8)
            #expect { _ = try FleetConfiguration.load(path: config) } throws: { error in
                guard let error = error as? ConfigError else { return false }
                return error.key == "ca-file" && error.line == 3 && error.message.contains("no-such-ca.pem")
            }
        }
    }
}
