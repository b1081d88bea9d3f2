import GATTProfiles

/// What set-up arms on a device whose configuration names no characteristics: the standard Bluetooth SIG profile
/// characteristics it offers (ProfileCatalog), so a heart-rate strap or a glucose meter delivers its readings with
/// nothing but its `[device]` section. Features, locations and Device Information are read (before the
/// measurements are armed, so that a decoder that needs a feature, such as CGM's E2E-CRC, has it first);
/// measurements are subscribed by notification or indication, as the characteristic's own flags allow.
enum ProfileArming {
    static func plan(_ characteristics: [CharacteristicObject]) -> (subscribe: [String], read: [String]) {
        var subscribe: [String] = []
        var read: [String] = []
        let standard = characteristics
            .compactMap { object in ProfileCatalog.decoder(for: object.uuid).map { (object, $0) } }
            .sorted { $0.1.characteristic < $1.1.characteristic }
        for (object, decoder) in standard {
            let canSubscribe = object.flags.contains("notify") || object.flags.contains("indicate")
            let canRead = object.flags.contains("read")
            switch decoder.delivery {
            case .notify, .indicate:
                if canSubscribe { subscribe.append(object.uuid) } else if canRead { read.append(object.uuid) }
            case .readOnce:
                if canRead { read.append(object.uuid) }
            }
        }
        // A stored-record service's RACP is armed last, after its measurement (and context): records asked for come
        // on those, and a meter answers ATT 0xFD to a request written before the RACP's indications are on
        // (docs/records.md). Its answers go to the sync, not to the outbox.
        if let (_, controlPoint) = RecordSyncPlan.offered(characteristics), !subscribe.contains(controlPoint.uuid) {
            subscribe.append(controlPoint.uuid)
        }
        return (subscribe, read)
    }
}
