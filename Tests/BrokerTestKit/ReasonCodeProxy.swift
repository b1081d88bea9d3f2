import FleetTestKit
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy in front of a ``MosquittoBroker`` that refuses chosen QoS 1 publishes with an MQTT 5 PUBACK reason
/// code of the test's choosing: such a PUBLISH is not passed on (the broker never sees it, as if it had refused
/// it) and the proxy answers it itself. Everything else is passed through untouched, whole packet by whole packet,
/// so an injected PUBACK never splits one of the broker's packets.
///
/// Mosquitto 2.0 can be made to send only some reason codes (0x87 through an ACL, 0x95 through
/// `message_size_limit`); quota exceeded, packet identifier in use and the unnamed errors need this.
/// Sessions that do not speak MQTT 5 are passed through as they are.
public final class ReasonCodeProxy: Sendable {
    /// What the proxy is asked about each QoS 1 PUBLISH of an MQTT 5 session.
    public struct Publish: Sendable {
        public let topic: String
        public let payload: [UInt8]
        /// 1 the first time this exact payload is published through the proxy, 2 the second time, …
        public let attempt: Int
    }

    /// The port clients connect to instead of the broker's (on 127.0.0.1).
    public var port: Int { core.port }
    private let core: ProxyCore

    /// `decide` returns the reason code to refuse a publish with, or nil to pass it on; it runs on the proxy's
    /// threads.
    public init(broker: MosquittoBroker, decide: @escaping @Sendable (Publish) -> UInt8?) throws {
        core = try ProxyCore(upstream: broker.port, decide: decide)
        Thread.detachNewThread { [core] in core.acceptLoop() }
    }

    /// Stops listening and cuts every connection.
    deinit { core.close() }

    /// Every refusal so far: the code and the topic, in order.
    public var refusals: [(code: UInt8, topic: String)] { core.refused.withLock { $0 } }
}

/// The proxy's listener, sessions and counts, shared with its threads (which outlive no ``ReasonCodeProxy``: its
/// deinit closes the listener and cuts the sessions, and each thread then ends).
final class ProxyCore: Sendable {
    let port: Int
    let upstream: Int
    private let listener: Int32
    private let decide: @Sendable (ReasonCodeProxy.Publish) -> UInt8?
    private let attempts = Mutex<[[UInt8]: Int]>([:])
    let refused = Mutex<[(code: UInt8, topic: String)]>([])
    private let sessions = Mutex<[ProxySession]>([])

    init(upstream: Int, decide: @escaping @Sendable (ReasonCodeProxy.Publish) -> UInt8?) throws {
        self.upstream = upstream
        self.decide = decide
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestKitError("socket failed: errno \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else {
            Glibc.close(fd)
            throw TestKitError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        for session in sessions.withLock({ list in defer { list = [] }; return list }) { session.cut() }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                Glibc.close(listener)
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else {
                Glibc.close(client)
                Glibc.close(server)
                continue
            }
            let session = ProxySession(client: client, server: server)
            sessions.withLock { $0.append(session) }
            Thread.detachNewThread { [self] in clientToServer(session) }
            Thread.detachNewThread { [self] in serverToClient(session) }
        }
    }

    private func clientToServer(_ session: ProxySession) {
        var mqtt5 = false
        session.forEachPacket(from: session.client) { packet in
            let type = packet.bytes[0] >> 4
            if type == 1 { mqtt5 = Self.protocolLevel(ofConnect: packet) == 5 }
            if mqtt5, type == 3, (packet.bytes[0] >> 1) & 0x03 == 1, let publish = Self.parsePublish(packet) {
                let attempt = attempts.withLock { counts -> Int in
                    counts[publish.payload, default: 0] += 1
                    return counts[publish.payload]!
                }
                if let code = decide(ReasonCodeProxy.Publish(topic: publish.topic, payload: publish.payload, attempt: attempt)) {
                    refused.withLock { $0.append((code, publish.topic)) }
                    // PUBACK: packet id, reason code, no properties (MQTT 5.0 §3.4).
                    return session.send([0x40, 0x04, UInt8(publish.packetID >> 8), UInt8(publish.packetID & 0xFF), code, 0x00], to: session.client)
                }
            }
            return session.send(packet.bytes, to: session.server)
        }
        session.finish()
    }

