import Supervision

/// The tree's Device1 objects by object path, stored densely: the objects in one array, and a hash table from
/// path to position in it.
///
/// Why not `[String: DeviceObject]`: a dictionary keeps its values in its buckets, and it is at most 3/4 full,
/// so it holds up to 2.7 buckets per object. With 25 000 objects (FleetBench: 10 000 tracked devices beside
/// 1 000 heard by 16 adapters) that was 65 536 buckets of 144 bytes, 10 MiB of fleetd's 42 MiB heap. Here a
/// bucket holds a position (8 bytes) and the array one 128-byte object per object, with at most twice the
/// room it needs as it grows: about half the memory (issue 18, docs/performance.md).
///
/// The order of `values` is not kept: a removal moves the last object into the hole. Callers that want an
/// order sort.
public struct DeviceObjectTable: Sendable {
    private var positions: [String: Int] = [:]
    /// Every object, in no particular order.
    public private(set) var values: [DeviceObject] = []

    public init() {}

    public var count: Int { values.count }
    public var isEmpty: Bool { values.isEmpty }

    public subscript(path: String) -> DeviceObject? {
        positions[path].map { values[$0] }
    }

    /// The `DevicePath` of the object at `path`, read in place: through the subscript, a notification copied
    /// the whole object (retaining each of its strings and collections) to read one field.
    public func devicePath(of path: String) -> DevicePath? {
        positions[path].map { values[$0].devicePath }
    }

    /// Adds `object`, or replaces the object at its path.
    mutating func insert(_ object: DeviceObject) {
        if let position = positions[object.path] {
            values[position] = object
        } else {
            positions[object.path] = values.count
            values.append(object)
        }
    }

    /// Removes and returns the object at `path`, if any.
    @discardableResult
    mutating func remove(path: String) -> DeviceObject? {
        guard let position = positions.removeValue(forKey: path) else { return nil }
        let last = values.count - 1
        if position != last {
            values.swapAt(position, last)
            positions[values[position].path] = position
        }
        return values.removeLast()
    }

    /// Edits the object at `path` in place (no copy of it, nor of its collections); nil when there is none. The
    /// object's path cannot change (`DeviceObject.devicePath` is a `let`), so its position stays right.
    mutating func modify<Result>(_ path: String, _ edit: (inout DeviceObject) -> Result) -> Result? {
        guard let position = positions[path] else { return nil }
        return edit(&values[position])
    }
}
