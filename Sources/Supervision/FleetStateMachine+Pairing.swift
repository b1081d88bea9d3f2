import Pairing
import Policy

/// Pairing inside the supervisor: `pairing = … required` pairs before set-up; a GATT call refused for lack
/// of authentication or encryption pairs, then set-up runs again once; a Pair that fails is classified
/// (`PairingOutcome`); a bonded device that keeps failing authentication follows `re-pair`; a bond keeps
/// its device on its adapter. The driver performs Pair, CancelPairing and RemoveDevice (`.unpair`).
///
/// | situation | step |
/// | --- | --- |
/// | link up, services resolved, `required` (or a pair asked for), not bonded here | Pair, then set-up |
/// | set-up refused: `NotPermitted "Not paired"` / ATT 0x05, 0x0f, 0x0c | Pair, then set-up again, once per link |
/// | Pair answers success or `AlreadyExists` | bond recorded on this adapter; set-up |
/// | Pair: timeout, cancelled, link lost, page timeout | Disconnect; reconnect with backoff (counted) |
/// | Pair: `InProgress` | wait for `Bonded` (someone else's pairing), bounded by the pairing deadline |
/// | Pair: `AuthenticationFailed` (wrong passkey, refused confirmation) | stop: needs-pairing, operator action |
/// | bonded, reconnect fails authentication `threshold` times | `re-pair = auto`: remove the bond, pair on the next link; `manual`: needs-pairing |
extension FleetStateMachine {
    /// Takes the pairing configuration of the configured devices (at start and on reload).
    public mutating func configurePairing(_ pairing: [DeviceID: DevicePairing]) {
        self.pairing = pairing.filter { $0.value.policy.pairs }
        for id in devices.keys where devices[id]?.bond.staleBond.threshold != settings.staleBondThreshold {
            devices[id]?.bond.staleBond = StaleBondRule(threshold: settings.staleBondThreshold)
        }
    }

    /// The pairing policy of a device (`pairing = none` when it has none).
    public func pairingPolicy(of id: DeviceID) -> PairingPolicy { pairing[id]?.policy ?? PairingPolicy() }

    /// The agent's view of a Device1 path: the wanted device it is, with its policy; nil for a stranger.
    ///
    /// Issue 41, point 10: an identity read from advertisement bytes (manufacturer data `mfr-…`, service data
    /// `svc-…`) is spoofable: anyone can advertise the same bytes from another address and resolve to the same
    /// fleet device. So a device whose bond BlueZ already holds at another object is never given a passkey for a
    /// new one (`bondedAt`: refused), and a first pairing of such an identity is said loudly by the agent
    /// (`spoofableFirstPairing`). docs/configuration.md ("Which identities can be spoofed") says what to configure instead (an IRK identity).
    public func pairingCandidate(path: String) -> PairingCandidate? {
        guard let (owner, id) = owners.first(where: { $0.key.rawValue == path }), owner.rawValue == path,
              let device = devices[id], device.isWanted else { return nil }
        let bondedElsewhere = device.sightings.values.first { $0.bonded && $0.path.rawValue != path }
        let spoofable = id.rawValue.hasPrefix("mfr-") || id.rawValue.hasPrefix("svc-")
        return PairingCandidate(device: id.rawValue, policy: pairingPolicy(of: id), bondedAt: bondedElsewhere?.address,
                                spoofableFirstPairing: spoofable && bondedElsewhere == nil && device.bond.adapter == nil
                                    && !(device.sightings.values.contains { $0.bonded }))
    }

    // MARK: What BlueZ says of bonds

