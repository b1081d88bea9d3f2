import FleetPlatform
import Foundation
import Testing

@Suite struct DBusMatchRuleTextTests {
    @Test func aQuoteInAValueClosesEscapesAndReopensAsReplacingOccurrencesDid() {
        let arg0 = "it's 'q' é\u{301}'"
        let rule = DBusMatchRule(sender: "org.bluez", path: "/org/bluez/hci0", interface: "org.freedesktop.DBus.Properties",
                                 member: "PropertiesChanged", arg0: arg0)
        let quoted = arg0.replacingOccurrences(of: "'", with: "'\\''")
        #expect(rule.text == "type='signal',sender='org.bluez',path='/org/bluez/hci0',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='\(quoted)'")
    }

    /// NSString's search saw a quote followed by a combining mark as another character and left it bare, which
    /// closed the value early; every quote scalar is escaped now.
    @Test func aQuoteBeforeACombiningMarkIsEscapedToo() {
        #expect(DBusMatchRule(arg0: "a'\u{301}b").text == "type='signal',arg0='a'\\''\u{301}b'")
    }
}
