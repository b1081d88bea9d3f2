/// The last value read from each column, handed back again while the column's bytes stay the same. A fleet's
/// devices mostly share their class, subscriptions and reasons, so a restore of 10 000 rows makes one string
/// (or one list) of each instead of 10 000, and the copies share their storage in memory afterwards too.
struct RepeatedText {
    /// By column index; the fleet tables have fewer columns than this.
    private var texts = [String?](repeating: nil, count: 16)
    private var lists = [(text: String, list: [String])?](repeating: nil, count: 16)

    /// The column as text (NULL is ""), the previous value when its bytes are the same.
    mutating func text(_ s: SQLiteStatement, _ index: Int32) -> String {
        let slot = Int(index)
        if let last = texts[slot], s.textEquals(last, at: index) { return last }
        let value = s.text(at: index)
        texts[slot] = value
        return value
    }

    /// The column as text, or nil for NULL.
    mutating func optionalText(_ s: SQLiteStatement, _ index: Int32) -> String? {
        s.isNull(at: index) ? nil : text(s, index)
    }

    /// The column as a space-separated list (`SQLiteStatement.textList`), the previous list when its bytes are
    /// the same.
    mutating func list(_ s: SQLiteStatement, _ index: Int32) -> [String] {
        let slot = Int(index)
        if let last = lists[slot], s.textEquals(last.text, at: index) { return last.list }
        let entry = (text: s.text(at: index), list: s.textList(at: index))
        lists[slot] = entry
        return entry.list
    }
}
