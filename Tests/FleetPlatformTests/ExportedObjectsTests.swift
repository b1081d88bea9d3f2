@testable import FleetPlatform
import Testing

/// The exported objects' path index: removing an object takes it and everything below it, and nothing else.
@Suite struct ExportedObjectsTests {
    static let paths = [
        "/org/bluez/hci0", "/org/bluez/hci0/dev_1", "/org/bluez/hci0/dev_1/service0001",
        "/org/bluez/hci0/dev_1/service0001/char0002", "/org/bluez/hci0/dev_10", "/org/bluez/hci1/dev_1", "/x/y/z",
    ]

    static func filled() -> ExportedObjects {
        var objects = ExportedObjects()
        for path in paths { objects[path] = ExportedObject() }
        return objects
    }

    @Test("a removal takes the object and its descendants, deepest first, and not a sibling whose name it prefixes")
    func removeSubtree() {
        var objects = Self.filled()
        let removed = objects.removeSubtree("/org/bluez/hci0/dev_1").map(\.path)
        #expect(removed == ["/org/bluez/hci0/dev_1/service0001/char0002", "/org/bluez/hci0/dev_1/service0001", "/org/bluez/hci0/dev_1"])
        #expect(objects.keys.sorted() == ["/org/bluez/hci0", "/org/bluez/hci0/dev_10", "/org/bluez/hci1/dev_1", "/x/y/z"])
        #expect(objects.childNames(of: "/org/bluez/hci0") == ["dev_10"])
    }

    @Test("objects below a path that is not itself an object are found through it, and the bare path goes with them")
    func bareIntermediatePaths() {
        var objects = Self.filled()
        #expect(objects.childNames(of: "/") == ["org", "x"])
        #expect(objects.childNames(of: "/org/bluez") == ["hci0", "hci1"])
        #expect(objects.removeSubtree("/x").map(\.path) == ["/x/y/z"])
        #expect(objects.childNames(of: "/") == ["org"])
        objects["/org/bluez/hci1/dev_1"] = nil
        #expect(objects.childNames(of: "/org/bluez") == ["hci0"])
        // Removing a path with nothing at or below it changes nothing.
        #expect(objects.removeSubtree("/nothing/here").isEmpty)
        #expect(objects.count == 5)
    }

    @Test("an object added again after its removal is found by the next removal of its parent")
    func readdAfterRemoval() {
        var objects = Self.filled()
        _ = objects.removeSubtree("/org/bluez/hci0")
        #expect(objects.keys.sorted() == ["/org/bluez/hci1/dev_1", "/x/y/z"])
        objects["/org/bluez/hci0/dev_2/service0009"] = ExportedObject()
        #expect(objects.childNames(of: "/org/bluez") == ["hci0", "hci1"])
        #expect(objects.removeSubtree("/org/bluez").map(\.path) == ["/org/bluez/hci0/dev_2/service0009", "/org/bluez/hci1/dev_1"])
        #expect(objects.childNames(of: "/") == ["x"])
    }
}
