import FleetPlatform
import Foundation
import Testing

/// stderr is often a terminal: a device name from an advert must not reach it raw (issue 41, point 13).
@Suite struct StderrLogHandlerTests {
    /// What the handler wrote for `record`, read back through a socket pair.
    static func written(_ record: LogRecord) throws -> String {
        // Close-on-exec from the start (SOCK_CLOEXEC; Swift's Glibc hides pipe2): with pipe(2) a child another test
        // spawned meanwhile inherited the write end, so the read below never saw the end while that child lived —
        // and, holding a thread of the two-thread cooperative pool beside a test that holds the other on purpose
        // (SupervisorStatusTests.answersWhileActorBusy), it hung make test (gdb: both pool threads there).
        var ends: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        defer { close(ends[0]) }
        StderrLogHandler(descriptor: ends[1]).log(record)
        close(ends[1])
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(ends[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aDeviceNameWithControlCharactersIsEscapedInTheLogLine() throws {
        let evil = "evil\u{1b}[2J\nname"
        let line = try Self.written(LogRecord(level: .info, message: "device \(evil) appeared", metadata: ["name": evil], label: "fleetd"))
        #expect(!line.contains("\u{1b}"), "\(line.debugDescription)")
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false, "one line: \(line.debugDescription)")
        #expect(line.contains(#"device evil\x1b[2J\x0aname appeared"#), "\(line.debugDescription)")
        #expect(line.contains(#"[name=evil\x1b[2J\x0aname]"#), "\(line.debugDescription)")
    }

    @Test func plainTextIsWrittenAsItIs() throws {
        let line = try Self.written(LogRecord(level: .notice, message: "connected Küche 🛁 lamp", metadata: ["adapter": "hci0"], label: "fleetd"))
        #expect(line.contains("notice fleetd: connected Küche 🛁 lamp [adapter=hci0]\n"), "\(line.debugDescription)")
    }
}
