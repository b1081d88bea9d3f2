/// The exported objects by path, with each path's children, so that removing an object and everything below
/// it costs what is removed rather than a scan of every exported path. The simulator's fleet (16 adapters,
/// 16 000 Device1 objects) loses thousands at once when their TemporaryTimeout runs out; a scan per removal
/// held its world for tens of seconds (issue 18's bench timed out asking it for its counters).
struct ExportedObjects {
    private(set) var byPath: [String: ExportedObject] = [:]
    /// Each path's immediate children: objects, or paths with objects below them. Paths with neither are dropped.
    private var children: [String: Set<String>] = [:]

    var count: Int { byPath.count }
    var keys: Dictionary<String, ExportedObject>.Keys { byPath.keys }

    subscript(path: String) -> ExportedObject? {
        get { byPath[path] }
        set {
            if let newValue {
                if byPath.updateValue(newValue, forKey: path) == nil { link(path) }
            } else if byPath.removeValue(forKey: path) != nil {
                unlinkIfBare(path)
            }
        }
    }

    /// The names of the nodes directly below `path` (introspection's child nodes).
    func childNames(of path: String) -> [String] {
        (children[path] ?? []).map { child in String(child[child.index(after: child.lastIndex(of: "/")!)...]) }.sorted()
    }

    /// Removes the object at `path` and every object below it; returns them deepest first (longer paths first).
    mutating func removeSubtree(_ path: String) -> [(path: String, object: ExportedObject)] {
        var visited: [String] = []
        var stack = [path]
        while let node = stack.popLast() {
            visited.append(node)
            if let below = children[node] { stack.append(contentsOf: below) }
        }
        let doomed = visited.filter { byPath[$0] != nil }.sorted { $0.count > $1.count }
        let removed = doomed.compactMap { key in byPath.removeValue(forKey: key).map { (key, $0) } }
        for node in visited { children[node] = nil }
        unlinkIfBare(path)
        return removed
    }

    /// Records `path` under its parent, and the parent under its own, up to the first link that already exists.
    private mutating func link(_ path: String) {
        var child = path
        while let parent = Self.parent(of: child) {
            guard children[parent, default: []].insert(child).inserted else { return }
            child = parent
        }
    }

    /// Drops `path` from its parent when it is neither an object nor above one, then the parent likewise.
    private mutating func unlinkIfBare(_ path: String) {
        var node = path
        while byPath[node] == nil, children[node]?.isEmpty ?? true, let parent = Self.parent(of: node) {
            children[node] = nil
            children[parent]?.remove(node)
            node = parent
        }
        if byPath[node] == nil, children[node]?.isEmpty == true { children[node] = nil }
    }

    /// "/a/b" → "/a", "/a" → "/", "/" → nil.
    static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
