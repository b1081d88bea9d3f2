import Synchronization

/// A list that callbacks on other threads append to and a test reads.
public final class Recorded<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])

    public init() {}

    public func append(_ element: Element) { elements.withLock { $0.append(element) } }
    public var values: [Element] { elements.withLock { $0 } }
}
