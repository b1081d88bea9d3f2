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

    /// Whether a received signal matches; `owner` is the current unique name behind a well-known `sender`.
    func matches(_ message: DBusMessage, owner: String?) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender {
            if sender.hasPrefix(":") || sender == "org.freedesktop.DBus" {
                guard message.sender == sender || (sender == "org.freedesktop.DBus" && message.sender == sender) else { return false }
            } else {
                guard let owner, message.sender == owner else { return false }
            }
        }
        if let path, message.path != path { return false }
        if let pathNamespace, pathNamespace != "/" {
            guard let p = message.path, p == pathNamespace || p.hasPrefix(pathNamespace + "/") else { return false }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let arg0 {
            guard case .string(let first)? = message.body.first, first == arg0 else { return false }
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
