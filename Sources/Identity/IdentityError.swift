/// The one error type of the Identity library: what was wrong with a piece of operator configuration,
/// a BlueZ-reported value or a registry snapshot, with a code for programs and a message for people.
public struct IdentityError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of input was rejected.
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// Address text is not `AA:BB:CC:DD:EE:FF`.
        case invalidAddress
        /// A D-Bus object path does not name a BlueZ device (`/org/bluez/hciN/dev_AA_BB_CC_DD_EE_FF`).
        case invalidDevicePath
        /// BlueZ's `AddressType` was neither `public` nor `random`.
        case unknownAddressType
        /// An identity resolving key is not exactly 16 bytes of hex.
        case invalidResolvingKey
        /// A key label is empty, too long or uses characters outside `[A-Za-z0-9._-]`.
        case invalidLabel
        /// Two resolving keys share one label, so their identities would collide.
        case duplicateLabel
        /// A byte range is empty, negative or longer than any advertisement can carry.
        case invalidByteRange
        /// An expected prefix/mask is malformed (bad hex, mask length differs, outside the payload).
        case invalidPattern
        /// A service UUID is neither a 16-bit, 32-bit nor 128-bit UUID.
        case invalidServiceUUID
        /// A stable identity id string does not follow any of the id formats.
        case invalidStableID
        /// A registry snapshot was written by a schema this version does not read.
        case unsupportedSchemaVersion
        /// libcrypto could not set up an AES context (allocation failure).
        case cryptoFailure
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
