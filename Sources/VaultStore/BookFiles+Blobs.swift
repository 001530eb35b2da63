public import FileIO
import VaultCrypto
import Journal
import SyncWire

/// A book file's blob being received from a remote, into the file store's `.incoming-`
/// name, locked (a sweep leaves it alone) until it is kept or discarded.
public final class ReceivedFileBlob: IncomingFileBlob {
    let incoming: FileStore.Incoming

    init(_ incoming: FileStore.Incoming) {
        self.incoming = incoming
    }

    public var descriptor: FileDescriptor { incoming.file }

    public func discard() { incoming.discard() }
}

/// Book files' blobs as the sync engine exchanges them with remotes that carry files: the
/// blob files are sent as the file store keeps them (sealed under each content's own key,
/// which only travels sealed in the content's operation), and a blob received is kept only
/// once it opens under its key and hashes to its content's SHA-256.
extension BookFiles {
    /// Stored contents an attached file needs whose blob is here.
    public func blobsToSend() throws(StoreError) -> [String] {
        try contentsAttachedLive().filter { holdsBlob(of: $0) }.map(\.id.rawValue)
    }

    /// The blob of content `id`, as the file store keeps it (sealed), to send.
    public func openBlob(_ id: String) throws(StoreError) -> FileDescriptor {
        try Store.fileCall { () throws(FileIOError) in try store.fileStore.openBlob(id) }
    }

    /// Stored contents an attached file needs, whose bytes this device can read from no
    /// content of the same SHA-256.
    public func blobsWanted() throws(StoreError) -> [String] {
        let reachable = try store.read { tables throws(StoreError) in try tables.bookFiles.reachableContentsByChecksum() }
        return try contentsAttachedLive().filter { $0.isStored && reachable[$0.checksum] == nil }.map(\.id.rawValue)
    }

    /// A blob of content `id` to receive, locked until it is kept or discarded.
    public func receiveBlob(_ id: String) throws(StoreError) -> ReceivedFileBlob {
        ReceivedFileBlob(try store.fileStore.receive(id))
    }

    /// Keeps a received blob when it opens under its content's key and hashes to its
    /// SHA-256; discards it otherwise (false) or when its content is not a stored one here.
    public func keepBlob(_ blob: ReceivedFileBlob) throws(StoreError) -> Bool {
        do throws(StoreError) {
            guard let entity = try? EntityID(validating: blob.incoming.id),
                  let (content, key) = try store.read({ tables throws(StoreError) -> (FileContent, FileKey)? in
                      guard let content = try tables.bookFiles.contents().first(where: { $0.id == entity }), content.isStored else { return nil }
                      return (content, try tables.bookFiles.fileKey(of: entity))
                  }) else {
                blob.discard()
                return false
            }
            return try store.fileStore.keep(blob.incoming, key: key, binding: store.blobBinding(entity), checksum: content.checksum)
        } catch {
            blob.discard()
            throw error
        }
    }

    /// Contents every attachment of which was removed longer ago than the retention period,
    /// the horizon `purge` empties them at: their blobs can leave the remotes. A device that
    /// attached one again meanwhile (a book merge) has made an attachment live, which this
    /// device sees once it pulls; one that holds the bytes sends them again if a remote lacks
    /// them. What could be lost is the bytes of a file re-attached on a device without them
    /// and silent for longer than the retention, as with every purge (Docs/FILES.md).
    public func blobsToForget() throws(StoreError) -> [String] {
        let horizon = try store.read { tables throws(StoreError) in try tables.tombstones.horizon() }
        var ids: [String] = []
        try store.database.forEachRow("SELECT id FROM file f WHERE \(TombstoneTable.everyAttachmentRemovedBefore)",
                                [.integer(horizon.millisecondsSince1970)]) { row in ids.append(row.text("id")) }
        return ids
    }

    /// The contents that a live attachment names.
    private func contentsAttachedLive() throws(StoreError) -> [FileContent] {
        var attached = Set<String>()
        try store.database.forEachRow("SELECT DISTINCT file_id FROM book_file WHERE removed_at IS NULL") { row in
            attached.insert(row.text("file_id"))
        }
        return try store.read { tables throws(StoreError) in try tables.bookFiles.contents() }.filter { attached.contains($0.id.rawValue) }
    }
}
