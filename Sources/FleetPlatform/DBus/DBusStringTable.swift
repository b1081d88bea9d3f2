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
    /// Longer strings are not kept: a device name or a long value is rarely repeated, and what the table can hold
    /// stays bounded (32 768 slots of strings up to 80 bytes, about 4 MiB at worst, for paths of objects long
    /// gone). The names a connection keeps receiving are shorter: a descriptor's path on `hci10` is 68 bytes, an
    /// interface name under 40, a UUID 36.
    static let longestKept = 80
    private var slots: [String?]
    private let mask: Int
    /// Lookups answered from the table, and strings made; for tests.
    private(set) var hits = 0
    private(set) var made = 0

    /// `slotCount` is rounded up to a power of two. The default, 32 768 slots (512 KiB of slots), finds a path it
    /// made before about 70 % of the time when 16 adapters hear 1 000 devices (FleetBench: 16 000 device paths and
    /// 1 000 characteristics', each object's signals in random order); 4 096 slots found 23 %. A miss costs a
    /// string made and freed on the I/O thread, and a hit also saves the supervisor's lookups by that path a
    /// comparison of its bytes: the string it gets is the one its tree already holds, and equal strings sharing
    /// storage compare at once (issue 18). A slot is 16 bytes; the string it holds (80 bytes for a 37-byte path)
    /// is the tree's own while the object lives, and at most one per slot after it has gone.
    init(slotCount: Int = 32768) {
        var count = 1
        while count < max(slotCount, 1) { count <<= 1 }
        slots = Array(repeating: nil, count: count)
        mask = count - 1
    }

    /// The string of the NUL-terminated UTF-8 `text` (libdbus has validated it), shared with earlier lookups of
    /// the same bytes where the table still holds it.
    func string(_ text: UnsafePointer<CChar>) -> String {
        // strlen is vectorised; the hash then takes eight bytes a step. Byte at a time (FNV-1a) it was 2–4 % of
        // fleetd's samples at 1 Hz with adverts, for the five or so names of each signal (issue 18).
        let length = strlen(text)
        let bytes = UnsafeRawPointer(text)
        let buffer = UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: UInt8.self), count: length)
        // Inline strings have nothing to share, long ones are not kept; the length is known, so neither is measured again.
        if length <= 15 || length > Self.longestKept { return String(decoding: buffer, as: UTF8.self) }
        let slot = Int(truncatingIfNeeded: Self.hash(bytes, length)) & mask
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

    /// A hash of `length` (at least 8) bytes, a word at a time; the last word overlaps the one before it when the
    /// length is not a multiple of 8, so every byte counts and nothing is read past the end.
    static func hash(_ bytes: UnsafeRawPointer, _ length: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: length) &* 0x9E37_79B9_7F4A_7C15
        func mix(_ offset: Int) {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        var offset = 0
        while offset + 8 < length {
            mix(offset)
            offset += 8
        }
        mix(length - 8)
        // SplitMix64's finaliser: a multiply carries a byte's change only upwards, and the slot is taken from the
        // low bits, where a path's last bytes (the part that differs across a fleet) would otherwise hardly reach.
        hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
        hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
        return hash ^ (hash >> 31)
    }

    /// The string of `text`, or nil for a null pointer (an absent header field).
    func string(_ text: UnsafePointer<CChar>?) -> String? {
        text.map { string($0) }
    }
}
