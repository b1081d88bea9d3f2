// swift-tools-version:6.0
import PackageDescription

/// fleetd: a BlueZ fleet supervisor. Layout:
/// - C system libraries (CSystemd, CDBus, COpenSSL, CSQLite, CMosquitto, and CLinux for the glibc calls Swift's Glibc hides) are
///   imported only by the wrappers above them.
/// - FleetSystem: errno, owned file descriptors, the EINTR retry and the poll wake-up, over Glibc alone (so
///   the control plane and the CLI can use it without linking libdbus or libsystemd).
/// - FleetPlatform: owning Swift wrappers and safe APIs for D-Bus, journald and sd_notify.
/// - Identity, Policy, Pairing: pure decision libraries (no I/O, no clock reads).
/// - GATTProfiles: pure decoders of the Bluetooth SIG health and fitness profiles into typed observations (IEEE 11073
///   SFLOAT/FLOAT as exact decimals, MDC and LOINC codes, UCUM units); imports nothing, not even Foundation.
/// - Supervision: the supervisor's pure state machine; it imports only Identity, Policy and Pairing.
/// - FleetManager: the BlueZ client, the actor driver of the state machine, configuration and snapshot files.
/// - The control plane in three rooms, arrows pointing down: FleetProtocol (the varlink interface, typed
///   requests and replies, the JSON codec; no sockets served, no CLI), FleetControlServer (the socket,
///   credentials, the varlink server and the service mapping; linked by fleetd) and FleetCLI (fleetctl's
///   parser, runner, formatter and client connection). fleetd links no CLI code, fleetctl no server code,
///   and neither links full Foundation: the rooms they link import FoundationEssentials only (scripts/check-links
///   checks the binaries).
/// - FleetStore: the SQLite state store and the durable outbox of readings (over CSQLite).
/// - BlueZSimulator: a BlueZ 5.66 look-alike on D-Bus; fleetd never imports it.
/// - FleetBroker: readings to the fleet's MQTT broker over libmosquitto (connection, topics, publish pump); FleetManager wires
///   it to the outbox (BrokerForwarder), and FleetBroker imports nothing of fleetd.
let package = Package(
    name: "fleetd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fleetd", targets: ["fleetd"]),
        .executable(name: "fleetctl", targets: ["fleetctl"]),
        .executable(name: "bluez-sim", targets: ["bluez-sim"]),
    ],
    targets: [
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),

        .target(name: "FleetSystem", dependencies: ["CLinux"]),
        .target(name: "FleetPlatform", dependencies: ["FleetSystem", "CDBus", "CSystemd"]),
        .target(name: "Identity", dependencies: ["COpenSSL"]),
        .target(name: "Policy"),
        .target(name: "Pairing", dependencies: ["Policy"]),
        .target(name: "GATTProfiles"),
        .target(name: "Supervision", dependencies: ["Identity", "Policy", "Pairing"]),
        .target(name: "FleetManager", dependencies: ["FleetSystem", "FleetPlatform", "Identity", "Policy", "Pairing", "Supervision", "FleetProtocol", "FleetControlServer", "FleetStore", "FleetBroker", "GATTProfiles"]),
        .target(name: "BlueZSimulator", dependencies: ["FleetPlatform", "Policy"]),
        .target(name: "FleetProtocol", dependencies: ["GATTProfiles"]),
        .target(name: "FleetControlServer", dependencies: ["FleetSystem", "FleetProtocol"]),
        .target(name: "FleetCLI", dependencies: ["FleetSystem", "FleetProtocol", "GATTProfiles"]),
        .target(name: "FleetTestKit", dependencies: ["FleetPlatform", "FleetProtocol", "GATTProfiles", "FleetControlServer", "FleetCLI", "BlueZSimulator", "Policy"], path: "Tests/FleetTestKit"),
        .target(name: "FleetStore", dependencies: ["CSQLite", "FleetSystem"]),
        .target(name: "FleetBroker", dependencies: ["CMosquitto", "Policy", "FleetSystem", "FleetPlatform", "GATTProfiles"]),
        .target(name: "TestScheduling", path: "Tests/TestScheduling"),
        .target(name: "BrokerTestKit", dependencies: ["FleetBroker", "FleetTestKit"], path: "Tests/BrokerTestKit"),

        .executableTarget(name: "fleetd", dependencies: ["FleetManager", "Supervision", "FleetSystem", "FleetPlatform", "FleetControlServer", "FleetProtocol"]),
        .executableTarget(name: "fleetctl", dependencies: ["FleetCLI", "FleetSystem"]),
        .executableTarget(name: "bluez-sim", dependencies: ["BlueZSimulator", "FleetPlatform"]),
        .executableTarget(name: "fleet-fidelity", dependencies: ["FleetTestKit", "BlueZSimulator"]),
        .executableTarget(name: "fleet-control-probe", dependencies: ["FleetTestKit", "FleetControlServer"]),
        .executableTarget(name: "outbox-crash-writer", dependencies: ["FleetStore"], path: "Tests/OutboxCrashWriter"),
        .executableTarget(name: "fleet-soak", dependencies: ["FleetTestKit", "FleetManager", "Supervision", "FleetStore"]),
        .executableTarget(name: "fleet-broker-probe", dependencies: ["FleetBroker", "BrokerTestKit"]),

        .executableTarget(name: "DBusBench", dependencies: ["FleetPlatform", "FleetTestKit", "CDBus"], path: "Benchmarks/DBusBench"),
        .executableTarget(name: "IdentityBench", dependencies: ["Identity", "COpenSSL", "Policy"], path: "Benchmarks/IdentityBench"),
        .executableTarget(name: "PolicyBench", dependencies: ["Policy"], path: "Benchmarks/PolicyBench"),
        .executableTarget(name: "FleetBench", dependencies: ["FleetManager", "Supervision", "FleetCLI", "FleetPlatform", "FleetProtocol", "FleetTestKit", "Identity"], path: "Benchmarks/FleetBench"),
        .executableTarget(name: "FloodBench", dependencies: ["FleetTestKit", "FleetPlatform", "FleetProtocol", "CDBus"], path: "Benchmarks/FloodBench"),
        .executableTarget(name: "ControlBench", dependencies: ["FleetProtocol", "FleetControlServer", "FleetCLI"], path: "Benchmarks/ControlBench"),
        .executableTarget(name: "StoreBench", dependencies: ["FleetStore", "FleetManager", "Supervision", "Identity", "Policy", "FleetTestKit"], path: "Benchmarks/StoreBench"),
        .executableTarget(name: "SimulatorBench", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit"], path: "Benchmarks/SimulatorBench"),
        .executableTarget(name: "ProfileBench", dependencies: ["GATTProfiles", "BlueZSimulator", "FleetStore", "FleetBroker"], path: "Benchmarks/ProfileBench"),
        .executableTarget(name: "BrokerBench", dependencies: ["FleetBroker", "BrokerTestKit", "FleetTestKit"], path: "Benchmarks/BrokerBench"),

        .testTarget(name: "FleetSystemTests", dependencies: ["FleetSystem"]),
        .testTarget(name: "FleetPlatformTests", dependencies: ["FleetPlatform", "FleetSystem", "FleetTestKit"]),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "Policy"]),
        .testTarget(name: "PolicyTests", dependencies: ["Policy", "TestScheduling"]),
        .testTarget(name: "TestSchedulingTests", dependencies: ["TestScheduling"]),
        .testTarget(name: "PairingTests", dependencies: ["Pairing", "Policy"]),
        .testTarget(name: "GATTProfilesTests", dependencies: ["GATTProfiles", "TestScheduling"]),
        .testTarget(name: "SupervisionTests", dependencies: ["Supervision", "Identity", "Policy", "Pairing", "TestScheduling"]),
        .testTarget(name: "FleetManagerTests", dependencies: ["FleetManager", "Supervision", "FleetSystem", "FleetTestKit", "FleetProtocol", "FleetCLI", "Identity", "Policy", "Pairing", "FleetStore"]),
        .testTarget(name: "FleetProtocolTests", dependencies: ["FleetProtocol"]),
        .testTarget(name: "FleetControlServerTests", dependencies: ["FleetControlServer", "FleetCLI", "FleetTestKit", "FleetPlatform", "Policy"]),
        .testTarget(name: "FleetCLITests", dependencies: ["FleetCLI", "FleetControlServer", "FleetTestKit"]),
        .testTarget(name: "BlueZSimulatorTests", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit", "GATTProfiles"]),
        .testTarget(name: "FleetStoreTests", dependencies: ["FleetStore", "FleetTestKit", "CSQLite"]),
        .testTarget(name: "FidelityTests", dependencies: ["FleetTestKit", "FleetProtocol", "FleetPlatform", "BlueZSimulator"]),
        .testTarget(name: "SoakTests", dependencies: ["FleetTestKit", "FleetManager", "Supervision", "BlueZSimulator", "Policy"]),
        .testTarget(name: "FleetBrokerTests", dependencies: ["FleetBroker", "BrokerTestKit", "FleetTestKit", "Policy", "GATTProfiles"]),
        .testTarget(name: "FleetdBrokerTests", dependencies: ["BrokerTestKit", "FleetTestKit", "FleetProtocol", "FleetStore", "GATTProfiles", "BlueZSimulator"]),
    ],
    swiftLanguageModes: [.v6]
)
