internal import CSecret
import Dispatch

/// The time budget of one keystore operation (one `store`, `lookup` or `remove`): a
/// `GCancellable` handed to every libsecret call inside the operation, cancelled when the
/// budget runs out. The operation as a whole, not each call, is bounded, so a provider that
/// owns the bus name but never answers costs at most the timeout.
///
/// why a cancellable and not D-Bus timeouts: libsecret's calls wait 25 s by default and
/// several are made per operation; cancelling is the one bound libsecret offers for all of them.
final class Deadline {
    let timeoutMilliseconds: Int
    private let cancellable: Cancellable
    private let timer: DispatchWorkItem

    /// Starts the clock: after `timeoutMilliseconds` every call still waiting is cancelled.
    init(timeoutMilliseconds: Int) {
        self.timeoutMilliseconds = timeoutMilliseconds
        let cancellable = Cancellable()
        self.cancellable = cancellable
        timer = DispatchWorkItem { g_cancellable_cancel(cancellable.pointer) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(timeoutMilliseconds), execute: timer)
    }

    deinit {
        timer.cancel()
    }

    /// The cancellable to pass to a libsecret call.
    var pointer: UnsafeMutablePointer<GCancellable> { cancellable.pointer }

    /// Whether the budget ran out (and so a failed call failed because it was cancelled).
    var hasExpired: Bool { g_cancellable_is_cancelled(cancellable.pointer) != 0 }
}

/// A `GCancellable` reference shared with the timer's thread. GCancellable is thread-safe;
/// the reference is released when both the operation and the timer are done with it.
private final class Cancellable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable>

    init() {
        pointer = g_cancellable_new()
    }

    deinit {
        g_object_unref(pointer)
    }
}
