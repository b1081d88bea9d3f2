@testable import FleetPlatform
import Testing

/// The connection's local filter: which received signals a rule routes to its subscriber. It runs for every
/// rule on every signal, so it checks the cheap fields first (issue 18); these say what it must still decide.
@Suite struct DBusMatchRuleMatchingTests {
    private func signal(path: String = "/org/bluez/hci0/dev_AA", interface: String = "org.freedesktop.DBus.Properties",
                        member: String = "PropertiesChanged", sender: String = ":1.5",
                        body: [DBusValue] = [.string("org.bluez.Device1")]) -> DBusMessage {
        DBusMessage(kind: .signal, path: path, interface: interface, member: member, sender: sender, body: body)
    }

    @Test func aPathNamespaceHoldsItselfAndWhatIsBelowItButNotALongerName() {
        let rule = DBusMatchRule(pathNamespace: "/org/bluez/hci0")
        #expect(rule.matches(signal(path: "/org/bluez/hci0"), owners: [:]))
        #expect(rule.matches(signal(path: "/org/bluez/hci0/dev_AA"), owners: [:]))
        #expect(!rule.matches(signal(path: "/org/bluez/hci01"), owners: [:]))
        #expect(!rule.matches(signal(path: "/org/bluez/hci01/dev_AA"), owners: [:]))
        #expect(!rule.matches(signal(path: "/org/bluez"), owners: [:]))
        #expect(DBusMatchRule(pathNamespace: "/").matches(signal(path: "/anything"), owners: [:]))
    }

    @Test func aWellKnownSenderMatchesOnlyItsCurrentOwner() {
        let rule = DBusMatchRule.propertiesChanged(sender: "org.bluez")
        #expect(rule.matches(signal(sender: ":1.5"), owners: ["org.bluez": ":1.5"]))
        #expect(!rule.matches(signal(sender: ":1.6"), owners: ["org.bluez": ":1.5"]))
        // Followed, but nobody owns the name now; or not followed at all.
        #expect(!rule.matches(signal(sender: ":1.5"), owners: ["org.bluez": ""]))
        #expect(!rule.matches(signal(sender: ":1.5"), owners: [:]))
    }

    @Test func aUniqueSenderAndTheBusItselfMatchByName() {
        #expect(DBusMatchRule(sender: ":1.7").matches(signal(sender: ":1.7"), owners: [:]))
        #expect(!DBusMatchRule(sender: ":1.7").matches(signal(sender: ":1.70"), owners: [:]))
        let bus = DBusMatchRule(sender: "org.freedesktop.DBus", member: "NameOwnerChanged")
        #expect(bus.matches(signal(member: "NameOwnerChanged", sender: "org.freedesktop.DBus"), owners: [:]))
        #expect(!bus.matches(signal(member: "NameOwnerChanged", sender: ":1.5"), owners: [:]))
    }

    @Test func eachFieldOfTheRuleMustMatch() {
        let rule = DBusMatchRule(sender: "org.bluez", path: "/org/bluez/hci0/dev_AA", interface: "org.freedesktop.DBus.Properties",
                                 member: "PropertiesChanged", arg0: "org.bluez.Device1")
        let owners = ["org.bluez": ":1.5"]
        #expect(rule.matches(signal(), owners: owners))
        #expect(!rule.matches(signal(path: "/org/bluez/hci0/dev_AB"), owners: owners))
        #expect(!rule.matches(signal(interface: "org.freedesktop.DBus.ObjectManager"), owners: owners))
        #expect(!rule.matches(signal(member: "InterfacesAdded"), owners: owners))
        #expect(!rule.matches(signal(body: [.string("org.bluez.Adapter1")]), owners: owners))
        #expect(!rule.matches(signal(body: [.objectPath("org.bluez.Device1")]), owners: owners))
        #expect(!rule.matches(signal(body: []), owners: owners))
        var call = signal()
        call.kind = .methodCall
        #expect(!rule.matches(call, owners: owners))
    }
}
