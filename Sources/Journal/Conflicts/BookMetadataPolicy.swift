/// A book's title and authors: reproducible metadata, so the last writer wins, by hybrid
/// logical clock, with the device id breaking ties. Progress has its own policy.
public struct BookMetadataPolicy: ConflictPolicy {
    public typealias Value = Book

    public init() {}

    public func resolve(local: Side<Book>, remote: Side<Book>, divergence: Divergence) -> Resolution<Book> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote was written last")
            : .winner(local.value, why: "local was written last")
    }
}
