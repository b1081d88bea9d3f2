import FleetPlatform
import FleetStore
import FoundationEssentials
import GATTProfiles
import Policy
import Supervision

/// Driving the RACP sync of a glucose meter or CGM on each link (docs/records.md): the procedure is the pure
/// `RecordSync`; here its writes, timers and marks are performed and the device's answers fed back. The records
/// themselves come as notifications and go to the outbox like every value (keyed, so a record sent twice is stored
/// once) before the sync hears of them, which is what lets a mark follow the records it claims.
extension FleetSupervisor {
    /// After a set-up that armed the RACP's indications (``ProfileArming``): the sync starts.
    func startRecordSync(device: DeviceID, armed: [String]) {
        guard let outbox = readings?.outbox, let link = machine.devices[device]?.linkPath else { return }
        let characteristics = tree.characteristics(of: link)
        guard let (service, controlPoint) = RecordSyncPlan.offered(characteristics), armed.contains(controlPoint.uuid) else { return }
        endRecordSync(device, because: "a new link")
        recordSyncGeneration += 1
        let memory = outbox.recordMark(device: device.rawValue, service: service.service.rawValue).map(RecordSyncMemory.init) ?? RecordSyncMemory()
        var run = RecordSyncRun(device: device, link: link, generation: recordSyncGeneration, service: service, controlPoint: controlPoint,
                                sync: RecordSync(service: service, memory: memory, deleteAfterSync: recordSyncDeletes),
                                droppedBaseline: outbox.droppedInMemoryCount, started: now())
        let actions = run.sync.start(now: now())
        recordSyncs[device] = run
        let from = memory.mark.map { "records from \($0.key) on (the mark's own as its anchor)" } ?? "all records"
        announceRecordSync(device, .recordSyncStarted, "\(service.name) record sync started: asking for \(from)",
                           metadata: ["service": service.name, "mark": memory.mark.map { String($0.key) } ?? ""])
        performRecordSync(device, generation: run.generation, actions)
    }

    /// The service whose sync runs on `device`'s link now (its SIG number), if one does.
    public func recordSyncService(of device: DeviceID) -> UInt16? { recordSyncs[device]?.service.service.rawValue }

    /// A value on a characteristic of `device`'s link while its sync runs: the RACP's answer, or a record (already
    /// in the outbox). True when the value was the RACP's, which is not a reading.
    func recordSyncHeard(_ device: DeviceID, characteristic: CharacteristicObject, _ bytes: [UInt8]) -> Bool {
        guard var run = recordSyncs[device], run.link.rawValue == characteristic.device else {
            return AssignedNumber(uuid: characteristic.uuid) == RecordSyncPlan.controlPoint
        }
        let actions: [RecordSyncAction]
        let isControlPoint = characteristic.path == run.controlPoint.path
        if isControlPoint {
            actions = run.sync.controlPointIndicated(bytes, now: now())
        } else if let number = AssignedNumber(uuid: characteristic.uuid), number == run.service.measurement || number == run.service.context {
            actions = run.sync.recordNotified(bytes, on: number, now: now())
        } else {
            return false
        }
        recordSyncs[device] = run
        performRecordSync(device, generation: run.generation, actions)
        return isControlPoint
    }

    /// The link a sync runs on went down (or its device object went away).
    func recordSyncLinkLost(_ path: DevicePath) {
        guard let run = recordSyncs.values.first(where: { $0.link == path }) else { return }
        advanceRecordSync(run.device, generation: run.generation) { $0.linkLost(now: $1) }
    }

    /// Ends a running sync without a link event (a new link, shutdown): it counts as the link lost.
    func endRecordSync(_ device: DeviceID, because reason: String) {
        guard let run = recordSyncs[device] else { return }
        logger.debug("\(device): record sync ended by \(reason)")
        advanceRecordSync(device, generation: run.generation) { $0.linkLost(now: $1) }
    }

    private func advanceRecordSync(_ device: DeviceID, generation: UInt64, _ step: (inout RecordSync, Duration) -> [RecordSyncAction]) {
        guard var run = recordSyncs[device], run.generation == generation else { return }
        let actions = step(&run.sync, now())
        recordSyncs[device] = run
        performRecordSync(device, generation: generation, actions)
    }

