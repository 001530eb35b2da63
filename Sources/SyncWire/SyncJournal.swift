public import FileIO
public import Journal
public import VaultCrypto

/// What the sync engine needs of the journal on this device: the Store conforms. The engine
/// decides (what to send, what to apply, what to purge); the journal only reads and writes.
/// It holds no key: what is sent is sealed already (the outbox holds each operation as it
/// goes to the remotes), and what is received is opened with the ``OperationCipher``
/// VaultKit hands the engine.
public protocol SyncJournal: AnyObject {
    associatedtype Failure: Error
    associatedtype ApplyTransaction: SyncApplyTransaction where ApplyTransaction.Failure == Failure
    associatedtype IncomingBlob: IncomingFileBlob

    var deviceID: String { get }
    var vaultID: String { get }
    var keyID: KeyID { get }
    /// The time by this device's clock (acknowledgements, backoff, retention).
    var now: Timestamp { get }

    /// The wrapped keyslots a joining device needs, and how many times they were replaced.
    func keyslots() throws(Failure) -> [Keyslot]
    func keyslotGeneration() throws(Failure) -> Int
    /// Replaces this device's keyslots with `slots` of this same key and takes `generation`,
    /// unless its generation is no longer `current` (changed here meanwhile). Returns
    /// whether it did.
    func adoptKeyslots(_ slots: [Keyslot], generation: Int, replacing current: Int) throws(Failure) -> Bool
    /// The key chain, sealed under the current key, as a remote's descriptor carries it.
    func retiredKeys() throws(Failure) -> [RetiredKey]
    /// Keeps entries of another device's chain that open under the current key (the engine
    /// found them in a descriptor and checked them).
    @discardableResult
    func adoptRetiredKeys(_ keys: [RetiredKey]) throws(Failure) -> Int

    // MARK: Pull

    /// Idempotency keys of `device`'s operations already applied here.
    func appliedOperationKeys(from device: String) throws(Failure) -> Set<String>
    /// How many of `ids` are live books, notes or quotes here, and how many live ones there
    /// are in all (the mass-delete fail-safe).
    func liveRecords(among ids: [EntityID]) throws(Failure) -> (matching: Int, total: Int)
    /// Runs `body` in one write transaction: a reader never sees half of what it applies.
    func applyInOneTransaction<Result>(_ body: (ApplyTransaction) throws(Failure) -> Result) throws(Failure) -> Result

    // MARK: Push

    /// Operations `remote` does not have yet that may be tried now, oldest first; an
    /// operation waits while an earlier one on the same record has not reached the remote.
    func operationsToPush(to remote: String, limit: Int) throws(Failure) -> [OutgoingOperation]
    /// Records that `remote` has these operations (each one every remote has is done).
    func markDelivered(_ outboxIDs: [Int64], to remote: String) throws(Failure)
    /// Records a failed upload: the operation waits `retryAfterMilliseconds`, then goes
    /// again. Whatever a remote or the network did, the operation itself is sound, so an
    /// upload never fails it for good; only ``operationsToPush(to:limit:)`` does that, for a
    /// payload that no longer opens here.
    func recordPushFailure(_ outboxID: Int64, errorClass: String, retryAfterMilliseconds: Int64) throws(Failure)
    /// How many operations the outbox holds as failed for good (a payload that no longer
    /// opens), waiting for `--retry-failed`.
    func failedOperationCount() throws(Failure) -> Int

    // MARK: Remote history

    /// The remotes that lack what this device finished before they were added (or emptied).
    func remotesNeedingSnapshot() throws(Failure) -> Set<String>
    /// Queues the journal as it stands for `remote` alone (see ``SnapshotReport``).
    func enqueueSnapshot(for remote: String) throws(Failure) -> SnapshotReport
    /// Marks `remote` as lacking what this device sent before: its folder was emptied.
    func requireSnapshot(for remote: String) throws(Failure)
    /// Whether a sync has used `remote` without a failure before.
    func hasSynced(with remote: String) throws(Failure) -> Bool
    /// Whether `remote` has everything this device has queued: no snapshot owed, no
    /// operation waiting for it.
    func remoteHasEverything(_ remote: String) throws(Failure) -> Bool
    /// Records that this sync used `remote` without a failure.
    func recordSyncSuccess(of remote: String) throws(Failure)
    /// Keeps of every operation all remotes have only what names its files.
    func compactWholeOutbox() throws(Failure)

    // MARK: Book files (remotes that carry them)

    /// The ids of the book-file blobs this device holds that an attached file needs: what
    /// it sends to a remote that carries files (its own, and those it received).
    func fileBlobsToSend() throws(Failure) -> [String]
    /// Blob `id`, opened for reading.
    func openFileBlob(_ id: String) throws(Failure) -> FileDescriptor
    /// The ids of attached book files whose record and key this device has but whose bytes
    /// it has not (in no copy of the same content either).
    func fileBlobsWanted() throws(Failure) -> [String]
    /// A new, private file that blob `id` is received into.
    func receiveFileBlob(_ id: String) throws(Failure) -> IncomingBlob
    /// Keeps a received blob if it opens whole under its content's key and its plaintext
    /// has the content's SHA-256; otherwise removes it and returns false.
    func keepFileBlob(_ blob: IncomingBlob) throws(Failure) -> Bool
    /// The ids of book-file blobs no device should need from a remote any more: every
    /// attachment of the content was removed longer ago than the retention period.
    func fileBlobsToForget() throws(Failure) -> [String]

