@testable import FleetManager
import Testing

/// The supervisor's buffer of one event's tree changes: room kept for the usual few, not for a rare flood.
@Suite("Tree change buffer")
struct TreeChangeBufferTests {
    /// A tree holding `count` devices under one adapter, built from the signals bluetoothd would send.
    func tree(devices count: Int) -> BlueZTree {
        var tree = BlueZTree()
        tree.apply(.interfacesAdded(path: "/org/bluez/hci0", interfaces: ["org.bluez.Adapter1": [
            "Address": .string("00:AA:01:00:00:00"), "Powered": .boolean(true)]]))
        func hex(_ byte: Int) -> String { (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        for n in 0..<count {
            let octets = ["40", "11", "22", "33", hex(n / 256), hex(n % 256)]
            tree.apply(.interfacesAdded(path: "/org/bluez/hci0/dev_" + octets.joined(separator: "_"), interfaces: [
                "org.bluez.Device1": ["Address": .string(octets.joined(separator: ":")), "RSSI": .int16(-60)]]))
        }
        return tree
    }

    @Test("an event's changes replace the last event's, in the room already there")
    func keepsRoomForTheUsualFew() {
        var tree = tree(devices: 2)
        var buffer = TreeChangeBuffer()
        buffer.startEvent()
        buffer.apply(.propertiesChanged(path: "/org/bluez/hci0/dev_40_11_22_33_00_00", interface: "org.bluez.Device1",
                                        changed: ["RSSI": .int16(-50)], invalidated: []), arrival: 1, to: &tree)
        #expect(buffer.changes.count == 1)
        let room = buffer.changes.capacity
        buffer.startEvent()
        #expect(buffer.changes.isEmpty && buffer.changes.capacity == room)
        buffer.apply(.propertiesChanged(path: "/org/bluez/hci0/dev_40_11_22_33_00_01", interface: "org.bluez.Device1",
                                        changed: ["RSSI": .int16(-51)], invalidated: []), arrival: 2, to: &tree)
        #expect(buffer.changes.count == 1)
    }

    @Test("the room a flood of changes took (bluetoothd leaving) is let go at the next event")
    func letsAFloodsRoomGo() {
        var tree = tree(devices: 500)
        var buffer = TreeChangeBuffer()
        buffer.startEvent()
        buffer.apply(.serviceLost, arrival: 1, to: &tree)
        #expect(buffer.changes.count == 502, "adapter off, 500 devices removed, adapter removed")
        buffer.startEvent()
        #expect(buffer.changes.isEmpty)
        #expect(buffer.changes.capacity <= TreeChangeBuffer.keptCapacity)
    }
}
