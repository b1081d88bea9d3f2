@testable import FleetManager
import Supervision
import Testing

/// A Connect on an adapter starts only after the Disconnects (and RemoveDevices) asked for before it on that
/// adapter were answered: a timed-out connect's cancel never reaches bluetoothd after the next Connect.
@Suite struct AdapterCallOrderTests {
    let hci0 = AdapterID(name: "hci0"), hci1 = AdapterID(name: "hci1")

    actor Log {
        var lines: [String] = []
        func append(_ line: String) { lines.append(line) }
    }

    @Test func aConnectWaitsForTheCancelsAskedBeforeItOnItsAdapterOnly() async {
        var order = AdapterCallOrder()
        let log = Log()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let id = order.reserve()
        order.started(id, on: hci0, task: Task {
            for await _ in gate {}
            await log.append("disconnect answered")
        })
        #expect(order.barrier(on: hci1).isEmpty, "another adapter's connect waits for nothing")
        let before = order.barrier(on: hci0)
        #expect(before.count == 1)
        let connect = Task {
            for call in before { await call.value }
            await log.append("connect sent")
        }
        open.finish()
        await connect.value
        #expect(await log.lines == ["disconnect answered", "connect sent"])
        order.finished(id, on: hci0)
        #expect(order.barrier(on: hci0).isEmpty, "an answered cancel holds nothing up")
    }
}
