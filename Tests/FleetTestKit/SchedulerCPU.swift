import Foundation

/// User + system CPU seconds from a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat` file, for the benches;
/// nil when the file cannot be read or parsed. The command name (field 2) is in parentheses and may hold spaces,
/// so the fields are counted after its closing parenthesis: state is field 3 there, utime 14 and stime 15.
public func schedulerCPUSeconds(statFile path: String) -> Double? {
    guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
