// The only soak file that speaks fleetd's control protocol (FleetProtocol, FleetCLI's client): the device list and the Watch stream.
import FleetCLI
import FleetProtocol
import Foundation
import Synchronization

/// One device as fleetd's ListDevices reports it, reduced to what the invariants read.
public struct SoakDeviceState: Sendable, Hashable {
    public var id: String
    public var state: String
    public var adapter: String?
    /// The counter invariant 4 compares: `failures` (consecutive failures against the retry budget) when
    /// fleetd reports it, else `attempt` (connect attempts since the device was last ready).
    public var counter: Int
    public var counterName: String

    public var isReady: Bool { state == "ready" }

    public init(id: String, state: String, adapter: String?, counter: Int, counterName: String) {
        self.id = id
        self.state = state
        self.adapter = adapter
        self.counter = counter
        self.counterName = counterName
    }
}

/// One entry of fleetd's Watch stream.
public struct SoakWatchEvent: Sendable {
    public var sequence: Int
    public var device: String
    /// `lifecycle` or `notification`.
    public var kind: String
    public var state: String?
    public var characteristic: String?
    /// A notification's value.
    public var value: [UInt8]?
    public var text: String

    public init(sequence: Int, device: String, kind: String, state: String? = nil, characteristic: String? = nil,
                value: [UInt8]? = nil, text: String) {
        self.sequence = sequence
        self.device = device
        self.kind = kind
        self.state = state
        self.characteristic = characteristic
        self.value = value
        self.text = text
    }

    /// fleetd took back failures this device's connects counted on a pool it then learned was full
    /// (`FleetStateMachine.poolAbortsTakenBack`). False if the wording changes (rule 4 then judges the count
    /// the device's abort showed: stricter, never laxer).
    public var poolAbortsTakenBack: Bool {
        kind == "lifecycle" && text.contains(" were the full pool's, not its own; failures ")
    }

    /// The adapter of a connect attempt: fleetd words its `connecting` event "connecting ID via hciN (attempt
    /// K)". Nil for any other event, or if the wording changes (rule 4 then counts fewer other faults: stricter,
    /// never laxer).
    public var connectingVia: String? {
        guard kind == "lifecycle", state == "connecting", let via = text.range(of: " via hci") else { return nil }
        let digits = text[via.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty ? nil : "hci" + digits
    }
}

extension FleetHarness {
    /// ListDevices, reduced to `SoakDeviceState`s keyed by id.
    func soakDevices() async throws -> [String: SoakDeviceState] {
        var out: [String: SoakDeviceState] = [:]
        for (id, object) in try await devices() {
            let failures = object["failures"]?.intValue
            out[id] = SoakDeviceState(id: id, state: object["state"]?.stringValue ?? "?", adapter: object["adapter"]?.stringValue,
                                      counter: failures ?? object["attempt"]?.intValue ?? 0,
                                      counterName: failures == nil ? "attempt" : "failures")
        }
        return out
    }
}

/// Follows fleetd's Watch stream on a thread of its own (a blocking socket read must not hold one of Swift
/// concurrency's two threads here), reconnecting whenever fleetd is restarted, until `stop()`.
public final class SoakWatch: @unchecked Sendable {
    private let socketPath: String
    private let deliver: @Sendable (SoakWatchEvent) -> Void
    private let stopped = Atomic<Bool>(false)

    public init(socketPath: String, deliver: @escaping @Sendable (SoakWatchEvent) -> Void) {
        self.socketPath = socketPath
        self.deliver = deliver
    }

    public func start() {
        let reader = Thread { [self] in run() }
        reader.stackSize = 1 << 20
        reader.start()
    }

    public func stop() { stopped.store(true, ordering: .relaxed) }

    private func run() {
        while !stopped.load(ordering: .relaxed) {
            guard let watch = try? VarlinkConnection(path: socketPath),
                  (try? watch.send(FleetRequest.watch(device: nil).call())) != nil else {
                // fleetd is down or restarting: try again shortly (bounded by `stopped`).
                usleep(50_000)
                continue
            }
            while !stopped.load(ordering: .relaxed) {
                let reply: VarlinkReply
                do {
                    reply = try watch.receive(timeout: .milliseconds(200))
                } catch {
                    if case .timedOut = error { continue }
                    break
                }
                guard reply.error == nil else { break }
                let event = reply.untypedParameters["event"]?.objectValue ?? reply.untypedParameters
                deliver(SoakWatchEvent(sequence: event["sequence"]?.intValue ?? 0, device: event["device"]?.stringValue ?? "",
                                       kind: event["kind"]?.stringValue ?? "", state: event["state"]?.stringValue,
                                       characteristic: event["characteristic"]?.stringValue,
                                       value: event["value"]?.stringValue.flatMap(HexBytes.decode), text: event["text"]?.stringValue ?? ""))
            }
        }
    }
}
