/// The reader's place in one book file: the last one recorded wins, by the locator's own
/// clock, per attached file (a place in one edition says nothing of another's). Like a
/// bookmark moved on two devices, the later move is where the reader is; the book's own
/// progress (``ProgressPolicy``) is decided apart and never undone by it.
public struct FileLocatorPolicy: ConflictPolicy {
    public typealias Value = Locator?

    public init() {}

    public func resolve(local: Side<Locator?>, remote: Side<Locator?>, divergence: Divergence) -> Resolution<Locator?> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote's place in the file was recorded last")
            : .winner(local.value, why: "local's place in the file was recorded last")
    }
}
