internal import CDBus
import FleetSystem
import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A connection to a D-Bus bus over libdbus-1, usable from any task.
///
/// Concurrency model: one dedicated I/O thread owns the libdbus connection. It alone reads and writes the
/// socket, sends queued messages and dispatches incoming ones (libdbus is never entered from two threads).
/// Other threads build a message, append it to a queue under a mutex and wake the I/O thread through an
/// eventfd (FleetSystem's `WakeupPipe`). A method call parks its task on a continuation keyed by the message
/// serial; the I/O thread resumes it with the reply, the error reply, a timeout (deadlines are the I/O thread's poll timeout) or a
/// disconnection. Signals are matched against subscriptions on the I/O thread and yielded, in arrival order,
/// to each subscriber's `AsyncStream`. Incoming method calls go to one registered handler (the exported
/// object tree), which answers synchronously or from a task through `reply(to:)`.
public final class DBusConnection: @unchecked Sendable {
    let raw: OpaquePointer
    /// Wakes the I/O thread from poll when there is something to send or the connection is closing.
    private let wakeup: WakeupPipe
    let state = Mutex(ConnectionState())
    /// The connection's unique bus name, e.g. `:1.42`.
    public let uniqueName: String
    private let signalQueue: Bool
    /// Messages received so far; touched only on the I/O thread, which stamps each one's `arrival`.
    private var arrivals: UInt64 = 0
    /// The names and strings received messages keep repeating, decoded once; I/O thread only.
    private let receivedStrings = DBusStringTable()
    /// Messages the filter has seen; read and written only on the I/O thread.
    private var dispatched = 0
    /// `dispatched` when the batch being collected opened; I/O thread only.
    private var batchStart = 0
    /// When the current batch window closes (nil: no signal since a window passed empty); I/O thread only.
    private var windowEnds: ContinuousClock.Instant?
    /// `dispatched` when the current window opened, and how many messages the window before it gathered:
    /// together they tell a trickle from a flood; I/O thread only.
    private var windowOpenedAt = 0
    private var lastWindowMessages = 0
    /// A reply to one of our calls was handled in this read turn; I/O thread only.
    private var repliedThisTurn = false
    /// The one-descriptor poll set `watchesSocket` asks the socket with, made once; I/O thread only.
    private var socketProbe = [pollfd(fd: -1, events: 0, revents: 0)]
    /// Times the I/O thread came back from poll: what a trickle of signals costs in wake-ups.
    private let pollReturns = Atomic<UInt64>(0)
    /// How many times the I/O thread has woken from poll since the connection opened (a diagnostic figure:
    /// with signals held for company it grows once per batch window, not once per signal).
    public var ioWakeups: UInt64 { pollReturns.load(ordering: .relaxed) }
    /// How long signals are gathered before they are handed over (replies are never held). FleetBench's 1 000
    /// devices notifying once a second, linked straps silent, fleetd's share of a core by window: 5 ms 8.7 %,
    /// 20 ms 6.6 %, 50 ms 5.6 %, 100 ms 5.7 % (issue 18; docs/performance.md). A reading reaches fleetd's
    /// consumers at most this much later, well inside a BLE connection event or two.
    public static let batchWindow: Duration = .milliseconds(50)
    /// A batch this large is handed over at once.
    static let batchLimit = 512
    /// A window that has gathered this many messages is busy, and its socket is read every `busySlice` instead of
    /// once at its end: 256 signals of a few hundred bytes (each its own socket buffer of about 800 bytes) are
    /// about what a Unix socket holds before the bus has to queue for fleetd.
    static let holdLimit = 256

