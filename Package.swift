// swift-tools-version:6.0
import PackageDescription

/// fleetd: a BlueZ fleet supervisor. Layout:
/// - C system libraries (CSystemd, CDBus, COpenSSL) are imported only by the wrappers above them.
/// - FleetPlatform: owning Swift wrappers and safe APIs for D-Bus, journald and sd_notify.
/// - Identity, Policy: pure decision libraries (no I/O, no clock reads).
/// - FleetManager: the supervisor state machine and its actor driver.
/// - BlueZSimulator: a BlueZ 5.66 look-alike on D-Bus; fleetd never imports it.
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

        .target(name: "FleetPlatform", dependencies: ["CDBus", "CSystemd"]),
        .target(name: "Identity", dependencies: ["COpenSSL"]),
        .target(name: "Policy"),
        .target(name: "FleetManager", dependencies: ["FleetPlatform", "Identity", "Policy", "FleetControl"]),
        .target(name: "BlueZSimulator", dependencies: ["FleetPlatform"]),
        .target(name: "FleetControl"),
        .target(name: "FleetTestKit", dependencies: ["FleetPlatform", "FleetControl"], path: "Tests/FleetTestKit"),

        .executableTarget(name: "fleetd", dependencies: ["FleetManager", "FleetPlatform", "FleetControl"]),
        .executableTarget(name: "fleetctl", dependencies: ["FleetControl"]),
        .executableTarget(name: "bluez-sim", dependencies: ["BlueZSimulator", "FleetPlatform"]),
        .executableTarget(name: "fleet-fidelity", dependencies: ["FleetTestKit"]),
        .executableTarget(name: "fleet-soak", dependencies: ["FleetTestKit", "FleetManager"]),

        .executableTarget(name: "DBusBench", dependencies: ["FleetPlatform", "FleetTestKit", "CDBus"], path: "Benchmarks/DBusBench"),
        .executableTarget(name: "IdentityBench", dependencies: ["Identity", "COpenSSL", "FleetPlatform"], path: "Benchmarks/IdentityBench"),
        .executableTarget(name: "PolicyBench", dependencies: ["Policy", "FleetPlatform"], path: "Benchmarks/PolicyBench"),
        .executableTarget(name: "FleetBench", dependencies: ["FleetManager", "FleetControl", "FleetPlatform", "FleetTestKit", "Identity"], path: "Benchmarks/FleetBench"),
        .executableTarget(name: "ControlBench", dependencies: ["FleetControl"], path: "Benchmarks/ControlBench"),
        .executableTarget(name: "SimulatorBench", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit"], path: "Benchmarks/SimulatorBench"),

        .testTarget(name: "FleetPlatformTests", dependencies: ["FleetPlatform", "FleetTestKit"]),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "FleetPlatform"]),
        .testTarget(name: "PolicyTests", dependencies: ["Policy", "FleetPlatform"]),
        .testTarget(name: "FleetManagerTests", dependencies: ["FleetManager", "FleetTestKit", "FleetControl", "Identity", "Policy"]),
        .testTarget(name: "FleetControlTests", dependencies: ["FleetControl", "FleetPlatform"]),
        .testTarget(name: "BlueZSimulatorTests", dependencies: ["BlueZSimulator", "FleetPlatform", "FleetTestKit"]),
        .testTarget(name: "FidelityTests", dependencies: ["FleetTestKit", "FleetControl", "FleetPlatform"]),
        .testTarget(name: "SoakTests", dependencies: ["FleetTestKit", "FleetManager", "BlueZSimulator", "Policy"]),
    ],
    swiftLanguageModes: [.v6]
)
