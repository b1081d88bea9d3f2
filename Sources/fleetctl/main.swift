import FleetCLI
import Foundation

let environment = ProcessInfo.processInfo.environment
let runner = FleetctlRunner(
    standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
    standardError: { FileHandle.standardError.write(Data($0.utf8)) },
    colour: isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil)
exit(runner.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment).rawValue)
