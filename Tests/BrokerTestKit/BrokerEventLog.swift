import FleetBroker
import FleetTestKit

/// Records every event of a ``BrokerConnection`` from the moment it is made, for tests to wait on.
public final class BrokerEventLog: Sendable {
    private let recorded = Recorded<BrokerEvent>()
    public let observation: BrokerObservation

    public init(_ connection: BrokerConnection) {
        observation = connection.observe { [recorded] event in recorded.append(event) }
    }

    public var events: [BrokerEvent] { recorded.values }

    public var linkEvents: [BrokerLinkEvent] {
        events.compactMap { if case .link(let link) = $0 { link } else { nil } }
    }

    /// Waits until some recorded event satisfies `match`, and returns it.
    @discardableResult
    public func waitFor(_ what: String, timeout: Duration = .seconds(30), _ match: @escaping (BrokerEvent) -> Bool) async throws -> BrokerEvent {
        var found: BrokerEvent?
        try await waitUntil(what, timeout: timeout) {
            found = self.events.first(where: match)
            return found != nil
        }
        return found!
    }

    /// Waits for the `connected` event of session `session`.
    public func waitForSession(_ session: Int, timeout: Duration = .seconds(30)) async throws {
        try await waitFor("broker session \(session)", timeout: timeout) {
            if case .link(.connected(session, _)) = $0 { true } else { false }
        }
    }
}
