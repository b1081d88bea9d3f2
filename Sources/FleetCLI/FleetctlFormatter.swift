import FleetProtocol
import FleetSystem
import FoundationEssentials
import GATTProfiles

/// Human renderings of daemon replies: aligned tables and short sentences. Every string the daemon sends is shown
/// through `shown` (or a `TextTable` cell, which does the same): names and values come from devices.
struct FleetctlFormatter {
    var colour: Bool

    /// A string from the daemon as it may be printed: control characters escaped (`DisplayText`).
    private func shown(_ text: String) -> String { DisplayText.escaped(text) }

    func render(_ subcommand: FleetctlSubcommand, reply: VarlinkReply) throws(FleetClientError) -> String {
        do {
            return try renderChecked(subcommand, reply)
        } catch {
            throw .malformedReply(error.description)
        }
    }

    private func renderChecked(_ subcommand: FleetctlSubcommand, _ reply: VarlinkReply) throws(VarlinkError) -> String {
        switch subcommand {
        case .status: return status(try reply.parameters(as: StatusInfo.self))
        case .devices(let idsOnly):
            let devices = try reply.parameters(as: DeviceList.self).devices
            return idsOnly ? devices.map { shown($0.id) + "\n" }.joined() : deviceTable(devices)
        case .show: return detail(try reply.parameters(as: DeviceDetail.self))
        case .connect:
            let outcome = try reply.parameters(as: ConnectOutcome.self)
            var text = "\(shown(outcome.device)): \(paint(outcome.state))\n"
            if let note = outcome.note { text += shown(note) + "\n" } else if let evicted = outcome.evicted { text += "evicted \(shown(evicted))\n" }
            return text
        case .disconnect:
            let outcome = try reply.parameters(as: DisconnectOutcome.self)
            return "\(shown(outcome.device)): \(paint(outcome.state))\n"
        case .evict:
            let outcome = try reply.parameters(as: EvictOutcome.self)
            return "\(shown(outcome.device)): evicted; retrying in \(Self.duration(outcome.holdOffSeconds))\n"
        case .forget: return "\(shown(try reply.parameters(as: ForgetOutcome.self).device)): forgotten\n"
        case .setPolicy:
            let outcome = try reply.parameters(as: SetPolicyOutcome.self)
            return "\(shown(outcome.device)): policy class \(shown(outcome.policyClass))\n"
        case .read:
            // The hex stays the first line (scripts take it); what the profile decoder made of it follows.
            let outcome = try reply.parameters(as: ReadOutcome.self)
            return HexBytes.encode(outcome.value) + "\n" + (outcome.decoded.map { shown($0.summary) + "\n" } ?? "")
        case .write: return "written\n"
        case .reload: return shown(try reply.parameters(as: ReloadOutcome.self).summary) + "\n"
        case .metrics:
            let text = try reply.parameters(as: MetricsText.self).text
            return text.hasSuffix("\n") || text.isEmpty ? text : text + "\n"
        case .watch: return ""
        case .readings: return readings(try reply.parameters(as: ReadingsPage.self))
        case .records: return records(try reply.parameters(as: RecordsInfo.self))
        case .pair, .unpair:
            let outcome = try reply.parameters(as: PairingOutcomeReply.self)
            return "\(shown(outcome.device)): \(paint(outcome.state))\n\(shown(outcome.note))\n"
        }
    }

    func render(_ event: WatchEvent) -> String {
        let time = event.time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let what: String
        switch event.kind {
        case .lifecycle(let state): what = paint(state)
        case .disconnected: what = "disconnected"
        case .reconnected: what = "reconnected"
        case .notification(let characteristic, let value):
            what = "\(shown(characteristic)) = \(HexBytes.encode(value))" + (event.decoded.map { "  -> \(shown($0.summary))" } ?? "")
        }
        if let stored = event.stored {
            // A stored value: its cursor leads (what --since takes), then its device's sequence number.
            let via = stored.delivery == .notification ? "" : " (\(stored.delivery.rawValue))"
            return "\(stored.cursor)  \(time)  \(shown(event.device))  seq \(stored.deviceSequence)  \(what)\(via)\n"
        }
        return "\(event.sequence)  \(time)  \(shown(event.device))  \(what)  \(shown(event.text))\n"
    }

