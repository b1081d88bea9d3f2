/// One SQLite value, in SQLite's five storage classes.
public enum SQLiteValue: Sendable, Equatable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}
