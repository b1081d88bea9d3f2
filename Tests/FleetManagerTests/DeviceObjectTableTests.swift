@testable import FleetManager
import FleetPlatform
import Supervision
import Testing

/// The tree's dense table of Device1 objects: lookups by path stay right whatever is added and removed (a
/// removal moves the last object into the hole), and an object is as small as the table's memory budget says.
@Suite struct DeviceObjectTableTests {
    func object(_ n: Int, rssi: Int? = nil) -> DeviceObject {
        var problems: [MalformedProperty] = []
        let last = "\(n < 10 ? "0" : "")\(n)"
        let address = "40:11:22:33:01:" + last
        let path = "/org/bluez/hci\(n % 3)/dev_40_11_22_33_01_" + last
        var properties: [String: DBusValue] = ["Address": .string(address), "AddressType": .string("random")]
        if let rssi { properties["RSSI"] = .int16(Int16(rssi)) }
        return DeviceObject.read(path: path, properties, problems: &problems)!
    }

    @Test func lookupsStayRightAcrossRemovalsFromAnywhere() {
        var table = DeviceObjectTable()
        let objects = (0..<10).map { object($0) }
        for o in objects { table.insert(o) }
        // The first, one in the middle and the last: each removal but the last's moves another object.
        for gone in [0, 5, 9] { #expect(table.remove(path: objects[gone].path) == objects[gone]) }
        #expect(table.remove(path: objects[5].path) == nil)
        #expect(table.count == 7)
        for (n, o) in objects.enumerated() {
            #expect(table[o.path] == ([0, 5, 9].contains(n) ? nil : o), "object \(n)")
        }
        #expect(Set(table.values.map(\.path)) == Set(objects.enumerated().filter { ![0, 5, 9].contains($0.offset) }.map(\.element.path)))
        for o in objects { table.remove(path: o.path) }
        #expect(table.isEmpty && table.values.isEmpty)
    }

    @Test func anInsertAtAKnownPathReplacesAndModifyEditsInPlace() {
        var table = DeviceObjectTable()
        table.insert(object(1))
        table.insert(object(2))
        table.insert(object(1, rssi: -40))
        #expect(table.count == 2 && table[object(1).path]?.rssi == -40)
        #expect(table.modify(object(2).path) { $0.rssi = -70; return $0.address } == "40:11:22:33:01:02")
        #expect(table[object(2).path]?.rssi == -70)
        #expect(table.modify("/org/bluez/hci0/dev_none") { _ in true } == nil)
    }

    /// The budget behind the table's layout (docs/performance.md): a field added to `DeviceObject` costs a
    /// word per Device1 object BlueZ has, 25 000 in FleetBench.
    @Test func anObjectFitsIn128Bytes() {
        #expect(MemoryLayout<DeviceObject>.stride <= 128)
    }
}
