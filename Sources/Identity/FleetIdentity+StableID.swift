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
            Hex.identifier("mfr-", [UInt8(truncatingIfNeeded: company >> 8), UInt8(truncatingIfNeeded: company)], key.bytes)
        case .service(let uuid, let key):
            "svc-\(uuid.compactDescription)-" + Hex.string(key.bytes)
        case .resolvingKey(let label):
            "irk-" + label
        case .address(let address):
            Hex.identifier("addr-", (0..<6).lazy.map { UInt8(truncatingIfNeeded: address.rawValue >> (40 - 8 * UInt64($0))) }, uppercase: true)
        }
    }

    /// Parses a stable id. An `addr-` id does not say the address type, so the caller gives it.
    public init(stableID id: String, addressType: AddressType = .public) throws(IdentityError) {
        guard let parsed = Self.parse(stableID: id, addressType: addressType) else {
            throw IdentityError(.invalidStableID, "'\(id)' is not a stable identity id (mfr-…, svc-…, irk-…, addr-…)")
        }
        self = parsed
    }

    /// The parse itself, over the id's UTF-8 bytes in place and with no error text built unless it fails: a
    /// restore of the state store parses one id per identity (10 000 in StoreBench), where splitting `String`s
    /// and interpolating the error up front cost two thirds of the restore.
    private static func parse(stableID id: String, addressType: AddressType) -> FleetIdentity? {
        var text = id
        return text.withUTF8 { utf8 -> FleetIdentity? in
            // The id's parts as `split(separator: "-", maxSplits: 2)` gives them: the third keeps any later `-`.
            guard let first = utf8.firstIndex(of: UInt8(ascii: "-")) else { return nil }
            let scheme = UnsafeBufferPointer(rebasing: utf8[..<first])
            let rest = utf8[(first + 1)...]
            let second = rest.firstIndex(of: UInt8(ascii: "-"))
            let middle = UnsafeBufferPointer(rebasing: rest[..<(second ?? rest.endIndex)])
            let last = second.map { UnsafeBufferPointer(rebasing: utf8[($0 + 1)...]) }
            func isScheme(_ name: StaticString) -> Bool {
                guard scheme.count == name.utf8CodeUnitCount else { return false }
                for i in 0..<scheme.count where scheme[i] != name.utf8Start[i] { return false }
                return true
            }
            if isScheme("mfr") {
                guard let last, let company = key(middle), company.count == 2, let bytes = key(last), let key = IdentityKey(bytes) else { return nil }
                return .manufacturer(companyID: UInt16(company[0]) << 8 | UInt16(company[1]), key: key)
            }
            if isScheme("addr") {
                guard last == nil, let bytes = key(middle) else { return nil }
                return BluetoothAddress(bytes: bytes, type: addressType).map { .address($0) }
            }
            if isScheme("svc") {
                guard let last, [4, 32].contains(middle.count), let bytes = key(last), let key = IdentityKey(bytes),
                    let uuid = try? ServiceUUID(String(decoding: middle, as: UTF8.self))
                else { return nil }
                return .service(uuid: uuid, key: key)
            }
            if isScheme("irk") {
                let label = String(decoding: UnsafeBufferPointer(rebasing: utf8[(first + 1)...]), as: UTF8.self)
                guard (try? IdentityResolvingKey.validate(label: label)) != nil else { return nil }
                return .resolvingKey(label: label)
            }
            return nil
        }
    }

    /// Only plain hex digits, an even number of them: the general hex reader's separators would give one
    /// identity two ids.
    private static func key(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !text.isEmpty, text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var i = 0
        while i < text.count {
            guard let high = Hex.value(of: text[i]), let low = Hex.value(of: text[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return bytes
    }
}
