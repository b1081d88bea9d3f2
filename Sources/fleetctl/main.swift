import FleetCLI
import FleetSystem
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes `text` to standard error. A failed write there has nowhere left to be reported.
func writeError(_ text: String) {
    FileDescriptor.borrowing(STDERR_FILENO) { standardError in try? standardError.writeAll(text.utf8) }
}

/// Writes `text` to standard output; output that cannot be written ends fleetctl with a failure, saying why
/// (a closed pipe ends it earlier, by SIGPIPE).
func writeOutput(_ text: String) {
    do throws(Errno) {
        try FileDescriptor.borrowing(STDOUT_FILENO) { standardOutput throws(Errno) in try standardOutput.writeAll(text.utf8) }
    } catch {
        writeError("fleetctl: cannot write to standard output: \(error)\n")
        exit(FleetctlExitCode.failure.rawValue)
    }
}

let environment = ProcessInfo.processInfo.environment
let runner = FleetctlRunner(
    standardOutput: writeOutput,
    standardError: writeError,
    colour: isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil)
exit(runner.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment).rawValue)