    /// A Device1 report's `Bonded`: the adapter holding the keys is remembered; a pairing someone else ran
    /// (`InProgress`) finishes when it shows; a bond that goes away is forgotten.
    mutating func noteBond(_ device: inout FleetDevice, report: DeviceReport, wasBonded: Bool?, now: Duration) -> [FleetAction] {
        if report.bonded {
            if device.bond.adapter == nil || device.sightings.values.allSatisfy({ !$0.bonded || $0.adapter == report.adapter }) {
                if device.bond.adapter != report.adapter { device.bond.adapter = report.adapter }
            }
            if device.phase == .pairing, device.bond.pairToken == nil, device.linkPath == report.path {
                return paired(&device, path: report.path, how: "paired (by a pairing already under way)", now: now)
            }
        } else if wasBonded == true, device.bond.adapter == report.adapter,
                  !device.sightings.values.contains(where: { $0.bonded && $0.adapter == report.adapter }) {
            device.bond.adapter = nil
            return [.persist]
        }
        return []
    }

    /// Whether `adapter` may carry a link to `device`: any adapter for an unbonded device, else only the one
    /// holding its bond unless the device may be paired again elsewhere.
    func bondAdmits(_ device: FleetDevice, through adapter: AdapterID) -> Bool {
        guard let bonded = device.bond.adapter, bonded != adapter else { return true }
        return pairing[device.id]?.rePairElsewhere ?? false
    }

    // MARK: Pairing before set-up, and after a refused GATT call

    /// Before set-up: pairs first when the device requires it (or an operator or the stale-bond policy asked)
    /// and the link's object is not bonded. Nil: go on with set-up.
    mutating func pairBeforeSetUp(_ device: inout FleetDevice, path: DevicePath, now: Duration) -> [FleetAction]? {
        let wanted = pairing[device.id]?.required == true || device.bond.pairOnNextLink
        guard wanted, device.sightings[path]?.bonded != true else { return nil }
        guard pairingPolicy(of: device.id).pairs else { return nil }
        let why = device.bond.pairOnNextLink ? "pairing was asked for" : "pairing = required"
        return startPairing(&device, path: path, why: why, retrySetUp: false, now: now)
    }

    /// After set-up failed: when the error means the link is not secure enough and the device may pair,
    /// pair then retry set-up, once per link. Nil: handle the failure as usual.
    mutating func pairAfterSecurityFailure(_ device: inout FleetDevice, path: DevicePath, error: BlueZError, now: Duration) -> [FleetAction]? {
        let alreadyRetried = device.bond.retriedOnLink != nil && device.bond.retriedOnLink == device.linkUpAt
        let step = GattSecurityFailure.step(name: error.name, message: error.message, policy: pairingPolicy(of: device.id),
                                            alreadyRetried: alreadyRetried)
        switch step {
        case .pairThenRetryOnce:
            device.connectToken = nil
            return startPairing(&device, path: path, why: "\(error.operation) needs a secure link (\(error.name): \(error.message))",
                                retrySetUp: true, now: now)
        case .fail:
            return nil
        }
    }

    mutating func startPairing(_ device: inout FleetDevice, path: DevicePath, why: String, retrySetUp: Bool, now: Duration) -> [FleetAction] {
        var actions: [FleetAction] = []
        let token = newToken()
        device.phase = .pairing
        device.bond.pairToken = token
        device.bond.retrySetUp = retrySetUp
        // Pairing has its own time (a passkey typed, SMP's 30 s); the set-up deadline starts again after it.
        setTimer(&device, .setUpDeadline, after: settings.pairingTimeout, into: &actions)
        actions.append(.event(LifecycleEvent(.pairingStarted, "pairing \(device.id) via \(path.adapter): \(why)", device: device.id,
                                             address: device.sightings[path]?.address, adapter: path.adapter,
                                             reason: retrySetUp ? "security-required" : "pair-before-set-up")))
        actions.append(.pair(device: device.id, path: path, timeout: settings.pairingTimeout, token: token))
        return actions
    }

