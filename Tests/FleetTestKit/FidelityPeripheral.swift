/// One peripheral of the fidelity suite, defined once for both backends: the simulator serves it from a
/// scenario device line, and in the guest `scripts/bluez-peripheral/fidelity-peripheral.py` serves the same
/// GATT database and advertisement from its own btvirt controller through real bluetoothd.
public struct FidelityPeripheral: Sendable, Hashable {
    /// What it serves: `full` is heart-rate + glucose (a 64-byte value, longer than the 48-byte MTU) + a
    /// control point (write with and without response); `battery` is the Battery service alone.
    public enum Kind: String, Sendable, Hashable {
        case full, battery

        /// The simulator's `profile=` list for this kind.
        var simulatorProfiles: String { self == .full ? "heart-rate,glucose,control-point" : "battery" }
    }

    public var label: String
    public var kind: Kind
    /// The serial after company 0xffff in the manufacturer data (8 hex digits).
    public var serial: String
    public var name: String
    /// Which peripheral controller serves it in the guest (hci1 … hciN; hci0 is fleetd's).
    public var controller: Int

    /// The manufacturer-data identity of this peripheral as fleetd names it.
    public var id: String { "mfr-ffff-\(serial)" }

    /// btvirt's public address of its controller (as `$BLUEZ_VM_ADDRESSES` lists them), which the simulator
    /// uses too so that addresses look alike on both backends.
    public var initialAddress: String {
        let n = String(controller, radix: 16, uppercase: true)
        let byte = n.count == 1 ? "0" + n : n
        return "00:AA:01:\(byte):00:\(byte)"
    }

    /// The simulator's device line: same advertisement, same GATT, the 48-byte MTU the guest's bluetoothd
    /// is configured to negotiate (scripts/bluez-peripheral/main.conf), and the scenario's security and
    /// pairing capability (and, for a scenario's stored-record meter, its records instead of its kind).
    func simulatorDevice(_ setup: FidelityPeripheralSetup) -> String {
        "device \(label) address=\(initialAddress) name=\(name) manufacturer=0xffff:\(serial) profile=\(setup.simulatorProfiles(self)) interval=0.5 mtu=48"
            + setup.simulatorKeys(self)
    }

    /// The peripheral script's argument for it.
    var peripheralArgument: String { "hci\(controller)=\(kind.rawValue):\(serial):\(name)" }

    /// The suite's fixed set: every scenario draws from these, so the guest starts them once per boot.
    public static let all: [FidelityPeripheral] = [
        FidelityPeripheral(label: "p1", kind: .full, serial: "01020304", name: "Fid1", controller: 1),
        FidelityPeripheral(label: "p2", kind: .full, serial: "05060708", name: "Fid2", controller: 2),
        FidelityPeripheral(label: "p3", kind: .full, serial: "090a0b0c", name: "Fid3", controller: 3),
        FidelityPeripheral(label: "p4", kind: .battery, serial: "0d0e0f10", name: "Fid4", controller: 4),
    ]

    /// Controllers the guest needs: fleetd's hci0, one per peripheral, and fleetd's second adapter.
    public static var controllersNeeded: Int { max(all.map(\.controller).max() ?? 0, FidelityScenario.secondCentral) + 1 }
}
