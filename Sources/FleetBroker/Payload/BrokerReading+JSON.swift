import FoundationEssentials
import GATTProfiles

extension BrokerReading {
    /// The published JSON, one compact object (members in this order; `monotonicNs` only when known):
    ///
    /// ```json
    /// {"device":"mfr-0059-0a1b2c","characteristic":"00002a37-0000-1000-8000-00805f9b34fb","seq":42,"epoch":4711,"cursor":1042,
    ///  "kind":"notification","monotonicNs":5123456789,"wallTime":"2025-03-01T12:00:00.123Z","session":3,"value":"0648",
    ///  "observation":{"profile":"heart-rate","characteristic":"2A37",…,"summary":"72 bpm"}}
    /// ```
    ///
    /// `observation` (with `observations` when the value holds several records) or `decodeError` follows the hex
    /// only for a characteristic fleetd decodes
    /// (docs/observations.md); the hex stays, so a consumer that decodes for itself loses nothing.
    public var jsonPayload: [UInt8] {
        var json = JSONWriter(capacity: 160 + device.utf8.count + characteristic.utf8.count + value.count * 2)
        json.beginObject()
        json.member("device", string: device)
        json.member("characteristic", string: characteristic)
        json.member("seq", integer: sequence)
        json.member("epoch", integer: epoch)
        json.member("cursor", integer: cursor)
        json.member("kind", string: kind.rawValue)
        if let monotonicNanoseconds { json.member("monotonicNs", unsigned: monotonicNanoseconds) }
        json.member("wallTime", string: RFC3339.string(wallTime))
        json.member("session", integer: session)
        json.member("value", hex: value)
        switch decoded {
        case nil: break
        case .observations(let observations)?:
            // `observation` is the reading as most consumers want it (schema version 2); a value holding several
            // records (CGM) also carries them all as `observations`.
            if let first = observations.first {
                json.key("observation")
                json.write(first)
            }
            if observations.count != 1 {
                json.key("observations")
                json.beginArray()
                for observation in observations {
                    json.element()
                    json.write(observation)
                }
                json.endArray()
            }
        case .failure(let failure)?:
            json.key("decodeError")
            json.write(failure)
        }
        json.endObject()
        return json.bytes
    }
}