    /// The driver's report on a `.pair` action.
    public mutating func pairFinished(device id: DeviceID, token: UInt64, error: BlueZError?, now: Duration) -> [FleetAction] {
        unsaved.insert(device: id)
        guard var device = devices[id], device.bond.pairToken == token, device.phase == .pairing, let path = device.linkPath else { return [] }
        device.bond.pairToken = nil
        var actions: [FleetAction] = []
        let verdict = error.map { PairingOutcome.classify(name: $0.name, message: $0.message) } ?? PairingOutcome.success
        if let error, error.timedOut {
            // BlueZ may still be pairing after our deadline: cancel it so the next attempt starts clean.
            actions.append(.cancelPairing(device: id, path: path))
        }
        let decision = error?.timedOut == true ? .retryWithBackoff : verdict.decision
        switch decision {
        case .paired:
            actions += paired(&device, path: path, how: verdict.code == "paired" ? "paired" : "already paired", now: now)
        case .retrySoon:
            // Someone else's pairing of this device is under way (an elevation by bluetoothd): its Bonded
            // ends the wait; the pairing deadline bounds it.
            actions.append(.event(LifecycleEvent(.pairingStarted, "\(id): \(verdict.explanation); waiting for it", device: id,
                                                 adapter: path.adapter, reason: verdict.code)))
        case .retryWithBackoff, .waitForAdapter:
            device.lastReason = "pairing failed: \(error.map { "\($0.name): \($0.message)" } ?? "?")"
            actions.append(.event(LifecycleEvent(.pairingFailed, "pairing \(id) failed: \(verdict.explanation); reconnecting with backoff",
                                                 device: id, address: device.address, adapter: path.adapter, reason: verdict.code, warning: true)))
            abandonLink(&device, path: path, into: &actions)
        case .needsOperator:
            let reason = "pairing failed (\(verdict.code)): \(verdict.explanation); fix the passkey or the device, then `fleetctl pair \(id)`"
            actions += stopForOperator(&device, reason: reason, code: verdict.code, now: now)
            actions.append(.disconnect(device: id, path: path))
        }
        devices[id] = device
        return actions + pump(now: now)
    }

    /// A pairing ended well on `path`: the bond is on this adapter, and set-up (again) follows.
    mutating func paired(_ device: inout FleetDevice, path: DevicePath, how: String, now: Duration) -> [FleetAction] {
        var actions: [FleetAction] = []
        device.bond.pairToken = nil
        device.bond.adapter = path.adapter
        device.bond.pairOnNextLink = false
        device.sightings[path]?.bonded = true
        device.phase = .connected
        if device.bond.retrySetUp { device.bond.retriedOnLink = device.linkUpAt }
        device.bond.retrySetUp = false
        setTimer(&device, .setUpDeadline, after: settings.setUpTimeout, into: &actions)
        actions.append(.event(LifecycleEvent(.paired, "\(device.id) \(how); its bond is on \(path.adapter)", device: device.id,
                                             address: device.sightings[path]?.address, adapter: path.adapter, reason: "paired")))
        actions.append(.persist)
        if device.sightings[path]?.servicesResolved == true { actions += beginSetUp(&device, now: now) }
        return actions
    }

    /// Stops the device until an operator pairs it: the phase says so, with a log line and catalog entry.
    mutating func stopForOperator(_ device: inout FleetDevice, reason: String, code: String, now: Duration) -> [FleetAction] {
        var actions: [FleetAction] = []
        clearTimer(&device, into: &actions)
        device.phase = .needsPairing(reason: reason)
        device.lastReason = reason
        device.nextRetry = nil
        device.bond.pairToken = nil
        actions.append(.event(LifecycleEvent(.needsPairing, "\(device.id) needs pairing: \(reason)", device: device.id,
                                             address: device.address, adapter: device.adapter, reason: code, warning: true)))
        actions.append(.persist)
        return actions
    }

    /// The set-up deadline while pairing: the Pair (or the pairing awaited) took too long.
    mutating func pairingDeadlinePassed(_ device: inout FleetDevice) -> [FleetAction] {
        guard device.phase == .pairing, let path = device.linkPath else { return [] }
        var actions: [FleetAction] = []
        if device.bond.pairToken != nil { actions.append(.cancelPairing(device: device.id, path: path)) }
        device.bond.pairToken = nil
        device.lastReason = "pairing did not finish within \(settings.pairingTimeout)"
        actions.append(.event(LifecycleEvent(.pairingFailed, "pairing \(device.id) did not finish within \(settings.pairingTimeout); reconnecting",
                                             device: device.id, address: device.address, adapter: path.adapter, reason: "pairing-timeout",
                                             warning: true)))
        // The deadline handler abandons links in these phases.
        device.phase = .connected
        return actions
    }

