/// A signal match rule: both the text sent to the bus with AddMatch and the local filter that routes a
/// received signal to the subscriber's stream (the bus delivers the union of every rule on the connection).
public struct DBusMatchRule: Sendable, Hashable {
    /// A well-known name (`org.bluez`) is followed to its current unique owner.
    public var sender: String?
    public var path: String?
    public var pathNamespace: String?
    public var interface: String?
    public var member: String?
    /// The first argument, when it is a string (e.g. the interface name of PropertiesChanged).
    public var arg0: String?

    public init(sender: String? = nil, path: String? = nil, pathNamespace: String? = nil, interface: String? = nil,
                member: String? = nil, arg0: String? = nil) {
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule in the bus's text syntax.
    public var text: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            // A quote closes the value, is written escaped (\'), and the value reopens.
            var quoted = String.UnicodeScalarView()
            for scalar in value.unicodeScalars {
                if scalar == "'" { quoted.append(contentsOf: #"'\''"#.unicodeScalars) } else { quoted.append(scalar) }
            }
            parts.append("\(key)='\(String(quoted))'")
        }
        add("sender", sender)
        add("path", path)
        add("path_namespace", pathNamespace == "/" ? nil : pathNamespace)
        add("interface", interface)
        add("member", member)
        add("arg0", arg0)
        return parts.joined(separator: ",")
    }

    /// Whether a received signal matches; `owners` holds the current unique name behind each followed
    /// well-known `sender`. The fields are checked cheapest first, and the owner is looked up (a hash of the
    /// name) only when every other field matched: this runs for every rule on every signal (issue 18).
    func matches(_ message: DBusMessage, owners: [String: String]) -> Bool {
        guard message.kind == .signal else { return false }
        if let member, message.member != member { return false }
        if let interface, message.interface != interface { return false }
        if let path, message.path != path { return false }
        if let pathNamespace, pathNamespace != "/" {
            // The namespace itself, or below it: the next byte after it is a slash (no string built per signal).
            guard let p = message.path, p.hasPrefix(pathNamespace),
                  p.utf8.count == pathNamespace.utf8.count || p.utf8.dropFirst(pathNamespace.utf8.count).first == UInt8(ascii: "/")
            else { return false }
        }
        if let arg0 {
            guard case .string(let first)? = message.body.first, first == arg0 else { return false }
        }
        if let sender {
            if sender.hasPrefix(":") || sender == "org.freedesktop.DBus" {
                guard message.sender == sender else { return false }
            } else {
                guard let owner = owners[sender], message.sender == owner else { return false }
            }
        }
        return true
    }

    /// The common BlueZ subscriptions.
    public static func propertiesChanged(sender: String, pathNamespace: String? = nil) -> DBusMatchRule {
        DBusMatchRule(sender: sender, pathNamespace: pathNamespace, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
    }

    public static func objectManager(sender: String) -> DBusMatchRule {
        DBusMatchRule(sender: sender, interface: "org.freedesktop.DBus.ObjectManager")
    }
}
