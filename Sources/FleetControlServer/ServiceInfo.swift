/// What `org.varlink.service.GetInfo` reports about the service.
public struct ServiceInfo: Sendable, Equatable {
    public var vendor: String
    public var product: String
    public var version: String
    public var url: String

    public init(vendor: String = "fleetd", product: String = "fleetd", version: String, url: String = "https://github.com/fleetd/fleetd") {
        self.vendor = vendor
        self.product = product
        self.version = version
        self.url = url
    }
}
