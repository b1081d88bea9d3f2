import Supervision
import FleetProtocol

/// Prometheus text exposition (format 0.0.4) of the fleet: devices by state, links per adapter, connect
/// attempts and failures, evictions by reason, reconnect latency and notifications received.
enum FleetMetricsText {
    /// `value` with the label-value escapes of the text format (backslash, double quote, line feed), by
    /// scalar: a "\r\n" keeps its "\r" and has its "\n" escaped.
    static func labelValue(_ value: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: #"\\"#.unicodeScalars)
            case "\"": escaped.append(contentsOf: #"\""#.unicodeScalars)
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    static func render(machine: FleetStateMachine, metrics: FleetMetrics, feed: EventFeed) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func escape(_ value: String) -> String { labelValue(value) }
        family("fleetd_devices", "gauge", "Wanted fleet devices by state.")
        // Labelled with the control interface's state names, so a dashboard and fleetctl say the same thing.
        var byState: [String: Int] = [:]
        for state in DeviceState.allCases { byState[state.rawValue] = 0 }
        for device in machine.devices.values { byState[DeviceState(device.phase).rawValue, default: 0] += 1 }
        for (state, count) in byState.sorted(by: { $0.key < $1.key }) { out += "fleetd_devices{state=\"\(state)\"} \(count)\n" }
        family("fleetd_adapter_links", "gauge", "Links held per adapter (connects in flight included).")
        family("fleetd_adapter_capacity", "gauge", "Connection pool capacity per adapter (learned capacity included).")
        for adapter in machine.adapters.values.sorted(by: { $0.id < $1.id }) {
            out += "fleetd_adapter_links{adapter=\"\(adapter.name)\"} \(adapter.slots.occupied)\n"
            out += "fleetd_adapter_capacity{adapter=\"\(adapter.name)\"} \(adapter.slots.capacity)\n"
        }
        let state = metrics.state.withLock { $0 }
        family("fleetd_connect_attempts_total", "counter", "Connect attempts by policy class.")
        for (key, value) in state.attempts.sorted(by: { $0.key < $1.key }) { out += "fleetd_connect_attempts_total{class=\"\(escape(key))\"} \(value)\n" }
        family("fleetd_connect_failures_total", "counter", "Connect failures by error class.")
        for (key, value) in state.failures.sorted(by: { $0.key < $1.key }) { out += "fleetd_connect_failures_total{error_class=\"\(escape(key))\"} \(value)\n" }
        family("fleetd_evictions_total", "counter", "Evictions by reason code.")
        for (key, value) in state.evictions.sorted(by: { $0.key < $1.key }) { out += "fleetd_evictions_total{reason=\"\(escape(key))\"} \(value)\n" }
        family("fleetd_state_write_failures_total", "counter", "Failed writes of the fleet's state to the store (each retried).")
        out += "fleetd_state_write_failures_total \(state.stateWriteFailures)\n"
        family("fleetd_state_write_failing", "gauge", "1 while the last write of the fleet's state failed (a full disk).")
        out += "fleetd_state_write_failing \(state.stateWriteFailing ? 1 : 0)\n"
        family("fleetd_reconnect_latency_seconds", "histogram", "Time from a link loss to the link being up again.")
        for bucket in FleetMetrics.buckets {
            out += "fleetd_reconnect_latency_seconds_bucket{le=\"\(bucket)\"} \(state.latencyBuckets[bucket] ?? 0)\n"
        }
        out += "fleetd_reconnect_latency_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)\n"
        out += "fleetd_reconnect_latency_seconds_sum \(state.latencySum)\n"
        out += "fleetd_reconnect_latency_seconds_count \(state.latencyCount)\n"
        family("fleetd_record_syncs_total", "counter", "RACP record syncs by how they ended (docs/records.md).")
        for (key, value) in state.recordSyncs.sorted(by: { $0.key < $1.key }) { out += "fleetd_record_syncs_total{outcome=\"\(escape(key))\"} \(value)\n" }
        family("fleetd_records_received_total", "counter", "Records received by RACP syncs (duplicates included; see fleetd_record_duplicates_suppressed_total).")
        out += "fleetd_records_received_total \(state.recordsReceived)\n"
        family("fleetd_record_sequence_resets_total", "counter", "Syncs that found a device numbering its records from scratch.")
        out += "fleetd_record_sequence_resets_total \(state.sequenceResets)\n"
        family("fleetd_notifications_received_total", "counter", "Notification values received from subscribed characteristics.")
        out += "fleetd_notifications_received_total \(feed.notificationsReceived)\n"
        family("fleetd_bluez_events_total", "counter", "BlueZ signals handled by the supervisor (adverts, property and object changes, notifications).")
        out += "fleetd_bluez_events_total \(metrics.bluezEvents.load(ordering: .relaxed))\n"
        return out
    }
}
