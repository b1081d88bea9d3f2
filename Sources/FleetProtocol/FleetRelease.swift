/// The release both ends of the control socket belong to: fleetd reports it in `GetInfo` and `Status`,
/// fleetctl prints it for `--version`. One place, so the two can never disagree.
public enum FleetRelease {
    public static let version = "0.1.0"
}
