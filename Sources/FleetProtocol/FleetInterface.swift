/// The `io.fleetd.Fleet` varlink interface: its name, where it is served, its methods, and which only read.
public enum FleetInterface {
    /// The interface name on the wire.
    public static let name = "io.fleetd.Fleet"

    /// Where fleetd serves the interface unless told otherwise (fleetd.conf `control-socket`, fleetctl `--socket`).
    public static let defaultSocketPath = "/run/fleetd/io.fleetd.sock"

    /// Method names of `io.fleetd.Fleet`, as declared in `definition`.
    public enum Method: String, CaseIterable, Sendable {
        case status = "Status"
        case listDevices = "ListDevices"
        case showDevice = "ShowDevice"
        case connect = "Connect"
        case disconnect = "Disconnect"
        case evict = "Evict"
        case forget = "Forget"
        case setPolicy = "SetPolicy"
        case read = "Read"
        case write = "Write"
        case watch = "Watch"
        case reload = "Reload"
        case metrics = "Metrics"
        case acknowledge = "Acknowledge"
        case readings = "Readings"
        case pair = "Pair"
        case unpair = "Unpair"
        case records = "Records"

        /// The fully qualified name, e.g. `io.fleetd.Fleet.Status`.
        public var qualifiedName: String { FleetInterface.name + "." + rawValue }

        /// True for methods anyone who can reach the socket may call.
        public var isReadOnly: Bool {
            switch self {
            case .status, .listDevices, .showDevice, .watch, .metrics, .readings, .records: return true
            // Acknowledge moves a cursor other clients may depend on: a mutation.
            case .connect, .disconnect, .evict, .forget, .setPolicy, .read, .write, .reload, .acknowledge, .pair, .unpair: return false
            }
        }
    }
}
