import FleetTestKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One message as `mosquitto_sub -F '%r %t %p'` printed it.
public struct SubscribedMessage: Sendable, Hashable {
    /// Whether the broker sent it as a retained message (only on subscription, under MQTT 3.1.1).
    public var retained: Bool
    public var topic: String
    public var payload: String
}

/// An independent subscriber: Debian's `mosquitto_sub` as a child process with a persistent session
/// (`-c`, QoS 1), so messages published while it is reconnecting after a broker restart are queued for it.
/// Its output file is parsed incrementally.
public final class MosquittoSubscriber: @unchecked Sendable {
    // @unchecked: the parse state is touched only by the one test task that owns the subscriber.
    public let broker: MosquittoBroker
    public let filter: String
    public let clientID: String
    private let process: ChildProcess
    private let outputPath: String
    private let authentication: [String]
    private var parsed: [SubscribedMessage] = []
    private var offset: UInt64 = 0
    private var partial: [UInt8] = []

    /// Starts `mosquitto_sub` on `filter` and returns once its subscription is active (a marker it was sent
    /// came back). `filter` must end in `/#`.
    public init(broker: MosquittoBroker, filter: String, clientID: String? = nil, username: String? = nil, password: String? = nil) async throws {
        self.broker = broker
        self.filter = filter
        self.clientID = clientID ?? "fleet-test-sub-\(UInt32.random(in: 0...UInt32.max))"
        outputPath = broker.directory.path + "/\(self.clientID).out"
        authentication = broker.clientArguments(username: username, password: password)
        process = try ChildProcess("/usr/bin/mosquitto_sub",
                                   authentication + ["-t", filter, "-q", "1", "-c", "-i", self.clientID, "-F", "%r %t %p"],
                                   stdout: outputPath, stderr: broker.directory.path + "/\(self.clientID).err")
        try await waitUntilSubscribed()
    }

    deinit { try? process.kill(signal: SIGKILL) }

    /// Publishes markers under the filter until one arrives: the subscription is in place.
    private func waitUntilSubscribed() async throws {
        guard filter.hasSuffix("/#") else { throw TestKitError("subscriber filter \(filter) must end in /#") }
        let marker = String(filter.dropLast(2)) + "/_marker/" + clientID
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw TestKitError("mosquitto_sub exited: \((try? String(contentsOfFile: broker.directory.path + "/\(clientID).err", encoding: .utf8)) ?? "")")
            }
            let arguments = authentication + ["-t", marker, "-m", "ready", "-q", "1"]
            _ = try await offPool { try ChildProcess.run("/usr/bin/mosquitto_pub", arguments, timeout: .seconds(30)) }
            do {
                try await waitFor("the marker \(marker)", timeout: .milliseconds(500)) { $0.contains { $0.topic == marker } }
                return
            } catch {
                continue
            }
        }
        throw TestKitError("mosquitto_sub never received its marker on \(marker)")
    }

    /// Everything received so far, in order (markers included).
    public func messages() -> [SubscribedMessage] {
        readNewOutput()
        return parsed
    }

    /// Waits until `condition` holds for the messages received so far.
    public func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping ([SubscribedMessage]) -> Bool) async throws {
        try await waitUntil(what, timeout: timeout) { condition(self.messages()) }
    }

    public func stop() {
        try? process.kill(signal: SIGKILL)
    }

    private func readNewOutput() {
        guard let handle = FileHandle(forReadingAtPath: outputPath) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.readToEnd(), !data.isEmpty else { return }
        offset += UInt64(data.count)
        partial += data
        guard let lastNewline = partial.lastIndex(of: UInt8(ascii: "\n")) else { return }
        let complete = partial[..<lastNewline]
        partial = Array(partial[(lastNewline + 1)...])
        for line in complete.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count >= 2 else { continue }
            parsed.append(SubscribedMessage(retained: fields[0].elementsEqual("1".utf8), topic: String(decoding: fields[1], as: UTF8.self),
                                            payload: fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""))
        }
    }

    /// The message retained on `topic` now, as a fresh subscriber sees it; nil when nothing is retained there.
    public static func retained(on topic: String, broker: MosquittoBroker, username: String? = nil, password: String? = nil) async throws -> SubscribedMessage? {
        let arguments = broker.clientArguments(username: username, password: password)
            + ["-t", topic, "-C", "1", "-W", "2", "-F", "%r %t %p", "--retained-only"]
        let result = try await offPool { try ChildProcess.run("/usr/bin/mosquitto_sub", arguments, timeout: .seconds(30)) }
        let line = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        let fields = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard result.code == 0, fields.count >= 2 else { return nil }
        return SubscribedMessage(retained: fields[0] == "1", topic: String(fields[1]), payload: fields.count > 2 ? String(fields[2]) : "")
    }
}
