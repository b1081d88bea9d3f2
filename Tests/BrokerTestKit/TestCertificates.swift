import FleetTestKit
import Foundation

/// A throw-away CA, a server certificate for 127.0.0.1 and a client certificate, made with the `openssl` tool
/// (P-256 keys: quick to generate) in a temporary directory.
public struct TestCertificates: Sendable {
    public let directory: String
    public var caCertificate: String { directory + "/ca.crt" }
    public var serverCertificate: String { directory + "/server.crt" }
    public var serverKey: String { directory + "/server.key" }
    public var clientCertificate: String { directory + "/client.crt" }
    public var clientKey: String { directory + "/client.key" }

    /// Makes the files in `directory` (which must exist). `name` is a CA distinguished-name suffix, so two sets
    /// made in one test are different CAs.
    public static func make(in directory: String, name: String = "fleet-test") throws -> TestCertificates {
        let certificates = TestCertificates(directory: directory)
        func openssl(_ arguments: [String]) throws {
            let result = try ChildProcess.run("/usr/bin/openssl", arguments, timeout: .seconds(30))
            guard result.code == 0 else { throw TestKitError("openssl \(arguments.first ?? "") failed: \(result.stderr)") }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-keyout", directory + "/ca.key", "-out", certificates.caCertificate,
                                              "-days", "2", "-subj", "/CN=\(name)-ca"])
        let serverExtensions = directory + "/server.ext"
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: serverExtensions, atomically: true, encoding: .utf8)
        for (role, subject, extensions) in [("server", "/CN=127.0.0.1", Optional(serverExtensions)), ("client", "/CN=\(name)-gateway", nil)] {
            try openssl(["req"] + key + ["-keyout", directory + "/\(role).key", "-out", directory + "/\(role).csr", "-subj", subject])
            try openssl(["x509", "-req", "-in", directory + "/\(role).csr", "-CA", certificates.caCertificate,
                         "-CAkey", directory + "/ca.key", "-CAcreateserial", "-out", directory + "/\(role).crt", "-days", "2"]
                        + (extensions.map { ["-extfile", $0] } ?? []))
        }
        return certificates
    }
}