    private func serverToClient(_ session: ProxySession) {
        session.forEachPacket(from: session.server) { session.send($0.bytes, to: session.client) }
        session.finish()
    }

    /// CONNECT's variable header: the protocol name ("MQTT", length-prefixed), then the level (4: 3.1.1, 5: 5).
    private static func protocolLevel(ofConnect packet: MQTTPacket) -> UInt8? {
        let body = packet.body
        guard body.count >= 3 else { return nil }
        let nameLength = Int(body[body.startIndex]) << 8 | Int(body[body.startIndex + 1])
        let level = body.startIndex + 2 + nameLength
        return level < body.endIndex ? body[level] : nil
    }

    /// An MQTT 5 QoS 1 PUBLISH: topic, packet id, properties (skipped), payload.
    private static func parsePublish(_ packet: MQTTPacket) -> (topic: String, packetID: Int, payload: [UInt8])? {
        let body = Array(packet.body)
        guard body.count >= 2 else { return nil }
        let topicLength = Int(body[0]) << 8 | Int(body[1])
        var index = 2 + topicLength
        guard body.count >= index + 2 else { return nil }
        let topic = String(decoding: body[2..<index], as: UTF8.self)
        let packetID = Int(body[index]) << 8 | Int(body[index + 1])
        index += 2
        guard let (propertiesLength, width) = MQTTPacket.variableInteger(body, at: index) else { return nil }
        index += width + propertiesLength
        guard index <= body.count else { return nil }
        return (topic, packetID, Array(body[index...]))
    }
}

/// One MQTT control packet, whole: fixed header, remaining length, body.
struct MQTTPacket {
    let bytes: [UInt8]
    let headerLength: Int
    var body: ArraySlice<UInt8> { bytes[headerLength...] }

    /// MQTT's Variable Byte Integer (§1.5.5) at `index`: its value and how many bytes it took; nil when incomplete.
    static func variableInteger(_ bytes: [UInt8], at index: Int) -> (Int, Int)? {
        var value = 0, multiplier = 1, width = 0
        while true {
            guard index + width < bytes.count, width < 4 else { return nil }
            let byte = bytes[index + width]
            value += Int(byte & 0x7F) * multiplier
            multiplier *= 128
            width += 1
            if byte & 0x80 == 0 { return (value, width) }
        }
    }
}

/// The two sockets of one proxied connection; the client's is written by both directions, under a lock.
final class ProxySession: Sendable {
    let client: Int32
    let server: Int32
    private let writing = Mutex(())
    /// Directions that have ended (the second closes both sockets) and whether they are closed.
    private let ends = Mutex((ended: 0, closed: false))

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    /// Reads `fd` until it ends, calling `body` with each whole packet; stops when `body` returns false.
    func forEachPacket(from fd: Int32, _ body: (MQTTPacket) -> Bool) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            buffer += chunk[..<count]
            var start = 0
            while buffer.count - start >= 2, let (length, width) = MQTTPacket.variableInteger(buffer, at: start + 1) {
                let total = 1 + width + length
                guard buffer.count - start >= total else { break }
                let packet = MQTTPacket(bytes: Array(buffer[start..<(start + total)]), headerLength: 1 + width)
                start += total
                guard body(packet) else { return }
            }
            buffer.removeFirst(start)
        }
    }

    /// Writes all of `bytes`; false once the socket is gone. MSG_NOSIGNAL: a closed peer must not SIGPIPE the test.
    func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        writing.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Ends both directions (each thread then sees the end and calls ``finish()``).
    func cut() {
        ends.withLock { state in
            guard !state.closed else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }

    /// One direction has ended: cut the other, and close both sockets once both have ended.
    func finish() {
        ends.withLock { state in
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            state.ended += 1
            if state.ended == 2 {
                state.closed = true
                close(client)
                close(server)
            }
        }
    }
}
