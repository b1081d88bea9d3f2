import Testing
#if canImport(FleetManager)
import FleetManager
#else
import FleetConfig
#endif

/// The file syntax behaves the way git-config taught admins to expect.
@Suite struct ConfigurationSyntaxTests {
    private func value(_ line: String) throws -> String? {
        let document = try ConfigDocument.parse("[daemon]\n" + line, file: "v.conf")
        return document.sections.first?.entries.first?.value
    }

    @Test func commentsAndBlanksAroundValues() throws {
        #expect(try value("snapshot =   /a/b c   # trailing comment") == "/a/b c")
        #expect(try value("snapshot = /a;b") == "/a")
        #expect(try value("snapshot = \"/a#b;c\" # quoted keeps # and ;") == "/a#b;c")
        #expect(try value("snapshot = \"  padded  \"") == "  padded  ")
        #expect(try value("snapshot = a\\\"b\\\\c\\td") == "a\"b\\c\td")
        #expect(try value("snapshot =") == "")
        #expect(try value("snapshot") == nil)
    }

    @Test func namesAreCaseInsensitiveButSubsectionsAreNot() throws {
        let config = try FleetConfiguration.parse("[Daemon]\nLog-Level = debug\n[POLICY \"normal\"]\nRetry-Budget = 4", file: "c.conf")
        #expect(config.logLevel == "debug")
        #expect(config.policy.normal.retryBudget == 4)
        #expect(throws: ConfigError.self) { try FleetConfiguration.parse("[policy \"Normal\"]", file: "c.conf") }
    }

    @Test func crlfTabsAndIndentationAreAccepted() throws {
        let config = try FleetConfiguration.parse("[daemon]\r\n\tlog-level\t=\tnotice\r\n  [adapters]\r\n  capacity = 9\r\n", file: "crlf.conf")
        #expect(config.logLevel == "notice")
        #expect(config.defaultCapacity == 9)
    }

    @Test func errorLinesCountEveryPhysicalLine() {
        do {
            _ = try FleetConfiguration.parse("# one\r\n\r\n[daemon]\r\n; four\r\nlog-level = x\r\n", file: "n.conf")
            Issue.record("accepted a bad log level")
        } catch {
            #expect(error.line == 5)
        }
    }

    @Test func aBareBooleanKeyMeansYes() throws {
        let config = try FleetConfiguration.parse("[daemon]\nleave-links-on-exit = no\n[scan]\nduplicate-data = yes", file: "b.conf")
        #expect(!config.leaveLinksOnExit)
        #expect(try FleetConfiguration.parse("[daemon]\nleave-links-on-exit", file: "b.conf").leaveLinksOnExit)
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("30", .seconds(30)), ("1.5s", .milliseconds(1500)),
        ("5min", .seconds(300)), ("1h", .seconds(3600)), ("2 h", .seconds(7200)), ("0", .zero), ("0.25", .milliseconds(250)),
        ("1.000000001s", .nanoseconds(1_000_000_001)), ("10sec", .seconds(10)), ("20msec", .milliseconds(20)),
    ])
    func durations(_ text: String, _ expected: Duration) throws {
        #expect(try FleetConfiguration.parse("[daemon]\neviction-hold-off = \(text)", file: "d.conf").evictionHoldOff == expected)
    }

    @Test(arguments: ["", "s", "1.", ".5s", "5m", "5 mins", "1e3", "-1s", "+1s", "1.0000000001s", "99999999999999999h", "0x10", "١s"])
    func notDurations(_ text: String) {
        #expect(throws: ConfigError.self) { try FleetConfiguration.parse("[daemon]\neviction-hold-off = \(text)", file: "d.conf") }
    }

    @Test(arguments: [("yes", true), ("No", false), ("TRUE", true), ("false", false), ("on", true), ("OFF", false), ("1", true), ("0", false)])
    func booleans(_ text: String, _ expected: Bool) throws {
        #expect(try FleetConfiguration.parse("[daemon]\nleave-links-on-exit = \(text)", file: "b.conf").leaveLinksOnExit == expected)
    }

    @Test func sectionNamesMayQuoteAndEscape() throws {
        let document = try ConfigDocument.parse(#"[identity "a \"quoted\" \\ name"]"#, file: "q.conf")
        #expect(document.sections.first?.name == #"a "quoted" \ name"#)
        #expect(document.sections.first?.header == #"[identity "a \"quoted\" \\ name"]"#)
    }
}
