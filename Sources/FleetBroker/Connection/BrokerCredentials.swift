/// The user name and password this gateway presents to the broker.
///
/// They come from a file, never from the configuration file itself (which operators share and paste), in this
/// form, one `key=value` per line:
///
/// ```
/// # fleetd's broker account (mode 0600 or 0400)
/// username=gateway-ward-3
/// password=s3cret with spaces inside
/// ```
///
/// - `username` is required, `password` optional; each may appear once; other keys are an error.
/// - Blank lines and lines starting with `#` are ignored. Spaces around the key and around the value are
///   trimmed, so a password cannot start or end with a space.
/// - The file must grant nothing to its group or others (any of mode 077): it is refused before being read,
///   as ssh refuses a private key. systemd's `LoadCredential=` gives the service such a file.
public struct BrokerCredentials: Sendable, Hashable, CustomStringConvertible {
    public let username: String
    public let password: String?

    public init(username: String, password: String?) {
        self.username = username
        self.password = password
    }

    /// Never shows the password, so a logged configuration cannot leak it.
    public var description: String { "BrokerCredentials(username: \(username), password: \(password == nil ? "none" : "<redacted>"))" }

    /// Parses the file's text; `path` only names the file in errors.
    public static func parse(_ text: String, path: String) throws(BrokerError) -> BrokerCredentials {
        var username: String?
        var password: String?
        // Split on any line end: "\r\n" is one Character in Swift, so splitting on "\n" alone would keep it whole.
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let lineNumber = index + 1
            guard let equals = line.firstIndex(of: "=") else {
                throw malformed(path, "line \(lineNumber) is not key=value")
            }
            let key = line[..<equals].trimmingSpaces()
            let value = String(line[line.index(after: equals)...].trimmingSpaces())
            switch key {
            case "username":
                guard username == nil else { throw malformed(path, "line \(lineNumber) repeats username") }
                guard !value.isEmpty else { throw malformed(path, "line \(lineNumber) has an empty username") }
                username = value
            case "password":
                guard password == nil else { throw malformed(path, "line \(lineNumber) repeats password") }
                password = value
            default:
                throw malformed(path, "line \(lineNumber) has the unknown key '\(key)' (expected username or password)")
            }
        }
        guard let username else { throw malformed(path, "it has no username= line") }
        return BrokerCredentials(username: username, password: password)
    }

    private static func malformed(_ path: String, _ what: String) -> BrokerError {
        BrokerError(.credentialsFileMalformed, "broker credentials file \(path): \(what)", path: path)
    }
}

extension StringProtocol {
    func trimmingSpaces() -> SubSequence {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
