import FoundationEssentials

/// A device's lifecycle state as retained on `<prefix>/<gateway>/<device>/state`, so a consumer that subscribes
/// later learns each device's last known state at once.
///
/// ```json
/// {"device":"mfr-0059-0a1b2c","state":"connected","wallTime":"2025-03-01T12:00:00.123Z"}
/// ```
public struct RetainedDeviceState: Sendable, Hashable {
    public var device: String
    /// The supervisor's lifecycle state name (as `fleetctl status` shows it).
    public var state: String
    public var wallTime: Date

    public init(device: String, state: String, wallTime: Date) {
        self.device = device
        self.state = state
        self.wallTime = wallTime
    }

    public var jsonPayload: [UInt8] {
        var json = JSONWriter(capacity: 96 + device.utf8.count + state.utf8.count)
        json.beginObject()
        json.member("device", string: device)
        json.member("state", string: state)
        json.member("wallTime", string: RFC3339.string(wallTime))
        json.endObject()
        return json.bytes
    }
}

/// The gateway's own status, retained on `<prefix>/<gateway>/status`: `online` once connected, `offline` when it
/// shuts down or, as the broker-published last will, when its session dies without a DISCONNECT.
public enum GatewayStatus: String, Sendable, Hashable {
    case online
    case offline

    public var payload: [UInt8] { Array(rawValue.utf8) }
}
