import FleetBroker
import FleetProtocol

/// The broker link's families: link up, published, acknowledged, backlog and its age, reconnects, losses.
extension FleetMetricsText {
    static func render(broker info: BrokerLinkInfo, pump: PublishPumpStatistics, link: BrokerLinkStatus) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        family("fleetd_mqtt_connected", "gauge", "1 while a session with the MQTT broker is up.", info.state == .connected ? "1" : "0")
        family("fleetd_mqtt_published_total", "counter", "Readings published at QoS 1, republications after a lost session included.",
               String(pump.published))
        family("fleetd_mqtt_republished_total", "counter", "Readings published again after their session was lost (possible duplicates).",
               String(pump.republished))
        family("fleetd_mqtt_acknowledged_total", "counter", "Readings the broker acknowledged (PUBACK).", String(pump.acknowledged))
        family("fleetd_mqtt_refused_total", "counter", "Readings the broker refused or that cannot be published, skipped.",
               String(pump.rejected + pump.unpublishable))
        family("fleetd_mqtt_refused_for_now_total", "counter",
               "Publishes the broker refused for now (MQTT 5 quota exceeded, packet id in use, unspecified), published again.",
               String(pump.refusedForNow))
        family("fleetd_mqtt_backlog", "gauge", "Readings in the outbox the broker has not acknowledged yet.", String(info.backlog))
        family("fleetd_mqtt_oldest_unpublished_age_seconds", "gauge", "Age of the oldest reading not yet acknowledged (0: none).",
               String(info.oldestUnpublishedSeconds ?? 0))
        family("fleetd_mqtt_reconnects_total", "counter", "Broker sessions after the first.", String(link.reconnects))
        family("fleetd_mqtt_connect_failures_total", "counter", "Broker connection attempts that failed and sessions lost.",
               String(link.failedAttempts + link.losses))
        family("fleetd_mqtt_lost_total", "counter", "Readings the outbox's retention dropped before they were published.", String(info.lost))
        return out
    }
}
