import FleetSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension BrokerCredentials {
    /// The largest credentials file read; anything longer is not a credentials file.
    static let maximumFileSize = 64 * 1024

    /// Reads and parses a credentials file, refusing it when its group or others have any permission on it, unless
    /// it is a systemd credential in `$CREDENTIALS_DIRECTORY` as systemd makes it (0440 through an ACL; see
    /// `ServiceCredentials`). The mode is taken from the opened descriptor, so the file checked is the file read.
    public static func load(from path: String) throws(BrokerError) -> BrokerCredentials {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw unreadable(path, errno: errno, doing: "cannot open") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw unreadable(path, errno: errno, doing: "cannot stat") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw BrokerError(.credentialsFileUnreadable, "broker credentials file \(path) is not a regular file", path: path)
        }
        let permissions = status.st_mode & 0o7777
        guard permissions & 0o077 == 0 || ServiceCredentials.isServiceCredential(descriptor: fd) else {
            throw BrokerError(.credentialsFileExposed,
                              "broker credentials file \(path) has mode \(String(permissions, radix: 8, uppercase: false).leftPadded(to: 4)),"
                              + " readable or writable beyond its owner; refused (chmod 600 \(path))", path: path)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(path, errno: errno, doing: "cannot read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= maximumFileSize else {
                throw BrokerError(.credentialsFileMalformed, "broker credentials file \(path) is larger than \(maximumFileSize) bytes", path: path)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BrokerError(.credentialsFileMalformed, "broker credentials file \(path) is not UTF-8 text", path: path)
        }
        return try parse(text, path: path)
    }

    private static func unreadable(_ path: String, errno code: Int32, doing what: String) -> BrokerError {
        BrokerError(.credentialsFileUnreadable, "\(what) the broker credentials file \(path)",
                    cause: .system(errno: code, text: String(cString: strerror(code))), path: path)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
