import Foundation
import Testing
import Identity

@Suite struct IdentityRegistryTests {
    let pump = FleetIdentity.manufacturer(companyID: 0x0059, key: [0x0A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F])
    let a = try! BluetoothAddress("4A:00:00:00:00:01", type: .random)
    let b = try! BluetoothAddress("4A:00:00:00:00:02", type: .random)

    @Test func recordTracksSightingsNamesAndAddresses() {
        var registry = IdentityRegistry()
        registry.record(pump, address: a, name: "Pump 7", now: .seconds(10))
        registry.record(pump, address: b, name: nil, now: .seconds(20))
        registry.record(pump, address: a, name: "", now: .seconds(30))
        let entry = registry["mfr-0059-0a1b2c3d4e5f"]
        #expect(entry?.displayName == "Pump 7")
        #expect(entry?.lastAddresses == [a, b])
        #expect(entry?.firstSeen == .seconds(10))
        #expect(entry?.lastSeen == .seconds(30))
    }

    @Test func aLateReportKeepsTheHistorysRecencyOrder() {
        var registry = IdentityRegistry()
        registry.record(pump, address: a, name: "Pump 7", now: .seconds(20))
        // Seen earlier at b, reported after a: b goes behind a, and neither the name nor lastSeen moves back.
        registry.record(pump, address: b, name: "Old name", now: .seconds(10))
        registry.record(pump, address: a, name: nil, now: .seconds(15))
        let entry = registry[pump]
        #expect(entry?.lastAddresses == [a, b])
        #expect(entry?.displayName == "Pump 7")
        #expect(entry?.firstSeen == .seconds(10))
        #expect(entry?.lastSeen == .seconds(20))
    }

    @Test func recordGivesTheEntrysStableID() {
        var registry = IdentityRegistry()
        #expect(registry.record(pump, address: a, name: nil, now: .seconds(1)) == "mfr-0059-0a1b2c3d4e5f")
        #expect(registry.record(pump, address: b, name: nil, now: .seconds(2)) == "mfr-0059-0a1b2c3d4e5f")
        #expect(registry.entries.keys.sorted() == ["mfr-0059-0a1b2c3d4e5f"])
    }

    @Test func addressHistoryIsBounded() {
        var registry = IdentityRegistry()
        for i in 0..<20 {
            registry.record(pump, address: BluetoothAddress(0x4A00_0000_0000 | UInt64(i), type: .random), name: nil, now: .seconds(i))
        }
        let history = registry[pump]?.lastAddresses ?? []
        #expect(history.count == IdentityRegistry.addressHistoryLimit)
        #expect(history.first?.rawValue == 0x4A00_0000_0000 | 19)
    }

    @Test func snapshotRoundTripsWithSchemaVersion() throws {
        var registry = IdentityRegistry()
        registry.record(pump, address: a, name: "Pump 7", now: .seconds(10))
        registry.record(.address(try BluetoothAddress("C4:01:02:03:04:05", type: .random)), address: try BluetoothAddress("C4:01:02:03:04:05", type: .random), name: nil, now: .seconds(11))
        registry.record(.resolvingKey(label: "watch"), address: b, name: "Watch", now: .seconds(12))
        let data = try JSONEncoder().encode(registry)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#""schemaVersion":1"#))
        #expect(json.contains("mfr-0059-0a1b2c3d4e5f"))
        #expect(try JSONDecoder().decode(IdentityRegistry.self, from: data) == registry)
    }

    @Test func otherSchemaVersionsAreRefused() {
        let future = #"{"schemaVersion":2,"entries":[]}"#
        do {
            _ = try JSONDecoder().decode(IdentityRegistry.self, from: Data(future.utf8))
            Issue.record("a version 2 snapshot was read")
        } catch let error as IdentityError {
            #expect(error.code == .unsupportedSchemaVersion)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func mergeKeepsTheWidestSpanAndTheNewestName() {
        var restored = IdentityRegistry()
        restored.record(pump, address: a, name: "Old name", now: .seconds(5))
        var live = IdentityRegistry()
        live.record(pump, address: b, name: "New name", now: .seconds(50))
        let other = FleetIdentity.resolvingKey(label: "watch")
        live.record(other, address: a, name: nil, now: .seconds(40))

        var merged = restored
        merged.merge(live)
        let entry = merged[pump]
        #expect(entry?.firstSeen == .seconds(5))
        #expect(entry?.lastSeen == .seconds(50))
        #expect(entry?.displayName == "New name")
        #expect(entry?.lastAddresses == [b, a])
        #expect(merged[other] != nil)

        var reversed = live
        reversed.merge(restored)
        #expect(reversed == merged)
    }
}
