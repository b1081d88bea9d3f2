import FleetProtocol

/// What the control plane asks of the supervisor; fleetd implements it, tests use an in-memory fake.
///
/// Every method may be called concurrently from many clients. Throw `FleetControlError` for failures the
/// caller should see precisely (any other error becomes `io.fleetd.Fleet.Failed` with its description).
/// Device references are the user's text: resolve them with `DeviceReference.resolve(_:in:)`.
/// Authorization is done before these are called; the backend need not check the caller.
public protocol FleetControlBackend: Sendable {
    func status() async throws -> StatusInfo
    func listDevices() async throws -> [DeviceInfo]
    func showDevice(_ reference: String) async throws -> DeviceDetail
    /// Want the device connected now; admission may evict another device (say so in the outcome).
    func connect(_ reference: String) async throws -> ConnectOutcome
    /// Disconnect and stop wanting the device.
    func disconnect(_ reference: String) async throws -> DisconnectOutcome
    /// Free the device's slot but keep it wanted, retrying after a hold-off.
    func evict(_ reference: String) async throws -> EvictOutcome
    /// Drop the device and its stored identity; returns the identity id forgotten.
    func forget(_ reference: String) async throws -> String
    /// Move the device to policy class `policyClass`; returns the identity id.
    func setPolicy(_ reference: String, policyClass: String) async throws -> String
    /// Read a characteristic (a long read past the MTU): its bytes, and what its profile decoder made of them.
    func read(_ reference: String, characteristic: String) async throws -> ReadOutcome
    func write(_ reference: String, characteristic: String, value: [UInt8], withResponse: Bool) async throws
    /// Live events of one device (`reference` resolved once, at the call) or of all devices (nil).
    /// The stream ends when the daemon stops; the server cancels iteration when the client goes away.
    /// Throwing here (e.g. device not found) fails the call before any event is sent.
    func watch(_ reference: String?) async throws -> AsyncStream<WatchEvent>
    /// Re-read the configuration; returns a one-line summary of what changed.
    func reload() async throws -> String
    /// Prometheus text exposition format.
    func metrics() async throws -> String
    /// The durable stream: stored values of one device (or all) after a cursor, replayed and then followed as
    /// they are committed. The cursor is `since`, else `consumer`'s acknowledged one (the oldest stored value for
    /// a consumer never seen). Iteration throws `FleetControlError.lostPlace` when retention dropped values the
    /// stream had not reached; it ends when the daemon stops.
    func watchStored(_ reference: String?, since: Int64?, consumer: String?) async throws -> AsyncThrowingStream<WatchEvent, any Error>
    /// Moves `consumer`'s cursor to `cursor` (never backwards); returns the cursor in effect.
    func acknowledge(consumer: String, cursor: Int64) async throws -> Int64
    /// One device's stored values after `since` (the newest when nil), at most `limit`, oldest first.
    func readings(_ reference: String, since: Int64?, limit: Int) async throws -> ReadingsPage
    /// Pair the device now, or on its next link.
    func pair(_ reference: String) async throws -> PairingOutcomeReply
    /// Remove the device's bond.
    func unpair(_ reference: String) async throws -> PairingOutcomeReply
    /// What the store keeps of the device's stored records.
    func records(_ reference: String) async throws -> RecordsInfo
}

/// A backend without an outbox or pairing (tests' fakes, benchmarks) refuses those methods.
extension FleetControlBackend {
    public func watchStored(_ reference: String?, since: Int64?, consumer: String?) async throws -> AsyncThrowingStream<WatchEvent, any Error> {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.watch.qualifiedName)
    }

    public func acknowledge(consumer: String, cursor: Int64) async throws -> Int64 {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.acknowledge.qualifiedName)
    }

    public func readings(_ reference: String, since: Int64?, limit: Int) async throws -> ReadingsPage {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.readings.qualifiedName)
    }

    public func pair(_ reference: String) async throws -> PairingOutcomeReply {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.pair.qualifiedName)
    }

    public func records(_ reference: String) async throws -> RecordsInfo {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.records.qualifiedName)
    }

    public func unpair(_ reference: String) async throws -> PairingOutcomeReply {
        throw FleetControlError.notImplemented(method: FleetInterface.Method.unpair.qualifiedName)
    }
}
