import FleetBroker
import FleetTestKit
import Foundation
import Policy
import Testing

@Suite struct BrokerConfigurationTests {
    func configuration(_ change: (inout BrokerConfiguration) -> Void = { _ in }) -> BrokerConfiguration {
        var configuration = BrokerConfiguration(host: "broker.example", gatewayID: "ward-3")
        change(&configuration)
        return configuration
    }

    func error(_ change: (inout BrokerConfiguration) -> Void) -> BrokerError? {
        #expect(throws: BrokerError.self) { try configuration(change).validated() }
    }

    @Test func defaultsAreValid() throws {
        let valid = try configuration().validated()
        #expect(valid.port == 1883 && valid.topicPrefix == "fleetd" && valid.protocolVersion == .mqtt311)
    }

    @Test func namesTheValueThatIsWrong() throws {
        #expect(error { $0.port = 0 }?.message.contains("port 0") == true)
        #expect(error { $0.port = 70_000 }?.kind == .invalidConfiguration)
        #expect(error { $0.host = "" }?.kind == .invalidConfiguration)
        #expect(error { $0.keepAlive = .seconds(3) }?.message.contains("keep-alive") == true)
        #expect(error { $0.keepAlive = .milliseconds(5500) }?.kind == .invalidConfiguration)
        #expect(error { $0.maxInFlight = 0 }?.message.contains("max in flight") == true)
        #expect(error { $0.gatewayID = "a/b" }?.kind == .invalidTopicSegment)
        #expect(error { $0.topicPrefix = "$SYS" }?.kind == .invalidTopicSegment)
        #expect(error { $0.backoff = BackoffConfiguration(base: .seconds(2), cap: .seconds(1)) }?.message.contains("backoff") == true)
        #expect(try configuration { $0.keepAlive = .zero }.validated().keepAlive == .zero)
    }

    @Test func tlsFilesMustBeReadableAndPaired() throws {
        let missing = error { $0.tls = BrokerTLS(caFile: "/nonexistent/ca.crt") }
        #expect(missing?.kind == .tlsFileUnreadable)
        #expect(missing?.path == "/nonexistent/ca.crt")
        #expect(missing?.description.contains("No such file") == true)
        let unpaired = error { $0.tls = BrokerTLS(caFile: "/etc/hostname", certificateFile: "/etc/hostname") }
        #expect(unpaired?.kind == .invalidConfiguration)
    }
}

@Suite struct BrokerCredentialsTests {
    @Test func parsesTheDocumentedForm() throws {
        let credentials = try BrokerCredentials.parse("# account\n\nusername = gw-3 \npassword=s3cret with spaces\r\n", path: "f")
        #expect(credentials.username == "gw-3")
        #expect(credentials.password == "s3cret with spaces")
        #expect(!credentials.description.contains("s3cret"))
        #expect(try BrokerCredentials.parse("username=only", path: "f").password == nil)
    }

    @Test(arguments: ["password=x", "username=a\nusername=b", "username=a\nuser=b", "username", "username=\npassword=x", "username=a\npassword=1\npassword=2"])
    func refusesMalformedFiles(_ text: String) {
        let error = #expect(throws: BrokerError.self) { try BrokerCredentials.parse(text, path: "/etc/fleetd/broker.credentials") }
        #expect(error?.kind == .credentialsFileMalformed)
        #expect(error?.message.contains("/etc/fleetd/broker.credentials") == true)
    }

    func file(mode: mode_t, _ text: String = "username=gw\npassword=pw\n") throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-credentials")
        let path = directory.path + "/credentials"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
        return (directory, path)
    }

    @Test func readsAFileOnlyItsOwnerCanRead() throws {
        for mode: mode_t in [0o600, 0o400] {
            let (directory, path) = try file(mode: mode)
            #expect(try BrokerCredentials.load(from: path) == BrokerCredentials(username: "gw", password: "pw"))
            _ = directory
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o602] as [mode_t])
    func refusesAFileOthersCanReadOrWrite(mode: mode_t) throws {
        let (directory, path) = try file(mode: mode)
        let error = #expect(throws: BrokerError.self) { try BrokerCredentials.load(from: path) }
        #expect(error?.kind == .credentialsFileExposed)
        #expect(error?.path == path)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains(String(mode, radix: 8)) == true)
        _ = directory
    }

    @Test func aConnectionWithAnExposedCredentialsFileIsRefusedBeforeConnecting() throws {
        let (directory, path) = try file(mode: 0o644)
        var configuration = BrokerConfiguration(host: "127.0.0.1", gatewayID: "gw", allowPlaintextPassword: true)
        configuration.credentialsFile = path
        let error = #expect(throws: BrokerError.self) { try BrokerConnection(configuration) }
        #expect(error?.kind == .credentialsFileExposed)
        #expect(error?.message.contains(path) == true)
        let absent = #expect(throws: BrokerError.self) { try BrokerCredentials.load(from: directory.path + "/none") }
        #expect(absent?.kind == .credentialsFileUnreadable)
        #expect(absent?.cause?.code == ENOENT)
    }
}

