#if canImport(Glibc)
import Glibc
#endif

/// Which numbering of the per-device `seq` the outbox is in (issue 41). A consumer keeps the highest `seq` per
/// device *and epoch*: within one epoch a device's numbers only grow, and a new epoch means they may start again
/// (docs/mqtt.md, "Duplicates and gaps").
///
/// The epoch changes when the outbox cannot vouch that its numbers continue those a consumer may have seen:
/// - a fresh file (the old one was moved aside as unusable, or deleted): migration 6 draws its first epoch;
/// - the previous run did not close the file and the machine has booted since: a power loss or a kernel crash
///   may have taken back commits (at `synchronous = NORMAL` or `OFF`, or on storage that acknowledges a flush it
///   has not made), so numbers consumers were shown may be given again to other values.
/// A crash of fleetd alone (same boot) loses nothing committed in WAL mode, so it keeps the epoch.
public struct OutboxEpoch: Sendable, Equatable {
    /// The epoch new readings are numbered in.
    public var current: Int64
    /// Why it changed at this open, nil when it continues the last run's.
    public var change: Change?

    public enum Change: String, Sendable, Equatable {
        /// The file is new (no reading was ever stored in it before this run).
        case newFile = "new-file"
        /// The last run ended with the machine: committed readings may have been lost.
        case uncleanShutdownAcrossBoot = "unclean-shutdown-across-boot"
    }

    /// What the marks in the file say about the last run.
    struct Marks: Equatable {
        var epoch: Int64
        /// The boot that last opened the file, nil before any open recorded one.
        var boot: Int64?
        /// 1 while a run has the file open; set back to 0 by a clean close.
        var running: Bool
    }

    /// The decision, pure: `draw` gives a fresh epoch (1…2^53−1, exact as a JSON number).
    static func decide(marks: Marks, currentBoot: Int64, storedBefore: Bool, draw: () -> Int64) -> OutboxEpoch {
        if marks.running, let boot = marks.boot, boot != currentBoot {
            var epoch = draw()
            while epoch == marks.epoch { epoch = draw() }
            return OutboxEpoch(current: epoch, change: .uncleanShutdownAcrossBoot)
        }
        return OutboxEpoch(current: marks.epoch, change: marks.boot == nil && !storedBefore ? .newFile : nil)
    }

    /// The largest epoch: 2^53 − 1, so that a JavaScript consumer reads it exactly.
    static let largest: Int64 = (1 << 53) - 1

    static func random() -> Int64 {
        var generator = SystemRandomNumberGenerator()
        return Int64.random(in: 1...largest, using: &generator)
    }

    /// This boot's identity: the first 64 bits of `/proc/sys/kernel/random/boot_id`, or nil when unreadable
    /// (then every open counts as the same boot, and only a new file changes the epoch).
    public static func currentBoot() -> Int64? {
        guard let file = fopen("/proc/sys/kernel/random/boot_id", "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, file) != nil else { return nil }
        return bootNumber(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The first 16 hex digits of a boot id (dashes skipped) as a number.
    static func bootNumber(_ text: String) -> Int64? {
        let digits = text.filter(\.isHexDigit).prefix(16)
        guard digits.count == 16, let value = UInt64(digits, radix: 16) else { return nil }
        return Int64(bitPattern: value)
    }
}
