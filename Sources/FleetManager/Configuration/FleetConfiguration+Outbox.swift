import FleetStore

extension FleetConfiguration {
    /// The outbox settings the `[outbox]` section gives; the rest keep `Outbox.Configuration`'s defaults.
    public var outboxSettings: Outbox.Configuration {
        var settings = Outbox.Configuration()
        settings.commitDelay = outboxCommitDelay
        settings.retention = Outbox.Retention(maxAge: outboxMaxAge, maxRows: outboxMaxRows)
        return settings
    }
}
