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
            try "[mqtt]\nhost = 127.0.0.1\ncredentials-file = \(credentials)\nallow-plaintext-password = yes\n".write(toFile: config, atomically: true, encoding: .utf8)
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
                try "[mqtt]\nhost = 127.0.0.1\ncredentials-file = \(path)\nallow-plaintext-password = yes\n".write(toFile: config, atomically: true, encoding: .utf8)
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

    /// Issue 41: without `ca-file` the password crosses the network in clear.
    @Test func aPasswordWithoutTLSIsRefusedNamingTheKeyAndWhatToDo() throws {
        let text = "[mqtt]\nhost = broker.example\ncredentials-file = /etc/fleetd/broker.credentials\n"
        #expect { _ = try FleetConfiguration.parse(text, file: "fleetd.conf") } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key == "credentials-file" && error.line == 3 && error.message.contains("in clear")
                && error.message.contains("ca-file") && error.message.contains("allow-plaintext-password = yes")
        }
    }

    @Test(arguments: ["127.0.0.1", "::1", "localhost"])
    func plaintextIsAllowedForALoopbackBrokerOnly(host: String) throws {
        let text = "[mqtt]\nhost = \(host)\ncredentials-file = /etc/fleetd/broker.credentials\nallow-plaintext-password = yes\n"
        let broker = try #require(try FleetConfiguration.parse(text, file: "fleetd.conf").broker)
        #expect(broker.allowPlaintextPassword && broker.brokerConfiguration(hostName: "gw").allowPlaintextPassword)
    }

    @Test func plaintextForAnotherBrokerIsRefusedNamingTheKey() throws {
        let text = "[mqtt]\nhost = 192.0.2.10\ncredentials-file = /etc/fleetd/broker.credentials\nallow-plaintext-password = yes\n"
        #expect { _ = try FleetConfiguration.parse(text, file: "fleetd.conf") } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return error.key == "allow-plaintext-password" && error.line == 4 && error.message.contains("192.0.2.10")
                && error.message.contains("loopback") && error.message.contains("ca-file")
        }
        let withTLS = "[mqtt]\nhost = 192.0.2.10\nca-file = /etc/fleetd/ca.pem\ncredentials-file = /etc/fleetd/broker.credentials\n"
        #expect(try FleetConfiguration.parse(withTLS, file: "fleetd.conf").broker?.credentialsFile != nil, "over TLS nothing is needed")
    }

    @Test func aKeyFileReadableByOthersIsRefusedNamingTheKey() throws {
        try withFiles { directory in
            let key = directory + "/ward-3.key", certificate = directory + "/ward-3.pem", ca = directory + "/ca.pem"
            try write("-----BEGIN PRIVATE KEY-----\n", to: key, mode: 0o640)
            try write("-----BEGIN CERTIFICATE-----\n", to: certificate, mode: 0o644)
            try write("-----BEGIN CERTIFICATE-----\n", to: ca, mode: 0o644)
            let config = directory + "/fleetd.conf"
            try "[mqtt]\nhost = broker\nca-file = \(ca)\ncert-file = \(certificate)\nkey-file = \(key)\n".write(toFile: config, atomically: true, encoding: .utf8)
            #expect { _ = try FleetConfiguration.load(path: config) } throws: { error in
                guard let error = error as? ConfigError else { return false }
                return error.key == "key-file" && error.line == 5 && error.message.contains("0640") && error.message.contains("chmod 600")
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
            #expect(try FleetConfiguration.load(path: config).broker?.keyFile == key)
        }
    }
}
