extension FleetIdentity {
    /// The stable id string:
    ///
    /// | identity | id |
    /// | --- | --- |
    /// | manufacturer data | `mfr-<company, 4 hex>-<key hex>`, e.g. `mfr-0059-0a1b2c3d4e5f` |
    /// | service data | `svc-<180d or 32 hex>-<key hex>`, e.g. `svc-180d-01020304` |
    /// | resolving key | `irk-<label>` |
    /// | address | `addr-<12 upper hex>`, e.g. `addr-AABBCCDDEEFF` |
    public var stableID: String {
        switch self {
        case .manufacturer(let company, let key):
            "mfr-" + Hex.string([UInt8(truncatingIfNeeded: company >> 8), UInt8(truncatingIfNeeded: company)]) + "-" + Hex.string(key.bytes)
        case .service(let uuid, let key):
            "svc-\(uuid.compactDescription)-" + Hex.string(key.bytes)
        case .resolvingKey(let label):
            "irk-" + label
        case .address(let address):
            "addr-" + Hex.string(address.bytes, uppercase: true)
        }
    }

    /// Parses a stable id. An `addr-` id does not say the address type, so the caller supplies it.
    public init(stableID id: String, addressType: AddressType = .public) throws(IdentityError) {
        let bad = IdentityError(.invalidStableID, "'\(id)' is not a stable identity id (mfr-…, svc-…, irk-…, addr-…)")
        let parts = id.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard let scheme = parts.first else { throw bad }
        switch scheme {
        case "mfr":
            guard parts.count == 3, let company = Self.key(parts[1]), company.count == 2,
                let bytes = Self.key(parts[2]), let key = IdentityKey(bytes)
            else { throw bad }
            self = .manufacturer(companyID: UInt16(company[0]) << 8 | UInt16(company[1]), key: key)
        case "svc":
            guard parts.count == 3, [4, 32].contains(parts[1].utf8.count), let bytes = Self.key(parts[2]),
                let key = IdentityKey(bytes), let uuid = try? ServiceUUID(String(parts[1]))
            else { throw bad }
            self = .service(uuid: uuid, key: key)
        case "irk":
            let label = String(id.utf8.dropFirst(4)) ?? ""
            guard id.hasPrefix("irk-"), (try? IdentityResolvingKey.validate(label: label)) != nil else { throw bad }
            self = .resolvingKey(label: label)
        case "addr":
            guard parts.count == 2, let bytes = Self.key(parts[1]),
                let address = BluetoothAddress(bytes: bytes, type: addressType)
            else { throw bad }
            self = .address(address)
        default:
            throw bad
        }
    }

    private static func key(_ text: Substring) -> [UInt8]? {
        // Only plain hex digits: the general hex reader's separators would give one identity two ids.
        guard !text.isEmpty, text.utf8.allSatisfy({ Hex.value(of: $0) != nil }) else { return nil }
        return Hex.bytes(String(text))
    }
}
