#if canImport(Glibc)
import Glibc
#endif

/// What the process does when a signal arrives, set through sigaction(2) (never signal(2), whose
/// SA_RESTART behaviour differs between C libraries).
public enum SignalDisposition {
    /// Ignores `signal`, as a dispatch signal source needs so that the default action does not run first.
    public static func ignore(_ signal: Int32) throws(Errno) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        try nothingOrErrno { sigaction(signal, &action, nil) }
    }

    /// Runs `handler` (async-signal-safe code only) when `signal` arrives. Without
    /// `restartInterruptedCalls`, a blocking call the signal interrupts fails with EINTR, which is what
    /// `valueOrErrno` retries.
    public static func handle(_ signal: Int32, with handler: @convention(c) (Int32) -> Void,
                              restartInterruptedCalls: Bool) throws(Errno) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        action.sa_flags = restartInterruptedCalls ? Int32(SA_RESTART) : 0
        sigemptyset(&action.sa_mask)
        try nothingOrErrno { sigaction(signal, &action, nil) }
    }
}