    // MARK: Tombstones

    func tombstoneRetentionDays() throws(Failure) -> Int
    /// Deleted records whose every operation is done, and whose content is still here.
    func tombstonesWithContent() throws(Failure) -> [Tombstone]
    /// Deleted records whose every operation is done, and whose files are still on the remotes.
    func tombstonesWithFiles() throws(Failure) -> [Tombstone]
    /// Empties the content of these tombstones (and of the finished operations that carried
    /// it), in one transaction. Returns how many were purged.
    func purgeTombstones(_ tombstones: [Tombstone]) throws(Failure) -> Int
    /// The deletion a tombstone is, without content: what stands in for its files once
    /// they leave the remotes.
    func contentFreeDeletion(of tombstone: Tombstone) throws(Failure) -> RecordVersion
    /// Forgets the operations of tombstones whose files left every remote.
    func forgetSentOperations(of tombstones: [Tombstone]) throws(Failure)
}

/// A book file's blob being received from a remote: the remote writes into ``descriptor``,
/// then the journal keeps it (checked) or it is discarded.
public protocol IncomingFileBlob: AnyObject {
    var descriptor: FileDescriptor { get }
    /// Removes what was received: the transfer failed.
    func discard()
}

/// The journal inside the one transaction that applies a batch of other devices' operations.
public protocol SyncApplyTransaction {
    associatedtype Failure: Error
    /// Merges one record from another device into the journal: the one applier reads what
    /// is here, has ``JournalMerge`` decide, and applies the decision, exactly as decided.
    func merge(_ record: RecordVersion) throws(Failure) -> JournalMerge.Outcome
    func isApplied(_ idempotencyKey: String) throws(Failure) -> Bool
    /// Records the operation as applied, in the same transaction as its change.
    func markApplied(_ idempotencyKey: String, device: String, clock: HybridTimestamp) throws(Failure)
    /// Moves this device's clock past `clock`, so its next change sorts after everything seen.
    func observe(_ clock: HybridTimestamp) throws(Failure)
}

/// An operation on its way to a remote: its file's name and its sealed bytes, exactly as
/// the outbox holds them.
public struct OutgoingOperation: Sendable, Equatable {
    public let outboxID: Int64
    public let fileName: String
    public let sealed: [UInt8]
    /// The record it is about: a failure holds back later operations on the same record.
    public let entityID: String
    public let attempts: Int

    public init(outboxID: Int64, fileName: String, sealed: [UInt8], entityID: String, attempts: Int) {
        self.outboxID = outboxID
        self.fileName = fileName
        self.sealed = sealed
        self.entityID = entityID
        self.attempts = attempts
    }
}

/// What queuing a snapshot of the journal for one remote did.
public struct SnapshotReport: Sendable, Equatable {
    /// Operations queued: one per book and session, one per standing version of each note
    /// and quote.
    public var operations = 0
    /// Records that could not be read here (damaged at rest): they are not on the remote.
    public var unreadable = 0

    public init() {}
}

/// A deleted book, note or quote whose content or files may go, with this device's
/// operations about it.
public struct Tombstone: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case book, annotation
    }

    public let kind: Kind
    public let id: EntityID
    /// The clock of the deleted version, which other devices acknowledge.
    public let clock: HybridTimestamp
    public let deletedAt: Timestamp
    /// This device's operations about the record, all sent: their files carry its content.
    public let operations: [SentOperation]

    public init(kind: Kind, id: EntityID, clock: HybridTimestamp, deletedAt: Timestamp, operations: [SentOperation]) {
        self.kind = kind
        self.id = id
        self.clock = clock
        self.deletedAt = deletedAt
        self.operations = operations
    }

    /// The deletion this device last sent about the record: its own deletion, or the one a
    /// snapshot carried to a remote added later (which may be the only place a device joining
    /// through that remote learns of it). A content-free stand-in must replace it on the
    /// remotes before its files go.
    public var sentDeletion: SentOperation? {
        operations.last { $0.action == .delete }
    }
}

/// An operation this device sent: what names its file on a remote, and what it did.
public struct SentOperation: Sendable, Equatable {
    public let clock: HybridTimestamp
    public let idempotencyKey: String
    public let action: OutboxAction

    public init(clock: HybridTimestamp, idempotencyKey: String, action: OutboxAction) {
        self.clock = clock
        self.idempotencyKey = idempotencyKey
        self.action = action
    }

    public var fileName: String { OperationFileName.make(clock: clock, idempotencyKey: idempotencyKey) }
}
