extension IdentityResolver {
    /// How long the resolver remembers addresses, and how many.
    public struct CachePolicy: Hashable, Sendable, Codable {
        /// How long an address keeps the identity a rule gave it after its last sighting. Devices rotate
        /// RPAs about every 15 minutes, so a longer lifetime buys nothing.
        public var addressLifetime: Duration
        /// How long an address that matched no rule (typically a stranger's RPA) is not retried against the
        /// IRKs. Its answer cannot change until the rules do, and a rule change clears this cache.
        public var negativeLifetime: Duration
        /// The most addresses each cache holds; strangers' addresses live in the negative cache, so a busy
        /// waiting room cannot evict the fleet's own entries.
        public var capacity: Int

        public init(addressLifetime: Duration = .seconds(900), negativeLifetime: Duration = .seconds(900), capacity: Int = 4096) {
            self.addressLifetime = addressLifetime
            self.negativeLifetime = negativeLifetime
            self.capacity = capacity
        }

        public static let standard = CachePolicy()
    }

    /// Counters for the daemon's status output and for tests that check the caches do their job.
    public struct Statistics: Hashable, Sendable, Codable {
        /// Observations resolved.
        public var resolutions = 0
        /// Addresses tried against the whole IRK list (each costs one AES block per key).
        public var keyScans = 0
        /// Observations answered from the address or negative cache.
        public var cacheHits = 0
    }
}
