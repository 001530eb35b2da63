internal import CSecret
internal import Dispatch

/// Owns one reference to a GCancellable.
///
/// `@unchecked Sendable` because the timer thread calls ``cancel()`` while the calling
/// thread runs libsecret: `g_cancellable_cancel` is documented thread-safe, the pointer
/// never changes, and the reference is dropped only in `deinit`, which cannot run while
/// either the timer closure or the operation still holds the box. So the timer can never
/// touch a freed cancellable, even when it fires long after the operation finished.
final class CancellableBox: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable>

    init?() {
        guard let pointer = g_cancellable_new() else { return nil }
        self.pointer = pointer
    }

    func cancel() { g_cancellable_cancel(pointer) }

    var isCancelled: Bool { g_cancellable_is_cancelled(pointer) != 0 }

    deinit { bmv_object_unref(pointer) }
}

/// Which step a GError came from: an I/O error while connecting means "no session bus";
/// the same domain later means something else.
enum CallStage {
    case connect
    case operation
}

/// The time budget of one keystore operation (one `store`, `lookup` or `remove`).
///
/// Every libsecret call inside the operation gets the same cancellable, cancelled by a
/// timer once the budget is spent, so the whole operation, not just each call, is bounded.
/// A provider that owns the bus name but never answers costs at most the timeout.
///
/// why: libsecret's *_sync functions run a private main loop until the D-Bus reply arrives;
/// without a cancellable they wait for GDBus's default reply timeout (25 s) or, with
/// prompts, indefinitely.
final class OperationBudget {
    let timeoutMilliseconds: Int
    private let box: CancellableBox

    init(timeoutMilliseconds: Int) throws(KeystoreError) {
        guard let box = CancellableBox() else { throw .failure(domain: "g-object", code: 0) }
        self.timeoutMilliseconds = timeoutMilliseconds
        self.box = box
        // The closure keeps its own strong reference to the box (see CancellableBox).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(timeoutMilliseconds)) { [box] in
            box.cancel()
        }
    }

    /// Runs one libsecret call with the budget's cancellable and an error slot. The call
    /// reports failure by returning false; the GError (if any) is mapped and freed here.
    func run(_ stage: CallStage,
             _ body: (UnsafeMutablePointer<GCancellable>, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Bool
    ) throws(KeystoreError) {
        var error: UnsafeMutablePointer<GError>?
        let succeeded = withExtendedLifetime(box) { body(box.pointer, &error) }
        if let error {
            throw consume(error, stage: stage)
        }
        if !succeeded {
            // A failure without a GError: cancelled before the call reported anything, or a
            // libsecret precondition (g_return_val_if_fail) rejected the arguments.
            if box.isCancelled { throw .timedOut(milliseconds: timeoutMilliseconds) }
            throw .failure(domain: "bmvault-keystore", code: 0)
        }
    }

    /// Maps a GError by its domain quark and code only, then frees it.
    /// why: the message may contain anything (paths, attribute values), so it is never kept.
    func consume(_ error: UnsafeMutablePointer<GError>, stage: CallStage) -> KeystoreError {
        let domain = error.pointee.domain
        let code = error.pointee.code
        g_error_free(error)
        return mapError(domain: domain, code: code, stage: stage)
    }

    /// The same mapping by domain name, so tests can exercise it without importing CSecret.
    func mapError(domainName: String, code: Int32, stage: CallStage) -> KeystoreError {
        mapError(domain: g_quark_from_string(domainName), code: code, stage: stage)
    }

    func mapError(domain: GQuark, code: Int32, stage: CallStage) -> KeystoreError {
        // why: a cancelled call can surface as G_IO_ERROR_CANCELLED, or (when cancellation
        // interrupts a prompt or a half-open session) as another error; the cancellable is
        // the truth, and only our timer cancels it.
        if box.isCancelled { return .timedOut(milliseconds: timeoutMilliseconds) }
        if domain == bmv_io_error_quark() {
            if code == Int32(G_IO_ERROR_CANCELLED.rawValue) || code == Int32(G_IO_ERROR_TIMED_OUT.rawValue) {
                return .timedOut(milliseconds: timeoutMilliseconds)
            }
            if stage == .connect { return .noSessionBus }
        }
        if domain == bmv_dbus_error_quark() {
            switch code {
            case Int32(G_DBUS_ERROR_SERVICE_UNKNOWN.rawValue),
                 Int32(G_DBUS_ERROR_NAME_HAS_NO_OWNER.rawValue),
                 Int32(G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND.rawValue),
                 Int32(G_DBUS_ERROR_SPAWN_EXEC_FAILED.rawValue),
                 Int32(G_DBUS_ERROR_SPAWN_CHILD_EXITED.rawValue),
                 Int32(G_DBUS_ERROR_SPAWN_FAILED.rawValue):
                // Nobody owns org.freedesktop.secrets and the bus could not start anyone.
                return .noProvider
            case Int32(G_DBUS_ERROR_NO_REPLY.rawValue),
                 Int32(G_DBUS_ERROR_TIMEOUT.rawValue),
                 Int32(G_DBUS_ERROR_TIMED_OUT.rawValue):
                // GDBus's own reply timeout (25 s) fired first: only when our budget is longer.
                return .timedOut(milliseconds: timeoutMilliseconds)
            default:
                break
            }
        }
        // why: libsecret maps org.freedesktop.Secret.Error.IsLocked into its own domain.
        if domain == bmv_secret_error_quark(), code == Int32(SECRET_ERROR_IS_LOCKED.rawValue) {
            return .keyringLocked
        }
        let name = g_quark_to_string(domain).map { String(cString: $0) } ?? "unknown"
        return .failure(domain: name, code: code)
    }
}
