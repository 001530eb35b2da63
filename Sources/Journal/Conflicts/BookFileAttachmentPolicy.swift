/// Whether a book file is attached to its book: the last change (attached, removed) wins,
/// by the attachment's own clock. Only the reader's choice to keep a file with a book is
/// decided here; the file's content never changes (a different file is another content),
/// and its key, once given by the device that stored it, is kept. A removal loses no text
/// the reader wrote: a book file holds none of theirs.
public struct BookFileAttachmentPolicy: ConflictPolicy {
    public typealias Value = Timestamp?

    public init() {}

    public func resolve(local: Side<Timestamp?>, remote: Side<Timestamp?>, divergence: Divergence) -> Resolution<Timestamp?> {
        remote.clock > local.clock
            ? .winner(remote.value, why: "remote's attachment was changed last")
            : .winner(local.value, why: "local's attachment was changed last")
    }
}
