import FleetStore

/// The outbox's families: depth, committed id, commit latency, bytes written, drops and the last error.
extension FleetMetricsText {
    static func render(outbox stats: OutboxStats) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        func seconds(_ d: Duration) -> String {
            let (s, attos) = d.components
            return String(Double(s) + Double(attos) / 1e18)
        }
        family("fleetd_outbox_depth", "gauge", "Readings stored in the outbox.", String(stats.depth))
        family("fleetd_outbox_pending", "gauge", "Readings in memory waiting for their commit.", String(stats.pending))
        family("fleetd_outbox_committed_id", "gauge", "Cursor (global id) of the newest committed reading.", String(stats.lastCommittedID))
        family("fleetd_outbox_commit_latency_seconds", "gauge", "Append of a batch's oldest reading to its commit, last batch.",
               seconds(stats.lastCommitLatency))
        family("fleetd_outbox_commit_latency_max_seconds", "gauge", "Longest commit latency since start.", seconds(stats.maxCommitLatency))
        family("fleetd_outbox_commits_total", "counter", "Outbox transactions committed.", String(stats.commits))
        family("fleetd_outbox_failed_commits_total", "counter", "Outbox commits that failed and were retried.", String(stats.failedCommits))
        family("fleetd_outbox_bytes_written_total", "counter", "Bytes of WAL frames the outbox wrote.", String(stats.bytesWritten))
        family("fleetd_outbox_dropped_retention_total", "counter", "Readings dropped by retention (oldest first).",
               String(stats.droppedByRetention))
        family("fleetd_outbox_dropped_memory_total", "counter", "Readings discarded from memory before their commit.",
               String(stats.droppedInMemory))
        family("fleetd_outbox_failing", "gauge", "1 while outbox commits fail.", stats.failing ? "1" : "0")
        family("fleetd_outbox_last_error_timestamp_seconds", "gauge", "Wall time of the last outbox storage error (0: none).",
               String(Double(stats.lastErrorWallNanoseconds ?? 0) / 1e9))
        if let error = stats.lastError {
            out += "# HELP fleetd_outbox_last_error_info The last outbox storage error.\n# TYPE fleetd_outbox_last_error_info gauge\n"
            out += "fleetd_outbox_last_error_info{code=\"\(error.code)\"} 1\n"
        }
        out += "# HELP fleetd_outbox_consumer_unacknowledged Committed readings a named consumer has not acknowledged.\n"
        out += "# TYPE fleetd_outbox_consumer_unacknowledged gauge\n"
        for consumer in stats.consumers {
            let name = consumer.name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            out += "fleetd_outbox_consumer_unacknowledged{consumer=\"\(name)\"} \(consumer.unacknowledged)\n"
        }
        return out
    }
}