    private func performRecordSync(_ device: DeviceID, generation: UInt64, _ actions: [RecordSyncAction]) {
        for action in actions {
            guard let run = recordSyncs[device], run.generation == generation else { return }
            switch action {
            case .write(let request):
                let client = self.client, path = run.controlPoint.path, mtu = run.controlPoint.mtu, outbox = readings?.outbox
                Task { [weak self] in
                    if case .deleteStoredRecords = request, let outbox {
                        // The device's copy goes only once the outbox's is on disk (`racp-delete`, docs/records.md).
                        do throws(OutboxError) { try await outbox.flush() } catch {
                            await self?.advanceRecordSync(device, generation: generation) {
                                $0.writeFailed(name: "io.fleetd.Error.RecordsNotCommitted", message: "nothing deleted: the outbox did not commit the records (\(error))", now: $1)
                            }
                            return
                        }
                    }
                    do throws(BlueZError) {
                        try await client.write(characteristic: path, value: request.bytes, withResponse: true, mtu: mtu)
                    } catch {
                        await self?.advanceRecordSync(device, generation: generation) { $0.writeFailed(name: error.name, message: error.message, now: $1) }
                    }
                }
            case .armControlPointIndications:
                // StartNotify alone would not write the CCCD again while BlueZ counts the session as notifying.
                let client = self.client, path = run.controlPoint.path
                Task { [weak self] in
                    try? await client.stopNotify(characteristic: path)
                    do throws(BlueZError) {
                        try await client.startNotify(characteristic: path)
                        await self?.advanceRecordSync(device, generation: generation) { $0.indicationsArmed(now: $1) }
                    } catch {
                        await self?.advanceRecordSync(device, generation: generation) { $0.writeFailed(name: error.name, message: error.message, now: $1) }
                    }
                }
            case .startTimer(let timer, let delay):
                recordSyncs[device]?.timers[timer]?.cancel()
                let clock = self.clock, deadline = clock.now() + delay
                recordSyncs[device]?.timers[timer] = Task { [weak self] in
                    do { try await clock.sleep(until: deadline) } catch { return }
                    await self?.recordSyncTimerFired(device, generation: generation, timer)
                }
            case .cancelTimer(let timer):
                recordSyncs[device]?.timers.removeValue(forKey: timer)?.cancel()
            case .markReached(let mark):
                guard let outbox = readings?.outbox else { continue }
                var row = outbox.recordMark(device: device.rawValue, service: run.service.service.rawValue)
                    ?? DeviceRecordMark(device: device.rawValue, service: run.service.service.rawValue)
                row.markKey = mark.key
                row.anchor = mark.anchor
                outbox.saveRecordMark(row, unlessDroppedSince: run.droppedBaseline)
            case .finished(let outcome):
                run.cancelTimers()
                recordSyncs[device] = nil
                recordSyncFinished(run, outcome)
            }
        }
    }

    private func recordSyncTimerFired(_ device: DeviceID, generation: UInt64, _ timer: RecordSyncTimer) {
        guard recordSyncs[device]?.generation == generation, recordSyncs[device]?.timers.removeValue(forKey: timer) != nil else { return }
        advanceRecordSync(device, generation: generation) { $0.timerFired(timer, now: $1) }
    }

    private func recordSyncFinished(_ run: RecordSyncRun, _ outcome: RecordSyncOutcome) {
        let service = run.service.service.rawValue
        if let outbox = readings?.outbox {
            var row = outbox.recordMark(device: run.device.rawValue, service: service) ?? DeviceRecordMark(device: run.device.rawValue, service: service)
            row.markKey = outcome.mark?.key
            row.anchor = outcome.mark?.anchor
            row.storedOnDevice = outcome.memory.storedOnDevice
            row.greaterOrEqualUnsupported = outcome.greaterOrEqualUnsupported
            row.lastSyncWallNanoseconds = Int64((clock.wallNow().timeIntervalSince1970 * 1e9).rounded())
            row.lastOutcome = outcome.result.description
            if outcome.sequenceReset { row.sequenceResets += 1 }
            outbox.saveRecordMark(row, unlessDroppedSince: run.droppedBaseline)
        }
        metrics.recordSync(result: outcome.result.description, received: outcome.received, sequenceReset: outcome.sequenceReset)
        let mark = outcome.mark.map { "mark \($0.key)" } ?? "no mark"
        let held = outcome.storedOnDevice.map { ", \($0) on the device" } ?? ""
        let reset = outcome.sequenceReset ? "; the device numbered its records from scratch (memory cleared or battery changed): fetched in full and matched by content" : ""
        let text = "\(run.service.name) record sync \(outcome.result): \(outcome.received) record(s) received\(held), \(mark)\(reset)"
        var metadata = ["service": run.service.name, "outcome": outcome.result.description, "received": String(outcome.received),
                        "mark": outcome.mark.map { String($0.key) } ?? ""]
        if outcome.malformedAnswers > 0 { metadata["malformed_answers"] = String(outcome.malformedAnswers) }
        if outcome.sequenceReset { metadata["reason"] = "sequence-reset" }
        announceRecordSync(run.device, .recordSyncEnded, text, metadata: metadata, warning: !outcome.result.isSuccess || outcome.sequenceReset)
    }

    private func announceRecordSync(_ device: DeviceID, _ id: FleetMessageID, _ text: String, metadata: [String: String], warning: Bool = false) {
        var fields = metadata
        fields["device"] = device.rawValue
        logger.log(warning ? .warning : .info, "\(device): \(text)", id: id.rawValue, metadata: fields)
        feed.publish(device: device, kind: .lifecycle(id, phase: machine.devices[device]?.phase ?? .unknown), text: text)
    }
}
