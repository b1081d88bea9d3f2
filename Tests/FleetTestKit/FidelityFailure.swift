/// A scenario step whose outcome was not the expected one, with what was expected and what was seen.
public struct FidelityFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Fails the scenario with `message` unless `condition` holds.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw FidelityFailure(message()) }
}
