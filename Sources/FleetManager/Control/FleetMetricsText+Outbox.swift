import FleetProtocol
import FleetStore
import FoundationEssentials

/// The outbox's families: depth, committed id, commit latency, bytes written, drops and the last error.
extension FleetMetricsText {
    static func render(outbox stats: OutboxStats, wallNow: Date) -> String {
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
        family("fleetd_outbox_commit_latency_mean_seconds", "gauge", "Mean commit latency since start.", seconds(stats.meanCommitLatency))
        family("fleetd_outbox_stored_bytes", "gauge", "Estimated size of the stored readings (what retention by bytes counts).",
               String(stats.storedBytes))
        family("fleetd_outbox_commits_total", "counter", "Outbox transactions committed.", String(stats.commits))
        family("fleetd_outbox_failed_commits_total", "counter", "Outbox commits that failed and were retried.", String(stats.failedCommits))
        family("fleetd_outbox_bytes_written_total", "counter", "Bytes of WAL frames the outbox wrote.", String(stats.bytesWritten))
        family("fleetd_outbox_dropped_retention_total", "counter", "Readings dropped by retention (oldest first).",
               String(stats.droppedByRetention))
        family("fleetd_outbox_dropped_memory_total", "counter", "Readings discarded from memory before their commit.",
               String(stats.droppedInMemory))
        family("fleetd_record_duplicates_suppressed_total", "counter", "Stored records not stored again: the outbox held them already (docs/records.md).",
               String(stats.duplicatesSuppressed))
        family("fleetd_record_marks_discarded_total", "counter", "Record marks not written because a reading of their sync was discarded from memory.",
               String(stats.markChangesDiscarded))
        family("fleetd_outbox_failing", "gauge", "1 while outbox commits fail.", stats.failing ? "1" : "0")
        family("fleetd_outbox_last_error_timestamp_seconds", "gauge", "Wall time of the last outbox storage error (0: none).",
               String(Double(stats.lastErrorWallNanoseconds ?? 0) / 1e9))
        if let error = stats.lastError {
            out += "# HELP fleetd_outbox_last_error_info The last outbox storage error.\n# TYPE fleetd_outbox_last_error_info gauge\n"
            out += "fleetd_outbox_last_error_info{code=\"\(error.code)\"} 1\n"
        }
        out += "# HELP fleetd_outbox_consumer_unacknowledged Committed readings a named consumer has not acknowledged.\n"
        out += "# TYPE fleetd_outbox_consumer_unacknowledged gauge\n"
        func label(_ name: String) -> String { labelValue(name) }
        for consumer in stats.consumers {
            out += "fleetd_outbox_consumer_unacknowledged{consumer=\"\(label(consumer.name))\"} \(consumer.unacknowledged)\n"
        }
        out += "# HELP fleetd_outbox_consumer_oldest_unacknowledged_age_seconds Age of the oldest stored reading a named consumer has not acknowledged (0: up to date).\n"
        out += "# TYPE fleetd_outbox_consumer_oldest_unacknowledged_age_seconds gauge\n"
        for consumer in stats.consumers {
            let age = OutboxStatus.age(consumer.oldestUnacknowledgedWallNanoseconds, wallNow: wallNow) ?? 0
            out += "fleetd_outbox_consumer_oldest_unacknowledged_age_seconds{consumer=\"\(label(consumer.name))\"} \(age)\n"
        }
        out += "# HELP fleetd_outbox_consumer_lost_place 1 when retention dropped readings a named consumer had not acknowledged.\n"
        out += "# TYPE fleetd_outbox_consumer_lost_place gauge\n"
        for consumer in stats.consumers {
            out += "fleetd_outbox_consumer_lost_place{consumer=\"\(label(consumer.name))\"} \(consumer.lostPlace ? 1 : 0)\n"
        }
        return out
    }
}

extension OutboxStatus {
    /// The outbox's figures as `Status` sends them.
    init(_ stats: OutboxStats, wallNow: Date) {
        let (seconds, attoseconds) = stats.lastCommitLatency.components
        self.init(depth: stats.depth, pending: stats.pending, lastCursor: stats.lastCommittedID,
                  commitLatencySeconds: Double(seconds) + Double(attoseconds) / 1e18, bytesWritten: stats.bytesWritten,
                  droppedByRetention: Int64(clamping: stats.droppedByRetention), droppedInMemory: Int64(clamping: stats.droppedInMemory),
                  failing: stats.failing, lastError: stats.failing ? stats.lastError.map { "\($0)" } : nil,
                  consumers: stats.consumers.map { consumer in
                      ConsumerStatus(name: consumer.name, cursor: consumer.cursor, unacknowledged: consumer.unacknowledged,
                                     oldestUnacknowledgedSeconds: Self.age(consumer.oldestUnacknowledgedWallNanoseconds, wallNow: wallNow),
                                     lostPlace: consumer.lostPlace)
                  })
    }

    /// Seconds from a stored wall time to now, never negative (the wall clock may have stepped back).
    static func age(_ wallNanoseconds: Int64?, wallNow: Date) -> Double? {
        wallNanoseconds.map { max(0, wallNow.timeIntervalSince1970 - Double($0) / 1e9) }
    }
}
