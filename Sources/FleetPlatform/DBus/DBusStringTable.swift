#if canImport(Glibc)
import Glibc
#endif

/// The strings a connection receives again and again, made into Swift strings once and shared afterwards.
///
/// Every signal bluetoothd sends names the same few things: its interface (`org.freedesktop.DBus.Properties`),
/// member (`PropertiesChanged`), the object's path, and in the body an interface name (`org.bluez.Device1`). A
/// Swift string over 15 bytes lives on the heap, so decoding each of them anew cost a malloc, a copy and a free per
/// name per signal (issue 18). Here a string is looked up by a hash of its bytes in a fixed table of slots; a
/// slot holds the last string that hashed to it, so the table's size is bounded whatever a peer sends, and a
/// collision costs only what decoding did before. Strings of 15 bytes or fewer are stored inline by Swift and
/// skip the table.
///
/// Touched only by the connection's I/O thread, like the rest of what the decoder does.
final class DBusStringTable {
    /// Longer strings are not kept: a device name or a long value is rarely repeated.
    static let longestKept = 255
    private var slots: [String?]
    private let mask: Int
    /// Lookups answered from the table, and strings made; for tests.
    private(set) var hits = 0
    private(set) var made = 0

    /// `slotCount` is rounded up to a power of two. The default, 4 096 slots, holds the paths of a fleet of a
    /// few thousand devices (a slot is 16 bytes; a path of 37 bytes about 80 more on the heap).
    init(slotCount: Int = 4096) {
        var count = 1
        while count < max(slotCount, 1) { count <<= 1 }
        slots = Array(repeating: nil, count: count)
        mask = count - 1
    }

    /// The string of the NUL-terminated UTF-8 `text` (libdbus has validated it), shared with earlier lookups of
    /// the same bytes where the table still holds it.
    func string(_ text: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        // FNV-1a and the length in one pass.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var length = 0
        while bytes[length] != 0 {
            hash = (hash ^ UInt64(bytes[length])) &* 0x100_0000_01b3
            length += 1
            if length > Self.longestKept { return String(cString: text) }
        }
        let buffer = UnsafeBufferPointer(start: bytes, count: length)
        if length <= 15 { return String(decoding: buffer, as: UTF8.self) }
        let slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
        if let cached = slots[slot], cached.utf8.count == length,
           cached.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, bytes, length) == 0 }) == true {
            hits += 1
            return cached
        }
        let fresh = String(decoding: buffer, as: UTF8.self)
        slots[slot] = fresh
        made += 1
        return fresh
    }

    /// The string of `text`, or nil for a null pointer (an absent header field).
    func string(_ text: UnsafePointer<CChar>?) -> String? {
        text.map { string($0) }
    }
}