    /// Connects to the bus at `address` (a D-Bus address such as `unix:path=/run/dbus/system_bus_socket`).
    public init(address: String) throws(DBusError) {
        _ = dbus_threads_init_default()
        let error = fleet_dbus_error_new()
        defer { fleet_dbus_error_free(error) }
        guard let connection = dbus_connection_open_private(address, error) else {
            throw DBusError(.connectionFailed, name: error.flatMap { fleet_dbus_error_name($0) }.map { String(cString: $0) },
                            "cannot connect to \(address): \(error.flatMap { fleet_dbus_error_message($0) }.map { String(cString: $0) } ?? "unknown error")")
        }
        guard dbus_bus_register(connection, error) != 0, let unique = dbus_bus_get_unique_name(connection) else {
            let message = error.flatMap { fleet_dbus_error_message($0) }.map { String(cString: $0) } ?? "Hello failed"
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusError(.connectionFailed, "cannot register on \(address): \(message)")
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        do {
            wakeup = try WakeupPipe()
        } catch {
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw DBusError(.connectionFailed, "cannot create the I/O thread's wake-up eventfd: \(error)", systemError: error)
        }
        raw = connection
        uniqueName = String(cString: unique)
        signalQueue = true
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_add_filter(connection, dbusConnectionFilter, context, nil)
        DetachedThread.start(name: "dbus-io") { [self] in self.runLoop() }
    }

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the default socket).
    public static func system() throws(DBusError) -> DBusConnection {
        let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
        return try DBusConnection(address: address)
    }

    deinit {
        dbus_connection_unref(raw)
    }

    /// Tests only: see `ConnectionState.tookOutgoingCalls`.
    func onTakingOutgoingCalls(_ hook: (@Sendable () -> Void)?) {
        state.withLock { $0.tookOutgoingCalls = hook }
    }

    /// Closes the connection: pending calls fail with `disconnected` and signal streams finish.
    public func close() {
        state.withLock { $0.closing = true }
        wake()
    }

    /// Whether the connection has closed (by `close()` or because the bus went away).
    public var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: Calls

    /// Calls a method and waits for its reply. An error reply throws `.remote` with the peer's name and
    /// message; no reply within `timeout` throws `.timeout`.
    public func call(destination: String, path: String, interface: String, member: String,
                     arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws(DBusError) -> DBusMessage {
        let context = "\(interface).\(member) on \(path)"
        let message: DBusMessagePointer
        do {
            message = try DBusMessagePointer.methodCall(destination: destination, path: path, interface: interface, member: member)
            try message.append(arguments)
        } catch {
            throw error.with(context: context)
        }
        let id = state.withLock { state -> UInt64 in
            state.nextCallID += 1
            return state.nextCallID
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let result: Result<DBusMessage, DBusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (accepted, needsWake) = state.withLock { state -> (Bool, Bool) in
                    if state.closed || state.closing { return (false, false) }
                    if state.cancelledBeforeQueued.remove(id) != nil {
                        continuation.resume(returning: .failure(DBusError(.cancelled, "call cancelled", context: context)))
                        return (true, false)
                    }
                    let wasEmpty = state.outgoing.isEmpty
                    state.outgoing.append(.call(id: id, message: message, deadline: deadline, context: context, continuation: continuation))
                    return (true, wasEmpty)
                }
                if !accepted {
                    continuation.resume(returning: .failure(DBusError(.disconnected, "connection closed", context: context)))
                } else if needsWake {
                    wake()
                }
            }
        } onCancel: {
            cancel(callID: id, context: context)
        }
        // A cancellation that came after a reply, a timeout or the close had already resumed the call (before this
        // await returned) found it neither queued nor pending and noted its id, which nothing else takes out. The
        // handler has finished by now (the runtime removes it under the lock it runs under), and a task never
        // cancelled never ran it, so only a cancelled one needs the lock.
        if Task.isCancelled { state.withLock { _ = $0.cancelledBeforeQueued.remove(id) } }
        switch result {
        case .success(let reply):
            if reply.kind == .error {
                let text: String = if case .string(let s)? = reply.body.first { s } else { "" }
                throw DBusError.remote(name: reply.errorName ?? "org.freedesktop.DBus.Error.Failed", message: text, context: context)
            }
            return reply
        case .failure(let error):
            throw error
        }
    }

