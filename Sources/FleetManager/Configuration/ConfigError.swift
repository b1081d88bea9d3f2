/// Why fleetd refused a configuration file, pointing at the place to fix: the file, the line, the section
/// and the key, with a message for the operator and a code for programs (and tests).
///
/// `description` is the one-line form admins know from compilers and git:
/// `fleetd.conf:14: [policy "critical"] backoff-cap: "6O s" is not a duration`.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake it was.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The file could not be read (missing, no permission, not UTF-8).
        case unreadableFile
        /// A line is neither a section header, a `key = value` line, a comment nor blank.
        case syntax
        /// A section name fleetd does not know, or a known section with a missing or unexpected name.
        case unknownSection
        /// The same section (kind and name) appears twice.
        case duplicateSection
        /// A key the section does not have.
        case unknownKey
        /// A key given twice in one section (only `irk` may repeat).
        case duplicateKey
        /// A value that does not parse, or is out of range for its key.
        case invalidValue
        /// A section lacks a key it needs, or combines keys that exclude each other.
        case incompleteSection
        /// A `[device]` names an identity no configured rule can ever produce.
        case unreachableDevice
    }

    public var code: Code
    public var file: String
    /// 1-based; 0 when the error is about the file as a whole.
    public var line: Int
    /// The section as written, e.g. `[policy "critical"]`; nil outside any section.
    public var section: String?
    public var key: String?
    public var message: String

    public init(_ code: Code, file: String, line: Int, section: String? = nil, key: String? = nil, _ message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.section = section
        self.key = key
        self.message = message
    }

    public var description: String {
        var text = line > 0 ? "\(file):\(line): " : "\(file): "
        if let section { text += section + " " }
        if let key { text += key + ": " }
        return text + message
    }
}
