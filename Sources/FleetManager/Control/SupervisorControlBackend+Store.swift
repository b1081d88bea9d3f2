import FleetControlServer
import FleetProtocol
import FleetStore
import FoundationEssentials
import GATTProfiles
import Supervision

/// The stored-value methods (durable Watch, Acknowledge, Readings), answered from the supervisor's outbox.
extension SupervisorControlBackend {
    var outbox: Outbox {
        get throws(FleetControlError) {
            guard let outbox = supervisor.readings?.outbox else {
                throw .storeUnavailable(reason: "the outbox could not be opened at start (see fleetd's log); values are not stored")
            }
            return outbox
        }
    }

    public func watchStored(_ reference: String?, since: Int64?, consumer: String?) async throws -> AsyncThrowingStream<WatchEvent, any Error> {
        let outbox = try outbox
        if let consumer, !Outbox.isValidConsumerName(consumer) { throw FleetControlError.invalidParameter("consumer") }
        var filter: DeviceFilter?
        if let reference { filter = DeviceFilter(device: try await supervisor.showDevice(reference).device.id) }
        // A consumer never seen starts at the oldest stored value: it has no place it could have lost.
        let start = since ?? consumer.flatMap(outbox.cursor(of:)) ?? outbox.droppedThroughID
        let source = StoredEventSource(iterator: outbox.follow(after: start, device: filter).makeAsyncIterator(), consumer: consumer,
                                       decoder: supervisor.rawProfileDevices.decoder())
        return AsyncThrowingStream(unfolding: { try await source.next() })
    }

    public func acknowledge(consumer: String, cursor: Int64) async throws -> Int64 {
        let outbox = try outbox
        do throws(OutboxError) {
            return try outbox.acknowledge(consumer: consumer, upTo: cursor)
        } catch {
            switch error {
            case .invalidConsumerName: throw FleetControlError.invalidParameter("consumer")
            case .acknowledgementBeyondCommitted: throw FleetControlError.invalidParameter("cursor")
            default: throw FleetControlError.failed("acknowledging for consumer \(consumer) failed: \(error)")
            }
        }
    }

    public func readings(_ reference: String, since: Int64?, limit: Int) async throws -> ReadingsPage {
        let outbox = try outbox
        let device = try await supervisor.showDevice(reference).device.id
        let page: ReplayPage
        do throws(OutboxError) {
            if let since {
                page = try await outbox.page(after: since, limit: limit, device: DeviceFilter(device: device))
            } else {
                page = try await outbox.newest(device: device, limit: limit)
            }
        } catch {
            throw FleetControlError.failed("reading the outbox failed: \(error)")
        }
        // Decoded in cursor order so that a value derived from its predecessor (CSC speed) has it when both are on
        // the page; the page's first value has none, as a Watch's first has none.
        var decoder = supervisor.rawProfileDevices.decoder()
        let readings = page.readings.map { stored in
            StoredReadingInfo(stored, decoded: decoder.decode(device: stored.reading.device, characteristic: stored.reading.characteristic,
                                                              value: stored.reading.value))
        }
        return ReadingsPage(device: device, readings: readings, next: page.next,
                            lost: page.lost.map { LostReadings(firstCursor: $0.firstID, lastCursor: $0.lastID) })
    }

    public func records(_ reference: String) async throws -> RecordsInfo {
        let outbox = try outbox
        let device = try await supervisor.showDevice(reference).device.id
        let syncing = await supervisor.recordSyncService(of: DeviceID(device))
        let services = outbox.recordMarks(device: device).map { row in
            let name = StoredRecordService.all.first { $0.service.rawValue == row.service }?.name ?? "service-\(row.service)"
            return RecordServiceInfo(service: name, mark: row.markKey.map(Int.init), storedOnDevice: row.storedOnDevice,
                                     lastSync: row.lastSyncWallNanoseconds.map { Date(timeIntervalSince1970: Double($0) / 1e9) },
                                     lastOutcome: row.lastOutcome, duplicatesSuppressed: row.duplicatesSuppressed,
                                     sequenceResets: row.sequenceResets, greaterOrEqualUnsupported: row.greaterOrEqualUnsupported,
                                     syncing: syncing == row.service)
        }
        return RecordsInfo(device: device, services: services)
    }
}

/// Pulls a follower one event at a time, so a slow client holds back the replay instead of letting it buffer:
/// the server asks for the next event only when the client has room for it.
private final class StoredEventSource: @unchecked Sendable {
    // @unchecked: AsyncThrowingStream(unfolding:) never calls `next` concurrently.
    private var iterator: OutboxFollower.Iterator
    private var held: [StoredReading] = []
    private let consumer: String?
    private var decoder: ObservationDecoder

    init(iterator: OutboxFollower.Iterator, consumer: String?, decoder: ObservationDecoder) {
        self.iterator = iterator
        self.consumer = consumer
        self.decoder = decoder
    }

    func next() async throws -> WatchEvent? {
        while held.isEmpty {
            let event: OutboxFollowEvent?
            do {
                event = try await iterator.next()
            } catch {
                throw FleetControlError.failed("reading the outbox failed: \(error)")
            }
            switch event {
            case nil: return nil
            case .lost(let gap)?:
                throw FleetControlError.lostPlace(consumer: consumer, lost: LostReadings(firstCursor: gap.firstID, lastCursor: gap.lastID))
            case .readings(let readings)?:
                held = readings.reversed()
            }
        }
        let stored = held.removeLast()
        let reading = stored.reading
        return WatchEvent(stored, decoded: decoder.decode(device: reading.device, characteristic: reading.characteristic, value: reading.value))
    }
}

extension StoredReadingInfo {
    init(_ stored: StoredReading, decoded: DecodedValue?) {
        self.init(cursor: stored.id, deviceSequence: stored.seq, epoch: stored.epoch, characteristic: stored.reading.characteristic,
                  delivery: ValueDelivery(stored.reading.kind), value: stored.reading.value,
                  time: Date(timeIntervalSince1970: Double(stored.reading.wallNanoseconds) / 1e9), session: stored.reading.session,
                  decoded: decoded)
    }
}

extension ValueDelivery {
    init(_ kind: ReadingKind) {
        switch kind {
        case .notification: self = .notification
        case .indication: self = .indication
        case .read: self = .read
        }
    }
}

extension WatchEvent {
    /// A stored value as a Watch event: its cursor is also the stream's sequence.
    init(_ stored: StoredReading, decoded: DecodedValue?) {
        let reading = stored.reading
        self.init(sequence: Int(stored.id), time: Date(timeIntervalSince1970: Double(reading.wallNanoseconds) / 1e9), device: reading.device,
                  kind: .notification(characteristic: reading.characteristic, value: reading.value),
                  text: "\(reading.kind.rawValue) #\(stored.seq) of \(reading.characteristic)",
                  stored: StoredPlace(cursor: stored.id, deviceSequence: stored.seq, epoch: stored.epoch, session: reading.session, delivery: ValueDelivery(reading.kind)),
                  decoded: decoded)
    }
}
