import FleetPlatform
import Policy
import Supervision

/// The two ways the bus can leave fleetd without BlueZ: bluetoothd not (yet) on it, and the bus itself gone.
extension FleetSupervisor {
    /// Whether a failed start-up read of BlueZ's tree means bluetoothd is not on the bus (not started yet,
    /// masked, or its activation failed) rather than a broken bluetoothd: then fleetd waits for the name.
    static func meansBlueZAbsent(_ error: BlueZError) -> Bool {
        error.name == "org.freedesktop.DBus.Error.ServiceUnknown" || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner"
            || error.name.hasPrefix("org.freedesktop.DBus.Error.Spawn.") || error.name.hasPrefix("org.freedesktop.systemd1.")
    }

    /// Start-up found no bluetoothd: fleetd becomes ready anyway (the control socket answers, systemd stops
    /// waiting) and adopts BlueZ's tree when `org.bluez` appears (NameOwnerChanged, already subscribed).
    func bluezAbsentAtStart(_ error: BlueZError) {
        bluezOnBus = false
        logger.warning("org.bluez is not on the bus (\(error.name)); waiting for bluetoothd to appear",
                       id: FleetMessageID.waitingForBlueZ.rawValue, metadata: ["reason": error.name])
    }

    /// The event stream ended while fleetd was not stopping: the bus connection is gone (dbus-daemon
    /// restarted or died). Nothing can reach BlueZ any more, so the watchdog stops being fed and the
    /// supervisor's service fails; fleetd exits non-zero and systemd's Restart= brings it back on a new bus.
    func eventsEnded() {
        guard !stopping, !busLost else { return }
        busLost = true
        logger.critical("lost the D-Bus system bus; exiting so that systemd restarts fleetd on a new connection",
                        id: FleetMessageID.busLost.rawValue, metadata: ["reason": "bus-lost"])
        notifier.status("lost the D-Bus system bus")
        for waiter in busLostWaiters.values { waiter.resume() }
        busLostWaiters.removeAll()
        releaseArrivalWaiters()
    }

    /// Returns when the bus is lost (at once if it already was); throws `CancellationError` when the waiting
    /// task is cancelled (the service races this against graceful shutdown).
    public func untilBusLost() async throws {
        if busLost { return }
        let id = nextBusLostWaiter
        nextBusLostWaiter += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                busLostWaiters[id] = continuation
            }
        } onCancel: {
            Task { await self.cancelBusLostWaiter(id) }
        }
    }

    private func cancelBusLostWaiter(_ id: Int) {
        busLostWaiters.removeValue(forKey: id)?.resume(throwing: CancellationError())
    }
}

/// The supervisor's service failed because the system bus went away.
public struct BusLostError: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "lost the D-Bus system bus" }
}
