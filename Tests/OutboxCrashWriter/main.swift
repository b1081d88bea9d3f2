// Appends readings to an outbox as fast as it commits them, until it is killed: the child of
// FleetStoreTests' crash test. Usage: outbox-crash-writer DB ROUND DEVICES LOG
// Each reading's value is "r<ROUND>:<n>", n counting that device's appends in this run from 0. After every
// committed batch it appends "<last committed id>\n" to LOG with one write(2), so the parent knows what was
// committed before it sent SIGKILL.
import FleetStore
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 5, let round = Int(arguments[2]), let deviceCount = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: outbox-crash-writer DB ROUND DEVICES LOG\n".utf8))
    exit(2)
}
let log = open(arguments[4], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
guard log >= 0 else { exit(3) }

var configuration = Outbox.Configuration()
configuration.commitDelay = .milliseconds(5)
configuration.maxBatchSize = 500
let outbox: Outbox
do {
    outbox = try Outbox(path: arguments[1], configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(4)
}
guard let subscription = outbox.subscribe() else { exit(5) }

let parent = getppid()
let producer = Thread {
    var counters = [Int](repeating: 0, count: deviceCount)
    var i = 0
    while true {
        // A writer whose test died must not run on: the test kills it, but a crashed test cannot.
        if getppid() != parent { exit(6) }
        // Hold back while the writer is behind, so no reading is ever discarded from memory.
        while outbox.pendingCount > 5_000 { usleep(200) }
        for _ in 0..<100 {
            let device = i % deviceCount
            let now = StoreClock.monotonicNanoseconds()
            outbox.append(Reading(device: "dev-\(device)", characteristic: "00002a37-0000-1000-8000-00805f9b34fb",
                                  kind: .notification, value: Array("r\(round):\(counters[device])".utf8),
                                  monotonicNanoseconds: now, wallNanoseconds: StoreClock.wallNanoseconds(), session: Int64(round)))
            counters[device] += 1
            i += 1
        }
    }
}
producer.start()

for await batch in subscription.batches {
    guard let last = batch.last else { continue }
    let line = Array("\(last.id)\n".utf8)
    _ = line.withUnsafeBytes { write(log, $0.baseAddress, $0.count) }
}