    // MARK: Stale bonds

    /// A connect of a bonded device failed: feeds the stale-bond rule. `stopped` when the device now waits
    /// for an operator (`re-pair = manual`); with `auto` the bond is removed and the next link pairs.
    mutating func staleBondCheck(_ device: inout FleetDevice, path: DevicePath, error: BlueZError, token: UInt64, now: Duration)
        -> (actions: [FleetAction], stopped: Bool) {
        guard let sighting = device.sightings[path], sighting.bonded else { return ([], false) }
        // The driver hears the Connect reply and the Connected signals apart, in either order, so the link's
        // rise may not have been applied yet. BlueZ 5.66 answers a pending Connect `br-connection-canceled`
        // only from device_remove_connection, that is when a link that came up went away: evidence enough.
        let cameUp = sighting.connected || device.bond.linkUpDuringConnect == token || error.message == "br-connection-canceled"
        device.bond.linkUpDuringConnect = nil
        device.bond.abortedConnect = nil
        if !cameUp, !error.timedOut, error.name == "org.bluez.Error.Failed", error.message == "le-connection-abort-by-local" {
            // Also what an ordinary aborted connect says: not evidence yet. On the rig (5.66) a stale bond gave this
            // reply first and Connected=true/false just after; the link's drop decides (`staleBondAfterAbort`).
            device.bond.abortedConnect = AbortedConnect(path: path, at: now)
            return ([], false)
        }
        let evidence = ReconnectEvidence(bonded: true, linkCameUp: cameUp, errorName: error.name, errorMessage: error.message)
        return feedStaleBond(&device, path: path, sighting: sighting, evidence: evidence, now: now)
    }

    /// How long after a bonded device's `le-connection-abort-by-local` (with no link seen) a link on the same
    /// path that comes up and drops counts as that connect's stale-bond evidence. The rig (BlueZ 5.66, btmon,
    /// docs/bluez-fidelity.md) showed the kernel's whole stale-bond link — Connection Complete, LTK negative
    /// reply, Encryption Change 0x06, Disconnect — within 10 ms, with bluetoothd's mgmt Device Connected and
    /// Disconnected queued behind the ATT socket's error: the signals follow the reply in the same main-loop
    /// pass. 2 s is 200 times that span, room for a bluetoothd and a driver stalled on a loaded gateway, and
    /// far shorter than a link that does any work (services resolve, set-up). A new connect ends the window
    /// earlier; counting happens once, at the drop, and the abort itself is not counted.
    public static let staleBondBlipWindow: Duration = .seconds(2)

    /// A link of a bonded device dropped: if it rose just after that path's Connect failed
    /// `le-connection-abort-by-local` (bluetoothd's reply-first order), that failure was the stale bond's.
    mutating func staleBondAfterAbort(_ device: inout FleetDevice, path: DevicePath, now: Duration) -> (actions: [FleetAction], stopped: Bool) {
        guard let aborted = device.bond.abortedConnect else { return ([], false) }
        device.bond.abortedConnect = nil
        guard aborted.path == path, now - aborted.at <= Self.staleBondBlipWindow,
              let sighting = device.sightings[path], sighting.bonded else { return ([], false) }
        let evidence = ReconnectEvidence(bonded: true, linkCameUp: true, errorName: "org.bluez.Error.Failed",
                                         errorMessage: "le-connection-abort-by-local")
        return feedStaleBond(&device, path: path, sighting: sighting, evidence: evidence, now: now)
    }