    private func readings(_ page: ReadingsPage) -> String {
        var text = ""
        if let lost = page.lost { text += "lost: \(lost)\n" }
        if page.readings.isEmpty {
            text += "no stored values for \(shown(page.device))\n"
        } else {
            var table = TextTable(header: ["CURSOR", "SEQ", "TIME", "CHARACTERISTIC", "VIA", "VALUE", "SESSION", "READING"])
            for reading in page.readings {
                table.rows.append([.init(String(reading.cursor)), .init(String(reading.deviceSequence)),
                                   .init(reading.time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))),
                                   .init(reading.characteristic), .init(reading.delivery.rawValue), .init(HexBytes.encode(reading.value)),
                                   .init(String(reading.session)), .init(reading.decoded?.summary ?? "-",
                                                                         colour: reading.decoded?.failure == nil ? nil : .red)])
            }
            text += table.render(colour: colour)
        }
        return text + "next: --since \(page.next)\n"
    }

    private func records(_ info: RecordsInfo) -> String {
        guard !info.services.isEmpty else { return "no record syncs for \(shown(info.device))\n" }
        var table = TextTable(header: ["SERVICE", "MARK", "ON-DEVICE", "LAST-SYNC", "OUTCOME", "DUPLICATES", "RESETS", "ASKS"])
        for service in info.services {
            let outcome = service.syncing ? "syncing" : service.lastOutcome ?? "-"
            let good = ["complete", "no-records", "syncing"].contains(outcome)
            table.rows.append([.init(service.service), .init(service.mark.map(String.init) ?? "-"),
                               .init(service.storedOnDevice.map(String.init) ?? "-"),
                               .init(service.lastSync.map { $0.formatted(Date.ISO8601FormatStyle()) } ?? "-"),
                               .init(outcome, colour: outcome == "-" ? nil : good ? .green : .yellow),
                               .init(String(service.duplicatesSuppressed)), .init(String(service.sequenceResets)),
                               .init(service.greaterOrEqualUnsupported ? "all" : "from-mark")])
        }
        return table.render(colour: colour)
    }

    private func paint(_ state: DeviceState) -> String {
        guard colour, let shade = TerminalColour.of(state) else { return state.rawValue }
        return shade.wrap(state.rawValue)
    }

    private func paint(_ state: DaemonState) -> String {
        guard colour, let shade = TerminalColour.of(state) else { return state.rawValue }
        return shade.wrap(state.rawValue)
    }

    private func status(_ status: StatusInfo) -> String {
        var text = "fleetd \(status.daemon.version)  \(paint(status.daemon.state))  up \(Self.duration(status.daemon.uptimeSeconds))\n\n"
        var adapters = TextTable(header: ["ADAPTER", "ADDRESS", "POWERED", "SLOTS"])
        for adapter in status.adapters {
            adapters.rows.append([.init(adapter.name), .init(adapter.address ?? "-"),
                                  .init(adapter.powered ? "yes" : "no", colour: adapter.powered ? nil : .red),
                                  .init("\(adapter.slotsUsed)/\(adapter.slotsCapacity)")])
        }
        text += adapters.render(colour: colour) + "\n"
        var counts = TextTable(header: ["WANTED", "READY", "BACKING-OFF", "FAILED"])
        let c = status.counts
        counts.rows.append([.init(String(c.wanted)), .init(String(c.ready), colour: .green),
                            .init(String(c.backingOff), colour: c.backingOff > 0 ? .yellow : nil),
                            .init(String(c.failed), colour: c.failed > 0 ? .red : nil)])
        text += counts.render(colour: colour)
        if let outbox = status.outbox { text += "\n" + self.outbox(outbox) }
        return text + (status.broker.map(broker) ?? "")
    }

    /// The broker link: where readings go, whether it is up, and how far publishing is behind the outbox.
    private func broker(_ link: BrokerLinkInfo) -> String {
        var table = TextTable(header: ["BROKER", "GATEWAY", "LINK", "BACKLOG", "OLDEST", "PUBLISHED", "RECONNECTS", "LOST"])
        let shade: TerminalColour? = switch link.state {
        case .connected: .green
        case .connecting: nil
        case .waiting, .stopped: .red
        }
        table.rows.append([.init(link.broker), .init(link.gateway), .init(link.state.rawValue, colour: shade),
                           .init(String(link.backlog), colour: link.backlog > 0 && link.state != .connected ? .yellow : nil),
                           .init(link.oldestUnpublishedSeconds.map(Self.duration) ?? "-"), .init(String(link.published)),
                           .init(String(link.reconnects)), .init(String(link.lost), colour: link.lost > 0 ? .red : nil)])
        var text = "\n" + table.render(colour: colour)
        if link.state != .connected, let error = link.lastError { text += "last error: \(shown(error))\n" }
        return text
    }

    private func outbox(_ outbox: OutboxStatus) -> String {
        var table = TextTable(header: ["STORED", "PENDING", "CURSOR", "COMMIT-LATENCY", "WRITTEN", "DROPPED", "WRITES"])
        let latency = outbox.commitLatencySeconds < 1 ? "\(Int((outbox.commitLatencySeconds * 1000).rounded()))ms" : Self.duration(outbox.commitLatencySeconds)
        table.rows.append([.init(String(outbox.depth)), .init(String(outbox.pending), colour: outbox.pending > 10_000 ? .yellow : nil),
                           .init(String(outbox.lastCursor)), .init(latency), .init(Self.bytes(outbox.bytesWritten)),
                           .init(String(outbox.droppedByRetention + outbox.droppedInMemory), colour: outbox.droppedInMemory > 0 ? .red : nil),
                           .init(outbox.failing ? "failing" : "ok", colour: outbox.failing ? .red : nil)])
        var text = table.render(colour: colour)
        if let error = outbox.lastError { text += "outbox writes fail: \(shown(error))\n" }
        if !outbox.consumers.isEmpty {
            var consumers = TextTable(header: ["CONSUMER", "CURSOR", "UNACKNOWLEDGED", "OLDEST-UNACKNOWLEDGED"])
            for consumer in outbox.consumers {
                consumers.rows.append([.init(consumer.name), .init(String(consumer.cursor)), .init(String(consumer.unacknowledged)),
                                       .init(consumer.lostPlace ? "lost its place" : consumer.oldestUnacknowledgedSeconds.map { Self.duration($0) + " ago" } ?? "-",
                                             colour: consumer.lostPlace ? .red : nil)])
            }
            text += "\n" + consumers.render(colour: colour)
        }
        return text
    }

    /// "812 B", "4.2 KiB", "17.0 MiB".
    static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return value.fixedPointText(fractionDigits: 1) + " " + units[unit]
    }

    private func deviceTable(_ devices: [DeviceInfo]) -> String {
        var table = TextTable(header: ["ID", "NAME", "STATE", "ADAPTER", "ADDRESS", "RSSI", "LAST-SEEN", "ATTEMPT", "FAILURES", "NEXT-RETRY", "CLASS", "BOND"])
        for device in devices {
            table.rows.append([
                .init(device.id), .init(device.displayName), .init(device.state.rawValue, colour: TerminalColour.of(device.state)),
                .init(device.adapter ?? "-"), .init(device.address ?? "-"), .init(device.rssi.map(String.init) ?? "-"),
                .init(device.lastSeenSecondsAgo.map { Self.duration($0) + " ago" } ?? "never"),
                .init(String(device.attempt)), .init(String(device.failures), colour: device.failures > 0 ? .yellow : nil),
                .init(device.nextRetryInSeconds.map { "in " + Self.duration($0) } ?? "-"),
                .init(device.policyClass), .init(device.bondAdapter ?? "-"),
            ])
        }
        return table.render(colour: colour)
    }

    private func detail(_ detail: DeviceDetail) -> String {
        let device = detail.device
        var fields: [(String, String)] = [
            ("id", device.id), ("name", device.displayName), ("state", paint(device.state)),
            ("adapter", device.adapter ?? "-"), ("address", device.address ?? "-"), ("rssi", device.rssi.map(String.init) ?? "-"),
            ("last seen", device.lastSeenSecondsAgo.map { Self.duration($0) + " ago" } ?? "never"),
            ("attempt", String(device.attempt)), ("failures", String(device.failures)), ("next retry", device.nextRetryInSeconds.map { "in " + Self.duration($0) } ?? "-"),
            ("class", device.policyClass), ("bond", device.bondAdapter.map { "on \($0)" } ?? "-"), ("identity", detail.identity ?? "-"), ("last error", detail.lastError ?? "-"),
            ("connected for", detail.connectedForSeconds.map(Self.duration) ?? "-"),
        ]
        for information in detail.deviceInformation {
            fields.append((Self.deviceInformationLabels[information.name] ?? shown(information.name), information.value))
        }
        let width = fields.map(\.0.count).max() ?? 0
        // The state is painted here, so it is the one field not escaped (its value is fleetd's own word).
        var text = fields.map { ($0.0 + ":").padding(to: width + 1) + " " + ($0.0 == "state" ? $0.1 : shown($0.1)) + "\n" }.joined()
        if !detail.characteristics.isEmpty {
            var table = TextTable(header: ["CHARACTERISTIC", "FLAGS"])
            for characteristic in detail.characteristics {
                table.rows.append([.init(characteristic.uuid), .init(characteristic.flags.joined(separator: ","))])
            }
            text += "\n" + table.render(colour: colour)
        }
        return text
    }

    /// Device Information's field names (DIS v1.1) as `fleetctl show` labels them.
    static let deviceInformationLabels = [
        "manufacturer-name": "manufacturer", "model-number": "model", "serial-number": "serial", "firmware-revision": "firmware",
        "hardware-revision": "hardware", "software-revision": "software", "system-id": "system id",
    ]

    /// "850ms", "42s", "3m05s", "2h07m", "3d04h".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        if seconds < 1 { return "\(Int(seconds * 1000))ms" }
        let whole = Int(seconds)
        if whole < 60 { return "\(whole)s" }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        if whole < 3600 { return "\(whole / 60)m\(two(whole % 60))s" }
        if whole < 86_400 { return "\(whole / 3600)h\(two(whole % 3600 / 60))m" }
        return "\(whole / 86_400)d\(two(whole % 86_400 / 3600))h"
    }
}
