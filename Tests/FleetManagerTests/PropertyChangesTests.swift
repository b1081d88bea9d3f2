@testable import FleetManager
import FleetPlatform
import Testing

/// What a PropertiesChanged carries, read from its decoded `a{sv}` without building a dictionary.
@Suite("PropertiesChanged properties")
struct PropertyChangesTests {
    func properties(_ entries: [(DBusValue, DBusValue)]) -> DBusValue {
        .dictionary(key: .string, value: .variant, entries.map { DBusDictEntry($0.0, $0.1) })
    }

    @Test("values come out of their variants, by name and in wire order")
    func readsUnwrapped() throws {
        let changes = try #require(PropertyChanges(properties([
            (.string("RSSI"), .variant(.int16(-61))), (.string("ManufacturerData"), .variant(.variant(.bytes([1])))),
        ])))
        #expect(changes["RSSI"] == .int16(-61))
        #expect(changes["ManufacturerData"] == .bytes([1]), "a variant inside a variant is unwrapped too")
        #expect(changes["TxPower"] == nil)
        #expect(changes.map(\.name) == ["RSSI", "ManufacturerData"])
        #expect(changes.map(\.value) == [.int16(-61), .bytes([1])])
        #expect(changes.count == 2 && !changes.isEmpty)
    }

    @Test("a name sent twice counts once, with its last value, as a dictionary built in wire order kept it")
    func lastOfARepeatedName() throws {
        let changes = try #require(PropertyChanges(properties([
            (.string("Connected"), .variant(.boolean(true))), (.string("RSSI"), .variant(.int16(-50))),
            (.string("Connected"), .variant(.boolean(false))),
        ])))
        #expect(changes["Connected"] == .boolean(false))
        #expect(changes.map(\.name) == ["RSSI", "Connected"])
    }

    @Test("anything but a dictionary keyed by strings is refused, and the signal is malformed")
    func refusesOtherShapes() throws {
        #expect(PropertyChanges(properties([(.uint16(1), .variant(.int16(0)))])) == nil)
        #expect(PropertyChanges(.array(.string, [.string("RSSI")])) == nil)
        #expect(PropertyChanges(properties([])).map(\.isEmpty) == true)
    }

    @Test("a dictionary and a literal give the same properties")
    func literalAndDictionary() {
        let literal: PropertyChanges = ["RSSI": .int16(-70)]
        let fromDictionary = PropertyChanges(["RSSI": .int16(-70)])
        #expect(literal["RSSI"] == fromDictionary["RSSI"])
        #expect(literal.description == "[RSSI: \(DBusValue.int16(-70))]")
    }
}
