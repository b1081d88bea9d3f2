/// The failures a `FleetControlBackend` reports; the server maps each to a typed `io.fleetd.Fleet` error.
///
/// Throw these (rather than arbitrary errors) from the backend so clients see a precise error name;
/// any other error becomes `io.fleetd.Fleet.Failed` carrying its description.
public enum FleetControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No device matches the reference the caller gave.
    case deviceNotFound(reference: String)
    /// The reference matches several devices; `candidates` are their identity ids.
    case ambiguousDevice(reference: String, candidates: [String])
    /// The device is known but has no live connection, so the operation cannot run.
    case notConnected(device: String)
    /// The connected device has no characteristic with that UUID.
    case characteristicNotFound(device: String, characteristic: String)
    /// BlueZ refused the operation; `name` is the D-Bus error name.
    case bluez(name: String, message: String)
    /// `SetPolicy` named a class the policy does not define.
    case invalidPolicyClass(String, known: [String])
    /// Admission refused: no slot could be freed for the device.
    case noCapacity(device: String, reason: String)
    /// A parameter was well-typed but unusable (e.g. bad hex); names the parameter.
    case invalidParameter(String)
    /// The backend does not offer this method (yet).
    case notImplemented(method: String)
    /// A Watch from a cursor older than what the outbox keeps: retention dropped the values `lost` before this
    /// client (the named `consumer`, if any) read them.
    case lostPlace(consumer: String?, lost: LostReadings)
    /// fleetd runs without its outbox (it could not be opened), so nothing is stored to replay or query.
    case storeUnavailable(reason: String)
    /// `Pair` or `Unpair` refused: pairing not configured for the device, no bond to remove, or a pairing
    /// already under way; `reason` says which.
    case pairingRefused(device: String, reason: String)
    /// A Watch or Acknowledge named a consumer fleetd keeps for itself (`ReservedConsumerName`); `reserved` is the
    /// rule that matched (`mqtt`, `fleetd*`…).
    case reservedConsumer(consumer: String, reserved: String)
    /// Anything else, with a sentence for the operator.
    case failed(String)

    /// The wire form of this error.
    public var varlinkError: VarlinkError {
        let fleet = FleetInterface.name
        switch self {
        case .deviceNotFound(let reference):
            return VarlinkError(name: fleet + ".DeviceNotFound", parameters: ["device": .string(reference)])
        case .ambiguousDevice(let reference, let candidates):
            return VarlinkError(name: fleet + ".AmbiguousDevice",
                                parameters: ["device": .string(reference), "candidates": .array(candidates.map(JSONValue.string))])
        case .notConnected(let device):
            return VarlinkError(name: fleet + ".NotConnected", parameters: ["device": .string(device)])
        case .characteristicNotFound(let device, let characteristic):
            return VarlinkError(name: fleet + ".CharacteristicNotFound",
                                parameters: ["device": .string(device), "characteristic": .string(characteristic)])
        case .bluez(let name, let message):
            return VarlinkError(name: fleet + ".BlueZError", parameters: ["name": .string(name), "message": .string(message)])
        case .invalidPolicyClass(let policyClass, let known):
            return VarlinkError(name: fleet + ".InvalidPolicyClass",
                                parameters: ["policyClass": .string(policyClass), "known": .array(known.map(JSONValue.string))])
        case .noCapacity(let device, let reason):
            return VarlinkError(name: fleet + ".NoCapacity", parameters: ["device": .string(device), "reason": .string(reason)])
        case .invalidParameter(let parameter):
            return .invalidParameter(parameter)
        case .notImplemented(let method):
            return .methodNotImplemented(method)
        case .lostPlace(let consumer, let lost):
            var parameters: [String: JSONValue] = ["firstCursor": .number(Double(lost.firstCursor)), "lastCursor": .number(Double(lost.lastCursor)),
                                                   "count": .number(Double(lost.count))]
            if let consumer { parameters["consumer"] = .string(consumer) }
            return VarlinkError(name: fleet + ".LostPlace", parameters: parameters)
        case .storeUnavailable(let reason):
            return VarlinkError(name: fleet + ".StoreUnavailable", parameters: ["reason": .string(reason)])
        case .pairingRefused(let device, let reason):
            return VarlinkError(name: fleet + ".PairingRefused", parameters: ["device": .string(device), "reason": .string(reason)])
        case .reservedConsumer(let consumer, let reserved):
            return VarlinkError(name: fleet + ".ReservedConsumer", parameters: ["consumer": .string(consumer), "reserved": .string(reserved)])
        case .failed(let message):
            return VarlinkError(name: fleet + ".Failed", parameters: ["message": .string(message)])
        }
    }

    public var description: String { varlinkError.description }
}
