import Supervision

/// BlueZ's object paths, read in this one place: an adapter is `/org/bluez/<name>` (doc/adapter-api.txt:
/// `[variable prefix]/{hci0,hci1,…}`, the prefix being `/org/bluez` in every BlueZ release), a device
/// `…/dev_XX_XX_XX_XX_XX_XX` under its adapter, GATT services and characteristics under their device.
enum BlueZPath {
    /// `/org/bluez/hci0` for `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
    static func parent(of path: String) -> String {
        "/" + path.split(separator: "/").dropLast().joined(separator: "/")
    }

    /// The device a GATT object belongs to: `…/hci0/dev_XX` for `…/hci0/dev_XX/service000c/char000d`.
    static func device(ofGATTObject path: String) -> String {
        "/" + path.split(separator: "/").prefix { !$0.hasPrefix("service") }.joined(separator: "/")
    }
}

extension AdapterID {
    /// `hci0` for `/org/bluez/hci0`. Read for every advert (a device's report names its adapter), so it finds
    /// the last slash rather than splitting the path into an array.
    init(objectPath path: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            self.init(name: path)
            return
        }
        self.init(name: String(path[path.utf8.index(after: slash)...]))
    }

    var objectPath: String { "/org/bluez/" + name }
}