/// Issue 41: a password must not cross the network in clear, and the TLS client key is a secret like it.
@Suite struct BrokerSecretsTests {
    func privateFile(_ directory: TemporaryDirectory, _ name: String, mode: mode_t, _ text: String = "username=gw\npassword=pw\n") throws -> String {
        let path = directory.path + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func credentialsWithoutTLSAreRefusedNamingWhatToDo() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        let credentials = try privateFile(directory, "credentials", mode: 0o600)
        for host in ["broker.example", "127.0.0.1"] {
            var configuration = BrokerConfiguration(host: host, gatewayID: "gw")
            configuration.credentialsFile = credentials
            let error = #expect(throws: BrokerError.self) { try configuration.validated() }
            #expect(error?.kind == .invalidConfiguration)
            #expect(error?.message.contains("in clear") == true && error?.message.contains("ca-file") == true
                    && error?.message.contains("allow-plaintext-password = yes") == true, "\(String(describing: error))")
        }
    }

    @Test(arguments: ["127.0.0.1", "127.1.2.3", "::1", "localhost", "LocalHost", "localhost."])
    func plaintextIsAllowedForALoopbackBrokerWhenAskedFor(host: String) throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        var configuration = BrokerConfiguration(host: host, gatewayID: "gw")
        configuration.credentialsFile = try privateFile(directory, "credentials", mode: 0o600)
        configuration.allowPlaintextPassword = true
        #expect(try configuration.validated().allowPlaintextPassword)
    }

    @Test(arguments: ["broker.example", "10.0.0.1", "128.0.0.1", "::2", "localhost.example", "127.0.0.1.example", "0.0.0.0"])
    func plaintextIsRefusedForAnyOtherBrokerEvenWhenAskedFor(host: String) throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        var configuration = BrokerConfiguration(host: host, gatewayID: "gw")
        configuration.credentialsFile = try privateFile(directory, "credentials", mode: 0o600)
        configuration.allowPlaintextPassword = true
        let error = #expect(throws: BrokerError.self) { try configuration.validated() }
        #expect(error?.message.contains(host) == true && error?.message.contains("loopback") == true, "\(String(describing: error))")
    }

    @Test func credentialsOverTLSNeedNoPermission() throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        var configuration = BrokerConfiguration(host: "broker.example", gatewayID: "gw", tls: BrokerTLS(caFile: "/etc/hostname"))
        configuration.credentialsFile = try privateFile(directory, "credentials", mode: 0o600)
        #expect(try configuration.validated().credentialsFile != nil)
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o602] as [mode_t])
    func aKeyFileOthersCanReadOrWriteIsRefused(mode: mode_t) throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        let key = try privateFile(directory, "client.key", mode: mode, "-----BEGIN PRIVATE KEY-----\n")
        let tls = BrokerTLS(caFile: "/etc/hostname", certificateFile: "/etc/hostname", keyFile: key)
        let error = #expect(throws: BrokerError.self) { try BrokerConfiguration(host: "broker.example", gatewayID: "gw", tls: tls).validated() }
        #expect(error?.path == key)
        #expect(error?.message.contains(key) == true && error?.message.contains(String(mode, radix: 8)) == true
                && error?.message.contains("chmod 600") == true, "\(String(describing: error))")
        let connection = #expect(throws: BrokerError.self) { try BrokerConnection(BrokerConfiguration(host: "broker.example", gatewayID: "gw", tls: tls)) }
        #expect(connection?.path == key, "refused before any connection")
    }

    @Test(arguments: [0o600, 0o400] as [mode_t])
    func aKeyFileOnlyItsOwnerCanReadIsAccepted(mode: mode_t) throws {
        let directory = try TemporaryDirectory(prefix: "fleet-broker-secrets")
        let key = try privateFile(directory, "client.key", mode: mode, "-----BEGIN PRIVATE KEY-----\n")
        let tls = BrokerTLS(caFile: "/etc/hostname", certificateFile: "/etc/hostname", keyFile: key)
        #expect(try BrokerConfiguration(host: "broker.example", gatewayID: "gw", tls: tls).validated().tls?.keyFile == key)
    }
}

@Suite struct LoopbackHostTests {
    @Test(arguments: ["localhost", "LOCALHOST", "localhost.", "127.0.0.1", "127.0.0.53", "127.255.255.255", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"])
    func loopback(host: String) { #expect(BrokerConfiguration.isLoopback(host: host)) }

    @Test(arguments: ["broker", "localhost.localdomain", "my-localhost", "126.255.255.255", "128.0.0.1", "0.0.0.0", "::", "::2",
                      "::ffff:10.0.0.1", "fe80::1", "127.1", "", " 127.0.0.1"])
    func notLoopback(host: String) { #expect(!BrokerConfiguration.isLoopback(host: host)) }
}