    /// Feeds one failed reconnect to the stale-bond rule and carries out its verdict.
    private mutating func feedStaleBond(_ device: inout FleetDevice, path: DevicePath, sighting: Sighting, evidence: ReconnectEvidence,
                                        now: Duration) -> (actions: [FleetAction], stopped: Bool) {
        let policy = pairingPolicy(of: device.id)
        switch device.bond.staleBond.reconnectFailed(evidence, rePair: policy.rePair) {
        case .keepTrying:
            return ([], false)
        case .removeBondAndPair where policy.pairs:
            var actions: [FleetAction] = [.event(LifecycleEvent(.staleBond,
                "\(device.id): its bond on \(path.adapter) is stale (\(device.bond.staleBond.threshold) authentication failures); re-pair = auto: removing the bond and pairing again",
                device: device.id, address: sighting.address, adapter: path.adapter, reason: "re-pair-auto", warning: true))]
            actions += unpairActions(device, reason: "stale-bond")
            device.bond.adapter = nil
            device.bond.pairOnNextLink = true
            for key in device.sightings.keys { device.sightings[key]?.bonded = false }
            return (actions, false)
        case .removeBondAndPair, .needsPairing:
            var actions: [FleetAction] = [.event(LifecycleEvent(.staleBond,
                "\(device.id): its bond on \(path.adapter) is stale (\(device.bond.staleBond.threshold) authentication failures); re-pair = manual",
                device: device.id, address: sighting.address, adapter: path.adapter, reason: "re-pair-manual", warning: true))]
            actions += stopForOperator(&device, reason: "stale bond on \(path.adapter): the device no longer accepts its keys; `fleetctl pair \(device.id)` pairs it again",
                                       code: "stale-bond", now: now)
            return (actions, true)
        }
    }

    /// The link of a bonded device came up and went down while its Connect was pending (the driver hears the
    /// signals before the failed reply, which is then stale): the same evidence as a failed reply.
    mutating func staleBondAtLinkLoss(_ device: inout FleetDevice, path: DevicePath, token: UInt64, now: Duration)
        -> (actions: [FleetAction], stopped: Bool) {
        guard device.bond.linkUpDuringConnect == token else { return ([], false) }
        let dropped = BlueZError(operation: "Connect", path: path.rawValue, name: "org.bluez.Error.Failed", message: "link dropped while connecting")
        return staleBondCheck(&device, path: path, error: dropped, token: token, now: now)
    }

    // MARK: Clearing stuck state without losing keys

    /// RemoveDevice clears a stuck object — but deletes a bonded device's keys, after which every reconnect
    /// fails authentication. A bonded (or paired) object gets Disconnect instead.
    func clearStuckState(_ device: FleetDevice, sighting: Sighting) -> [FleetAction] {
        if sighting.bonded || device.bond.adapter == sighting.adapter {
            return [.disconnect(device: device.id, path: sighting.path),
                    .event(LifecycleEvent(.staleStateCleared, "\(device.id): clearing a stuck BlueZ state with Disconnect (bonded: RemoveDevice would delete its keys)",
                                          device: device.id, adapter: sighting.adapter, reason: "disconnect-bonded"))]
        }
        return [.removeDevice(device: device.id, adapter: sighting.adapter, path: sighting.path),
                .event(LifecycleEvent(.staleStateCleared, "\(device.id): clearing a stuck BlueZ state with RemoveDevice",
                                      device: device.id, adapter: sighting.adapter, reason: "remove-device"))]
    }

    /// RemoveDevice for every bonded object of the device (and its bond adapter's object), with a log line.
    func unpairActions(_ device: FleetDevice, reason: String) -> [FleetAction] {
        var paths = device.sightings.values.filter { $0.bonded || $0.adapter == device.bond.adapter }.map(\.path)
        paths.sort()
        return paths.flatMap { path -> [FleetAction] in
            [.unpair(device: device.id, adapter: path.adapter, path: path),
             .event(LifecycleEvent(.bondRemoved, "removing the bond of \(device.id) on \(path.adapter) (\(reason))", device: device.id,
                                   address: device.sightings[path]?.address, adapter: path.adapter, reason: reason))]
        }
    }
}
