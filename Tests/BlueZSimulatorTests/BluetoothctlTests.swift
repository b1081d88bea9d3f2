import BlueZSimulator
import FleetPlatform
import FleetTestKit
import Foundation
import Testing

/// The real bluetoothctl (Debian's BlueZ 5.66) against the simulator: where they disagree, the simulator is wrong.
@Suite struct BluetoothctlTests {
    static let scenario = """
    device strap address=A0:9E:1A:00:00:01 name="Polar H10" manufacturer=0x006b:0a01 profile=heart-rate,battery interval=0.2
    """
    static let strap = "A0:9E:1A:00:00:01"
    static let path = "/org/bluez/hci0/dev_A0_9E_1A_00_00_01"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/bluetoothctl")))
    func bluetoothctlSessionFromListToDisconnect() async throws {
        let h = try await SimulatorHarness(Self.scenario)
        let environment = h.bus.environment()
        // The session blocks on bluetoothctl's output: it runs on its own thread, not a cooperative one.
        try await offPool {
        let ctl = try InteractiveProcess("/usr/bin/bluetoothctl", [], environment: environment)
        try ctl.expect("Agent registered")
        try ctl.send("list")
        try ctl.expect("Controller 00:1A:7D:DA:71:00 bluez-sim [default]")
        try ctl.send("show")
        try ctl.expect("Powered: yes")
        try ctl.expect("Roles: central")
        try ctl.send("scan on")
        try ctl.expect("Discovery started")
        try ctl.expect("[NEW] Device \(Self.strap) Polar H10")
        try ctl.send("info \(Self.strap)")
        try ctl.expect("ManufacturerData Key: 0x006b")
        try ctl.expect("0a 01")
        try ctl.send("scan off")
        try ctl.expect("Discovery stopped")
        try ctl.send("connect \(Self.strap)")
        try ctl.expect("Connection successful")
        try ctl.send("gatt.list-attributes \(Self.strap)")
        try ctl.expect("gatt.list-attributes \(Self.strap)")
        let attributes = try ctl.expect("Battery Level")
        #expect(attributes.contains("Heart Rate Measurement") && attributes.contains("Body Sensor Location"))
        try ctl.send("gatt.select-attribute \(Self.path)/service000a/char000e")
        try ctl.send("gatt.read")
        try ctl.expect("Attempting to read \(Self.path)/service000a/char000e")
        try ctl.expect("  01 ")
        try ctl.send("gatt.select-attribute \(Self.path)/service000a/char000b")
        try ctl.send("gatt.notify on")
        try ctl.expect("Notify started")
        try ctl.expect("char000b Value:", timeout: .seconds(30))
        try ctl.expect("  00 4", timeout: .seconds(30))
        try ctl.send("gatt.notify off")
        try ctl.expect("Notify stopped")
        try ctl.send("disconnect \(Self.strap)")
        try ctl.expect("Successful disconnected")
        try ctl.expectAnywhere("Device \(Self.strap) Connected: no")
        try ctl.send("quit")
        }
        #expect(try await h.counter("ConnectsAttempted") == 1)
        #expect(try await h.counter("NotificationsSent") >= 1)
        #expect(try await h.counter("Reads") == 1)
    }
}
