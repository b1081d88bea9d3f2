// swift-tools-version:6.0
import PackageDescription

/// fleetd: a BlueZ fleet supervisor. Layout:
/// - C system libraries (CSystemd, CDBus, COpenSSL, CMosquitto) are imported only by the wrappers above them.
/// - FleetPlatform: owning Swift wrappers and safe APIs for D-Bus, journald and sd_notify.
/// - Identity, Policy: pure decision libraries (no I/O, no clock reads).
/// - FleetManager: the supervisor state machine and its actor driver.
/// - BlueZSimulator: a BlueZ 5.66 look-alike on D-Bus; fleetd never imports it.
/// - FleetBroker: readings to the fleet's MQTT broker over libmosquitto (connection, topics, publish pump).
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
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),

        .target(name: "FleetPlatform", dependencies: ["CDBus", "CSystemd"]),
        .target(name: "Identity", dependencies: ["COpenSSL"]),
        .target(name: "Policy"),
        .target(name: "FleetManager", dependencies: ["FleetPlatform", "Identity", "Policy", "FleetControl"]),
        .target(name: "BlueZSimulator", dependencies: ["FleetPlatform"]),
        .target(name: "FleetControl"),
        .target(name: "FleetTestKit", dependencies: ["FleetPlatform", "FleetControl"], path: "Tests/FleetTestKit"),
        .target(name: "FleetBroker", dependencies: ["CMosquitto", "Policy", "FleetPlatform"]),
        .target(name: "BrokerTestKit", dependencies: ["FleetBroker", "FleetTestKit"], path: "Tests/BrokerTestKit"),

        .executableTarget(name: "fleetd", dependencies: ["FleetManager", "FleetPlatform", "FleetControl"]),
        .executableTarget(name: "fleetctl", dependencies: ["FleetControl"]),
        .executableTarget(name: "bluez-sim", dependencies: ["BlueZSimulator", "FleetPlatform"]),
        .executableTarget(name: "fleet-fidelity", dependencies: ["FleetTestKit"]),
        .executableTarget(name: "fleet-broker-probe", dependencies: ["FleetBroker", "BrokerTestKit"]),

        .executableTarget(name: "DBusBench", dependencies: ["FleetPlatform", "FleetTestKit", "CDBus"], path: "Benchmarks/DBusBench"),
        .executableTarget(name: "IdentityBench", dependencies: ["Identity", "COpenSSL", "FleetPlatform"], path: "Benchmarks/IdentityBench"),
        .executableTarget(name: "PolicyBench", dependencies: ["Policy", "FleetPlatform"], path: "Benchmarks/PolicyBench"),
        .executableTarget(name: "FleetBench", dependencies: ["FleetManager", "FleetControl", "FleetPlatform", "FleetTestKit", "Identity"], path: "Benchmarks/FleetBench"),
        .executableTarget(name: "ControlBench", dependencies: ["FleetControl"], path: "Benchmarks/ControlBench"),
        .executableTarget(name: "SimulatorBench", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit"], path: "Benchmarks/SimulatorBench"),
        .executableTarget(name: "BrokerBench", dependencies: ["FleetBroker", "BrokerTestKit", "FleetTestKit"], path: "Benchmarks/BrokerBench"),

        .testTarget(name: "FleetPlatformTests", dependencies: ["FleetPlatform", "FleetTestKit"]),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "FleetPlatform"]),
        .testTarget(name: "PolicyTests", dependencies: ["Policy", "FleetPlatform"]),
        .testTarget(name: "FleetManagerTests", dependencies: ["FleetManager", "FleetTestKit", "FleetControl", "Identity", "Policy"]),
        .testTarget(name: "FleetControlTests", dependencies: ["FleetControl", "FleetPlatform"]),
        .testTarget(name: "BlueZSimulatorTests", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit"]),
        .testTarget(name: "FidelityTests", dependencies: ["FleetTestKit", "FleetControl", "FleetPlatform"]),
        .testTarget(name: "FleetBrokerTests", dependencies: ["FleetBroker", "BrokerTestKit", "FleetTestKit", "Policy"]),
    ],
    swiftLanguageModes: [.v6]
)