    /// Calls a method and returns the reply body after checking it has exactly `signature`.
    public func call(destination: String, path: String, interface: String, member: String,
                     arguments: [DBusValue] = [], timeout: Duration = .seconds(25),
                     expecting signature: String) async throws(DBusError) -> [DBusValue] {
        let reply = try await call(destination: destination, path: path, interface: interface, member: member,
                                   arguments: arguments, timeout: timeout)
        return try reply.body(signature: signature)
    }

    private func cancel(callID: UInt64, context: String) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<DBusMessage, DBusError>, Never>? in
            if let serial = state.serialByCall.removeValue(forKey: callID) {
                return state.pending.removeValue(forKey: serial)?.continuation
            }
            if let index = state.outgoing.firstIndex(where: { $0.callID == callID }),
               case .call(_, _, _, _, let continuation) = state.outgoing.remove(at: index) {
                return continuation
            }
            state.cancelledBeforeQueued.insert(callID)
            return nil
        }
        continuation?.resume(returning: .failure(DBusError(.cancelled, "call cancelled", context: context)))
    }

    // MARK: Sending

    /// Emits a signal from `path`.
    public func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) {
        let message = try DBusMessagePointer.signal(path: path, interface: interface, member: member)
        try message.append(arguments)
        enqueue(message)
    }

    /// Answers an incoming method call with `values`, unless the caller asked for no reply.
    public func reply(to call: DBusMessage, with values: [DBusValue]) {
        guard !call.noReplyExpected else { return }
        do {
            let message = try DBusMessagePointer.reply(to: call)
            try message.append(values)
            enqueue(message)
        } catch {
            // A handler returned values that cannot be marshalled: the caller still gets an answer.
            reply(to: call, error: DBusError(.invalidArgument, "reply could not be encoded: \(error.message)"))
        }
    }

    /// Answers an incoming method call with an error reply carrying the error's name and message.
    public func reply(to call: DBusMessage, error: DBusError) {
        guard !call.noReplyExpected, let message = try? DBusMessagePointer.reply(to: call, errorName: error.name, errorMessage: error.message) else { return }
        enqueue(message)
    }

    func enqueue(_ message: DBusMessagePointer) {
        let needsWake = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            let wasEmpty = state.outgoing.isEmpty
            state.outgoing.append(.send(message))
            return wasEmpty
        }
        if needsWake { wake() }
    }

    // MARK: Incoming method calls

    /// Routes every incoming method call to `handler`, which must answer each one through `reply(to:)`.
    /// It runs on the I/O thread, so it must not block; slow work belongs in a task.
    public func setMethodCallHandler(_ handler: @escaping @Sendable (DBusMessage) -> Void) {
        state.withLock { $0.methodCallHandler = handler }
    }

    /// Asks the bus for a well-known name; throws unless this connection becomes its primary owner.
    public func requestName(_ name: String) async throws(DBusError) {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE: fail at once rather than wait in line behind another owner.
        let body = try await call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                  interface: "org.freedesktop.DBus", member: "RequestName",
                                  arguments: [.string(name), .uint32(4)], expecting: "u")
        guard case .uint32(let result) = body[0], result == 1 || result == 4 else {
            throw DBusError(.connectionFailed, "could not own \(name): RequestName answered \(body[0])")
        }
    }

    func wake() {
        wakeup.wake()
    }

    // MARK: The I/O thread

    private func runLoop() {
        let fd: Int32 = {
            var fd: Int32 = -1
            dbus_connection_get_unix_fd(raw, &fd)
            return fd
        }()
        var failure: DBusError?
        // Made once: an array literal here was a malloc and a free per wake-up (issue 18).
        var fds = [pollfd(fd: fd, events: 0, revents: 0), pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        while true {
            let closing = state.withLock { $0.closing }
            if closing || dbus_connection_get_is_connected(raw) == 0 { break }
            flushOutgoing()
            readTurn()
            flushOutgoing()
            expireCalls()
            let writing = dbus_connection_has_messages_to_send(raw) != 0
            fds[0].events = (watchesSocket(fd) ? Int16(POLLIN) : 0) | (writing ? Int16(POLLOUT) : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            if dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS { continue }
            do {
                _ = try Poll.wait(&fds, timeoutMilliseconds: pollTimeoutMilliseconds())
                pollReturns.add(1, ordering: .relaxed)
            } catch {
                // poll fails only for lack of memory or a bug; looping on would spin, so the connection ends
                // and every waiting call learns why.
                failure = DBusError(.disconnected, "the I/O thread's poll failed: \(error)", systemError: error)
                break
            }
            if fds[1].revents != 0 { wakeup.drain() }
        }
        shutDown(failure: failure)
    }

    /// Reads and dispatches what the socket has, then hands batch subscribers what matched once the batch is
    /// due. libdbus reads at most 2 KiB per read, a dozen signals; while more keep arriving the turn reads on
    /// (bounded), so that a flood is handed over in batches of hundreds rather than one wake-up per dozen.
    ///
    /// Signals are handed over once per `batchWindow`: the first signal after a quiet spell opens a window, and
    /// while signals keep coming each window's end hands over what it gathered and opens the next, until a
    /// window passes without any. A fleet's adverts and notifications arrive a few hundred microseconds apart,
    /// and handing each over alone woke the supervisor (and this thread) once per signal — at 1 000 devices
    /// notifying once a second, most of fleetd's CPU went to those wake-ups (issue 18's profile). The window is
    /// a poll timeout, so sends and replies are not held: a turn that handled a reply hands the batch over at
    /// once, because the reply's caller may be waiting until the signals that arrived before it are taken
    /// (arrival order).
    private func readTurn() {
        var reads = 0
        repeat {
            let before = dispatched
            _ = dbus_connection_read_write(raw, 0)
            while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
            reads += 1
            if dispatched == before { break }
        } while reads < 32
        let replied = repliedThisTurn
        repliedThisTurn = false
        let now = ContinuousClock.now
        guard state.withLock({ $0.batchesPending }) else {
            batchStart = dispatched
            if let due = windowEnds, due <= now {
                lastWindowMessages = dispatched - windowOpenedAt
                windowEnds = nil
            }
            return
        }
        if let due = windowEnds, due <= now {
            windowEnds = now.advanced(by: Self.batchWindow)
            lastWindowMessages = dispatched - windowOpenedAt
            windowOpenedAt = dispatched
            handOverBatch()
            return
        }
        if windowEnds == nil {
            windowEnds = now.advanced(by: Self.batchWindow)
            windowOpenedAt = batchStart
        }
        if replied || dispatched - batchStart >= Self.batchLimit { handOverBatch() }
    }

    private func handOverBatch() {
        batchStart = dispatched
        flushSignalBatches()
    }

    private func flushOutgoing() {
        // Taken by swapping: `removeAll(keepingCapacity:)` on the array just copied out made a new buffer of the
        // old capacity on every call, twice a wake-up even with nothing to send; after start-up's thousands of
        // calls that was a large allocation, and glibc consolidated its free lists for each (issue 18).
        var batch: [Outgoing] = []
        let tookCalls = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.outgoing.isEmpty else { return nil }
            swap(&batch, &state.outgoing)
            return state.tookOutgoingCalls
        }
        tookCalls?()
        for item in batch {
            switch item {
            case .send(let message):
                _ = dbus_connection_send(raw, message.raw, nil)
            case .call(let id, let message, let deadline, let context, let continuation):
                var serial: UInt32 = 0
                guard dbus_connection_send(raw, message.raw, &serial) != 0 else {
                    state.withLock { _ = $0.cancelledBeforeQueued.remove(id) }
                    continuation.resume(returning: .failure(DBusError(.outOfMemory, "send failed", context: context)))
                    continue
                }
                // A cancellation that came after the call was taken off the queue found it in neither place and
                // left its id; without this check the call went on waiting for its reply or its timeout.
                let cancelled = state.withLock { state -> Bool in
                    if state.cancelledBeforeQueued.remove(id) != nil { return true }
                    state.pending[serial] = PendingCall(id: id, deadline: deadline, context: context, continuation: continuation)
                    state.serialByCall[id] = serial
                    return false
                }
                if cancelled {
                    continuation.resume(returning: .failure(DBusError(.cancelled, "call cancelled", context: context)))
                }
            }
        }
    }

    /// Whether poll should wake for the socket. While a batch window is open and nothing waits for a reply, it
    /// need not: what arrives meanwhile is read in one turn when the window closes (or, when busy, at the end of
    /// the slice: `busySlice`), so that a trickle of signals (1 000 devices notifying once a second) wakes this
    /// thread once per window rather than once per signal. A call in flight keeps the socket watched (replies are
    /// never held), and so does a socket that still has bytes to read after a whole read turn: a flood is read
    /// as fast as it comes, as does a window of `floodLimit` messages. Held, a flood filled the socket's buffer and
    /// waited for the window's end, and fleetd took 7 620 events/s where the bare loop took 35 323 (FloodBench).
    /// Whether bytes wait is asked of the socket, because a read that ends inside a large message dispatches
    /// nothing and looks like an empty socket. Incoming method calls (BlueZ asking the pairing agent) wait at most
    /// one window, or one slice of a busy one.
    private func watchesSocket(_ fd: Int32) -> Bool {
        guard windowEnds != nil, !flooded else { return true }
        if state.withLock({ !$0.pending.isEmpty || !$0.outgoing.isEmpty }) { return true }
        socketProbe[0] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        // A failed probe watches the socket: the real poll below then reports what is wrong.
        guard let ready = try? Poll.wait(&socketProbe, timeoutMilliseconds: 0) else { return true }
        return ready > 0
    }

    /// The larger of the last window's count and this one's so far: what tells a trickle, a busy window and a
    /// flood apart.
    private var windowMessages: Int { max(lastWindowMessages, dispatched - windowOpenedAt) }

    /// `holdLimit` messages a window: the socket is read every `busySlice` rather than once per window, so that
    /// what waits stays well inside its buffer.
    private var busy: Bool { windowMessages >= Self.holdLimit }

    /// `floodLimit` messages a window: the socket is watched (it always has bytes; each poll returns at once).
    private var flooded: Bool { windowMessages >= Self.floodLimit }

    /// How often a busy connection's socket is read while a window is held: the time `sliceMessages` take to
    /// arrive at `windowMessages` a window, at most 10 ms (busy and short of a flood, 256 to 1 023 a window,
    /// that is 6.25 to 10 ms). The socket used to be watched for the whole of a busy window, so that a fleet's few
    /// thousand signals a second, arriving in bursts, woke this thread for each burst: 151 wake-ups a second at
    /// 1 Hz with adverts (3 745 signals/s; `strace -c`, issue 18). A fixed 10 ms slice let a flood of 48 000
    /// signals/s fill the socket's buffer between reads, and fleetd took 0.60 of the bare loop's rate
    /// (FloodBench); paced by the rate, the buffer is read when about half full, and a flood (`floodLimit`) is
    /// read as it comes.
    private var busySlice: Duration {
        let slice = Self.batchWindow * Self.sliceMessages / max(windowMessages, 1)
        return min(max(slice, .milliseconds(1)), .milliseconds(10))
    }

    /// A window of this many messages (20 000 a second) is a flood. Read in slices, a flood of 38 000 signals a
    /// second reached fleetd at 0.82 of the bare loop's rate (FloodBench, 2 cores shared with the simulator and
    /// the bus): a slice the bus takes to refill the socket is a slice it must queue for fleetd.
    static let floodLimit = 1024

    /// About half of what a Unix socket's buffer holds of signals of a few hundred bytes (`holdLimit`).
    static let sliceMessages = 128

    private func pollTimeoutMilliseconds() -> Int32 {
        let callDeadline = state.withLock { state in state.pending.values.lazy.map(\.deadline).min() }
        // A batch being held is handed over when its window closes; a busy connection reads its socket every
        // slice meanwhile (a flood's socket is watched: its poll needs no slice). Compared without an array: this
        // runs every wake-up.
        let held = windowEnds.map { busy && !flooded ? min($0, ContinuousClock.now.advanced(by: busySlice)) : $0 }
        let earliest: ContinuousClock.Instant
        switch (callDeadline, held) {
        case (let call?, let window?): earliest = min(call, window)
        case (let call?, nil): earliest = call
        case (nil, let window?): earliest = window
        case (nil, nil): return 1000
        }
        let remaining = ContinuousClock.now.duration(to: earliest)
        if remaining <= .zero { return 0 }
        let ms = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(min(ms, 1000))
    }

    private func expireCalls() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [PendingCall] in
            guard state.pending.values.contains(where: { $0.deadline <= now }) else { return [] }
            var out: [PendingCall] = []
            for (serial, call) in state.pending where call.deadline <= now {
                state.pending.removeValue(forKey: serial)
                state.serialByCall.removeValue(forKey: call.id)
                out.append(call)
            }
            return out
        }
        for call in expired {
            call.continuation.resume(returning: .failure(DBusError(.timeout, "no reply within the call's timeout", context: call.context)))
        }
    }

    private func shutDown(failure: DBusError?) {
        flushSignalBatches()
        let (pending, outgoing, streams) = state.withLock { state -> ([PendingCall], [Outgoing], [Subscription]) in
            state.closed = true
            let pending = Array(state.pending.values)
            state.pending.removeAll()
            let outgoing = state.outgoing
            state.outgoing.removeAll()
            let streams = Array(state.subscriptions.values)
            state.subscriptions.removeAll()
            state.methodCallHandler = nil
            return (pending, outgoing, streams)
        }
        dbus_connection_flush(raw)
        dbus_connection_close(raw)
        let closed = failure ?? DBusError(.disconnected, "connection closed")
        for call in pending {
            call.continuation.resume(returning: .failure(closed.with(context: call.context)))
        }
        for case .call(_, _, _, let context, let continuation) in outgoing {
            continuation.resume(returning: .failure(closed.with(context: context)))
        }
        for stream in streams { stream.finish() }
    }

    /// Called on the I/O thread for every incoming message.
    fileprivate func handle(_ pointer: OpaquePointer) -> Bool {
        dispatched &+= 1
        var message: DBusMessage
        do {
            message = try DBusMessagePointer.decode(pointer, strings: receivedStrings)
        } catch {
            return false
        }
        arrivals += 1
        message.arrival = arrivals
        switch message.kind {
        case .methodReturn, .error:
            let pending = state.withLock { state -> PendingCall? in
                guard let call = state.pending.removeValue(forKey: message.replySerial) else { return nil }
                state.serialByCall.removeValue(forKey: call.id)
                return call
            }
            guard let pending else { return false }
            repliedThisTurn = true
            pending.continuation.resume(returning: .success(message))
            return true
        case .signal:
            deliver(signal: message)
            // Handled: a signal left unhandled goes on to libdbus's own object-path dispatch, which splits the path
            // into freshly allocated components (five mallocs and frees for a BlueZ device path) to find a handler
            // that fleetd never registers; its objects are its own tree, reached through method calls.
            return true
        case .methodCall:
            let handler = state.withLock { $0.methodCallHandler }
            if let handler {
                handler(message)
            } else {
                reply(to: message, error: DBusError(.remote, name: "org.freedesktop.DBus.Error.UnknownObject",
                                                    "no object at \(message.path ?? "?")"))
            }
            return true
        }
    }
}

/// The libdbus filter: a plain C function whose context is the unretained connection.
private func dbusConnectionFilter(_ connection: OpaquePointer?, _ message: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> DBusHandlerResult {
    guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let owner = Unmanaged<DBusConnection>.fromOpaque(context).takeUnretainedValue()
    return owner.handle(message) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}
