import FleetStore
import Identity
import Policy
import Supervision

/// The snapshot's values as the store's rows and back: plain columns, no JSON, so a restore of 10 000 devices
/// reads values instead of decoding text.
extension FleetSnapshot.Device {
    var row: DeviceRow {
        DeviceRow(id: wanted.id.rawValue, name: wanted.name, policyClass: wanted.policyClass.rawValue, subscribe: wanted.subscribe,
                  readOnConnect: wanted.readOnConnect, wanted: isWanted, configured: configured, lastAddresses: lastAddresses,
                  failures: failures, gaveUp: gaveUp, lastReason: lastReason, bondAdapter: bondAdapter, needsPairing: needsPairing)
    }

    init(row: DeviceRow) throws(StoredRowError) {
        guard let policyClass = PolicyClass(rawValue: row.policyClass) else {
            throw StoredRowError(table: "devices", key: row.id, problem: "unknown class '\(row.policyClass)'")
        }
        self.init(wanted: WantedDevice(id: DeviceID(row.id), name: row.name, policyClass: policyClass, subscribe: row.subscribe,
                                       readOnConnect: row.readOnConnect),
                  isWanted: row.wanted, configured: row.configured, lastAddresses: row.lastAddresses, failures: row.failures,
                  gaveUp: row.gaveUp, lastReason: row.lastReason, bondAdapter: row.bondAdapter, needsPairing: row.needsPairing)
    }
}

extension IdentityRegistry.Entry {
    var row: IdentityRow {
        var addressType: String?
        if case .address(let address) = identity { addressType = address.type.rawValue }
        return IdentityRow(id: stableID, addressType: addressType, displayName: displayName,
                           addresses: lastAddresses.map { $0.type == .random ? "\($0.description)/random" : $0.description },
                           firstSeenNanoseconds: firstSeen.storedNanoseconds, lastSeenNanoseconds: lastSeen.storedNanoseconds)
    }

    init(row: IdentityRow) throws(StoredRowError) {
        let identity: FleetIdentity
        do {
            identity = try FleetIdentity(stableID: row.id, addressType: row.addressType.flatMap(AddressType.init(rawValue:)) ?? .public)
        } catch {
            throw StoredRowError(table: "identities", key: row.id, problem: error.description)
        }
        var addresses: [BluetoothAddress] = []
        addresses.reserveCapacity(row.addresses.count)
        for text in row.addresses {
            let random = text.hasSuffix("/random")
            do {
                addresses.append(try BluetoothAddress(random ? String(text.dropLast(7)) : text, type: random ? .random : .public))
            } catch {
                throw StoredRowError(table: "identities", key: row.id, problem: "address '\(text)': \(error.description)")
            }
        }
        self.init(identity: identity, displayName: row.displayName, lastAddresses: addresses,
                  firstSeen: .nanoseconds(row.firstSeenNanoseconds), lastSeen: .nanoseconds(row.lastSeenNanoseconds))
    }
}

extension FleetStateMachine.EvictionRecord {
    var row: EvictionRow { EvictionRow(victim: victim.rawValue, admitted: admitted, reason: reason, atNanoseconds: at.storedNanoseconds) }

    init(row: EvictionRow) {
        self.init(victim: DeviceID(row.victim), admitted: row.admitted, reason: row.reason, at: .nanoseconds(row.atNanoseconds))
    }
}

extension Duration {
    /// Whole nanoseconds: the store's unit for the supervisor's times (sub-nanosecond parts are dropped).
    var storedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// A stored row fleetd cannot turn back into its state (an unknown class, an id that no longer parses): the
/// row is skipped at restore and reported, never guessed at.
public struct StoredRowError: Error, Sendable, Equatable, CustomStringConvertible {
    public var table: String
    public var key: String
    public var problem: String
    public var description: String { "\(table) row '\(key)': \(problem)" }
}
