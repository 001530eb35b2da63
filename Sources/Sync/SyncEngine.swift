import FileIO
import Foundation
import Journal
import Telemetry
import VaultCrypto
public import SyncWire

/// What one sync did, for the summary line and `--json`.
public struct SyncSummary: Sendable, Equatable {
    public var pushed = 0
    public var pulled = 0
    public var conflicts = 0
    public var deferred = 0
    /// Files that did not open or decode as an operation, and operations whose record
    /// breaks the journal's rules.
    public var rejected = 0
    /// Uploads that failed this time (they stay in the outbox, each with its next retry).
    public var failures = 0
    /// Operations the outbox holds as failed for good once the sync ended: payloads that
    /// no longer open here, found by this sync or earlier ones and not yet retried.
    public var failedForGood = 0
    /// Tombstones whose content was purged.
    public var purged = 0
    /// Other devices silent for longer than the retention period, with the days since their
    /// last sync: the files of deleted records wait on the remotes for them.
    public var silentDevices: [String: Int] = [:]
    /// Days since this device last synced, when that was longer than the retention period:
    /// it has now taken in everything it missed.
    public var returningAfterDays: Int?
    /// Remotes that could not be used, with why (error class).
    public var skipped: [String: String] = [:]
    /// Remotes that received a snapshot of the journal (new, or emptied since the last
    /// sync), with how many operations it took.
    public var snapshots: [String: Int] = [:]
    /// Records that could not be read here for a snapshot (damaged at rest): a device
    /// joining through that remote will not have them.
    public var unsentRecords = 0
    /// Book-file blobs sent to and received from remotes that carry files (a transfer that
    /// failed counts in ``failures``, tried again at the next sync).
    public var filesSent = 0
    public var filesReceived = 0
    /// Blobs received that did not open under their key or did not hash to their content's
    /// SHA-256: removed here and from the remote (a device that holds the file sends it again).
    public var filesRefused = 0
    /// The remote whose keyslots (a passphrase or recovery key changed on another device, for
    /// this same key) this device took up, if any: the secrets they replaced no longer open it.
    public var keyslotsTakenUp: String?
    /// Blobs removed from remotes because every attachment of their file was removed longer
    /// ago than the retention period (a removal that failed counts in ``failures``).
    public var filesRemoved = 0
    /// Remotes whose keyslots come from a rekey made on another device, which this device
    /// has not taken up (`unlock` does): not used until it has, so nothing new is sent under
    /// the retired key and nothing sealed under the new one is skipped.
    public var rekeyedElsewhere: Set<String> = []

    public init() {}
}

/// Why a sync stopped before doing anything: the fail-safe, or the journal's own failure.
public enum SyncError<Failure: Error>: Error {
    /// Applying what the remotes hold would delete `count` of this vault's `total` live books
    /// and notes: more than the fail-safe allows without `--allow-mass-delete`.
    case massDelete(count: Int, total: Int)
    case journal(Failure)
}

extension SyncError: Equatable where Failure: Equatable {}

extension SyncError {
    /// Runs a call on the journal; its failure ends the sync as ``journal(_:)``.
    static func fromJournal<Result>(_ body: () throws(Failure) -> Result) throws(SyncError) -> Result {
        do { return try body() } catch { throw .journal(error) }
    }
}

/// What a sync left undone, the most pressing first: a command that did not do everything
/// it was asked never ends as if it had (the CLI maps each to its exit status).
public enum SyncShortfall: Sendable, Equatable {
    /// The vault was rekeyed on another device: these remotes wait until this device takes
    /// up the new key (`unlock` asks for the passphrase and does).
    case rekeyedElsewhere(remotes: Set<String>)
    /// Operations that will not go without the reader: failed for good here (see `bmvault
    /// outbox`, then `--retry-failed`), files on a remote that do not open here, records
    /// here too damaged to put in a snapshot, or book files on a remote that do not check out.
    case needsAttention(failedForGood: Int, unreadable: Int, unsentRecords: Int, refusedFiles: Int)
    /// Remotes that could not be used; what they need waits in the outbox.
    case remotesSkipped([String: String])
    /// Uploads that failed for now and wait for their retry, and received operations that
    /// wait for records not received yet: a later sync finishes them.
    case leftToRetry(failures: Int, deferred: Int)
}

extension SyncSummary {
    /// What this sync left undone, or nil when it did everything.
    public var shortfall: SyncShortfall? {
        if !rekeyedElsewhere.isEmpty { return .rekeyedElsewhere(remotes: rekeyedElsewhere) }
        if failedForGood > 0 || rejected > 0 || unsentRecords > 0 || filesRefused > 0 {
            return .needsAttention(failedForGood: failedForGood, unreadable: rejected, unsentRecords: unsentRecords,
                                   refusedFiles: filesRefused)
        }
        if !skipped.isEmpty { return .remotesSkipped(skipped) }
        if failures > 0 || deferred > 0 { return .leftToRetry(failures: failures, deferred: deferred) }
        return nil
    }
}

/// Drains the outbox to remotes and applies what other devices left there.
///
/// Each remote is checked for reachability before anything is sent; pulled operations are
/// checked by the mass-delete fail-safe and then merged (``JournalMerge``) in transactional
/// batches; the outbox is drained oldest first, each failure is recorded with its class and
/// a backoff (full jitter), an operation that no longer opens is kept as `failed`, and a
/// retry of an upload whose answer was lost finds the file already there. Last, each remote gets this
/// device's acknowledgement of what it has applied, and the tombstones every device has
/// acknowledged (or older than the retention) lose their content.
///
public final class SyncEngine<Journal: SyncJournal> {
    public static var batchSize: Int { 500 }
    /// How many operation files are asked of a remote at once when pulling: enough for a
    /// WebDAV remote's parallel reads to overlap, few enough that a batch of the largest
    /// operations (a 1 MiB note each) stays near 64 MiB in memory.
    static var readBatchSize: Int { 64 }
    /// The fail-safe: a sync may not delete more than this share of the live records...
    public static var massDeleteShare: Double { 0.5 }
    /// ...counting only when it deletes at least this many.
    public static var massDeleteMinimum: Int { 10 }

    let journal: Journal
    /// The key decisions of a run, and the cipher, widened when a remote's descriptor
    /// carries keys of the chain this device lacks.
    private(set) var keys: SyncKeys<Journal>
    var cipher: OperationCipher { keys.cipher }
    let remotes: [any Remote]
    let backoff: Backoff

    /// Whether `remotes` are all the vault's remotes, so that the devices they list are all
    /// the devices that could still need a tombstone (otherwise only the retention purges).
    let remotesAreComplete: Bool
    /// The remotes that carry book files' blobs (`remote files NAME on`), by name.
    let carryingFiles: Set<String>

    public init(journal: Journal, cipher: OperationCipher, remotes: [any Remote], remotesAreComplete: Bool = true,
                carryingFiles: Set<String> = [], backoff: Backoff = Backoff()) {
        self.journal = journal
        self.keys = SyncKeys(journal: journal, cipher: cipher)
        self.remotesAreComplete = remotesAreComplete
        self.carryingFiles = carryingFiles
        #if DEBUG
        self.remotes = remotes.map(FaultInjectingRemote.wrapIfRequested)
        #else
        self.remotes = remotes
        #endif
        self.backoff = backoff
    }

    /// One sync, in phases. Each phase has one error rule: a remote's failure (unreachable,
    /// refused, malformed) skips that remote or counts a failure and the sync goes on; a
    /// journal's failure (the vault file) ends the sync as ``SyncError/journal(_:)``, having
    /// committed what earlier phases wrote; the mass-delete fail-safe ends it before any
    /// pulled operation is applied.
    public func run(allowMassDelete: Bool, progress: (String) -> Void = { _ in }) throws(SyncError<Journal.Failure>) -> SyncSummary {
        var summary = SyncSummary()
        let reachable = try connect(&summary)
        let acknowledgements = readAcknowledgements(from: reachable, &summary)
        let retention = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.tombstoneRetentionDays() }
        noteSilentDevices(acknowledgements, retention: retention, &summary)
        let listed = try pull(from: reachable, allowMassDelete: allowMassDelete, &summary, progress: progress)
        let clean = try push(to: reachable, &summary, progress: progress)
        try exchangeFileBlobs(with: reachable, &summary, progress: progress)
        try acknowledge(on: reachable, listed: listed, clean: clean, &summary)
        try purge(on: reachable, acknowledgements: acknowledgements, retention: retention, &summary)
        log.notice("sync.finished", ["pushed": .integer(summary.pushed), "pulled": .integer(summary.pulled),
                                     "conflicts": .integer(summary.conflicts), "failures": .integer(summary.failures),
                                     "failedForGood": .integer(summary.failedForGood), "deferred": .integer(summary.deferred),
                                     "rejected": .integer(summary.rejected), "purged": .integer(summary.purged),
                                     "skipped": .integer(summary.skipped.count)])
        return summary
    }

    /// The remotes still in play that the sync has not skipped since they were reached.
    private func inPlay(_ remotes: [any Remote], _ summary: SyncSummary) -> [any Remote] {
        remotes.filter { summary.skipped[$0.name] == nil }
    }

    // MARK: - Phase 1: connect

    /// The remotes this sync can use: each reachable, holding this vault (or none yet), and
    /// not rekeyed elsewhere; their descriptors met (``SyncKeys``) and replaced where this
    /// device's is newer.
    private func connect(_ summary: inout SyncSummary) throws(SyncError<Journal.Failure>) -> [any Remote] {
        var reachable: [any Remote] = []
        for remote in remotes {
            let theirs: RemoteDescriptor?
            do {
                try remote.checkReachable()
                theirs = try readDescriptor(of: remote)
            } catch {
                skip(remote, error, in: &summary)
                continue
            }
            switch try keys.meet(theirs, of: remote.name, summary: &summary) {
            case .rekeyedElsewhere:
                summary.rekeyedElsewhere.insert(remote.name)
            case .proceed(let replacement):
                do {
                    if let replacement { try remote.writeDescriptor(replacement.encoded()) }
                } catch {
                    skip(remote, error, in: &summary)
                    continue
                }
                reachable.append(remote)
            }
        }
        return reachable
    }

    // MARK: - Phase 2: acknowledgements

    /// Every device's acknowledgement, read first: every operation a device sent before
    /// acknowledging is then in the listings the pull reads.
    private func readAcknowledgements(from remotes: [any Remote], _ summary: inout SyncSummary) -> Acknowledgements {
        var acknowledgements = Acknowledgements(ownDevice: journal.deviceID)
        for remote in remotes {
            do { try acknowledgements.read(from: remote, opening: cipher) } catch {
                summary.skipped[remote.name] = error.errorClass
            }
        }
        return acknowledgements
    }

    /// The devices silent for longer than the retention, and whether this one is returning
    /// after such a silence.
    private func noteSilentDevices(_ acknowledgements: Acknowledgements, retention: Int, _ summary: inout SyncSummary) {
        var silent = acknowledgements.silent(forMoreThan: retention, now: journal.now)
        summary.returningAfterDays = silent.removeValue(forKey: journal.deviceID)
        summary.silentDevices = silent
        if let days = summary.returningAfterDays { log.notice("sync.device.returning", ["days": .integer(days)]) }
    }

    // MARK: - Phase 3: pull

    /// Gathers every new operation first, so the fail-safe sees the whole change, then
    /// applies them in clock order, in transactional batches. Returns each remote's listing
    /// of operation files by device, for the acknowledgements.
    private func pull(from remotes: [any Remote], allowMassDelete: Bool, _ summary: inout SyncSummary,
                      progress: (String) -> Void) throws(SyncError<Journal.Failure>) -> [String: [String: [String]]] {
        var incoming: [OperationDocument.Decoded] = []
        var listed: [String: [String: [String]]] = [:]
        var seen = Set<String>()
        for remote in inPlay(remotes, summary) {
            guard let (operations, names) = try newOperations(on: remote, summary: &summary) else { continue }
            listed[remote.name] = names
            for operation in operations where seen.insert(operation.idempotencyKey).inserted {
                incoming.append(operation)
            }
        }
        let deleted = incoming.compactMap { decoded -> EntityID? in
            guard case .operation(let operation) = decoded, operation.deletes else { return nil }
            return operation.entityID
        }
        let live = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.liveRecords(among: deleted) }
        if !allowMassDelete, live.matching >= Self.massDeleteMinimum,
           Double(live.matching) > Self.massDeleteShare * Double(live.total) {
            log.warning("sync.massDelete.blocked", ["count": .integer(live.matching), "total": .integer(live.total)])
            throw .massDelete(count: live.matching, total: live.total)
        }
        incoming.sort { $0.clock < $1.clock }
        var start = 0
        while start < incoming.count {
            let batch = Array(incoming[start..<min(start + Self.batchSize, incoming.count)])
            try SyncError.fromJournal { () throws(Journal.Failure) in try apply(batch, to: &summary) }
            start += batch.count
            FaultInjection.reach("sync:applied-batch")
            progress("pulled \(min(start, incoming.count)) of \(incoming.count)")
        }
        return listed
    }

    // MARK: - Phase 4: push

    /// Sends each remote what it lacks; a remote that lacks what this device finished
    /// before (new, or emptied) first gets a snapshot of the journal as it stands. Returns
    /// the remotes every upload reached.
    private func push(to remotes: [any Remote], _ summary: inout SyncSummary,
                      progress: (String) -> Void) throws(SyncError<Journal.Failure>) -> Set<String> {
        var clean = Set<String>()
        for remote in inPlay(remotes, summary) {
            try queueSnapshotIfNeeded(for: remote, summary: &summary)
            if try push(to: remote, summary: &summary, progress: progress) { clean.insert(remote.name) }
        }
        return clean
    }

    // MARK: - Phase 5: book files

    /// Book files' blobs, to and from the remotes that carry them, once every record is in.
    /// Blobs leave them only when every remote was read: an attachment made again could be
    /// waiting on one that was not.
    private func exchangeFileBlobs(with remotes: [any Remote], _ summary: inout SyncSummary,
                                   progress: (String) -> Void) throws(SyncError<Journal.Failure>) {
        let forgettable = summary.skipped.isEmpty
            ? try SyncError.fromJournal { () throws(Journal.Failure) in try journal.fileBlobsToForget() } : []
        for remote in inPlay(remotes, summary) where carryingFiles.contains(remote.name) {
            try exchangeFileBlobs(with: remote, forgetting: forgettable, summary: &summary, progress: progress)
        }
    }

    // MARK: - Phase 6: acknowledge

    /// Leaves this device's acknowledgement on each remote; a remote every upload reached
    /// and that took the acknowledgement is recorded as synced.
    private func acknowledge(on remotes: [any Remote], listed: [String: [String: [String]]], clean: Set<String>,
                             _ summary: inout SyncSummary) throws(SyncError<Journal.Failure>) {
        for remote in inPlay(remotes, summary) {
            let complete = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.remoteHasEverything(remote.name) }
            if try acknowledge(on: remote, listed: listed[remote.name] ?? [:], complete: complete), clean.contains(remote.name) {
                try SyncError.fromJournal { () throws(Journal.Failure) in try journal.recordSyncSuccess(of: remote.name) }
            }
        }
    }

    // MARK: - Phase 7: purge

    /// Tombstones: content purged here after the retention (until then `undelete` can bring
    /// it back, on any device); files removed from the remotes once every device has
    /// acknowledged the deletion. Then the outbox keeps of each operation every remote has
    /// only what names its files.
    private func purge(on remotes: [any Remote], acknowledgements: Acknowledgements, retention: Int,
                       _ summary: inout SyncSummary) throws(SyncError<Journal.Failure>) {
        let everyDeviceIsKnown = remotesAreComplete && summary.skipped.isEmpty
        let horizon = journal.now.millisecondsSince1970 - Int64(retention) * 86_400_000
        summary.purged = try SyncError.fromJournal { () throws(Journal.Failure) in
            try journal.purgeTombstones(journal.tombstonesWithContent().filter { $0.deletedAt.millisecondsSince1970 < horizon })
        }
        if everyDeviceIsKnown { try compactTombstones(on: remotes, acknowledgements: acknowledgements) }
        try SyncError.fromJournal { () throws(Journal.Failure) in try journal.compactWholeOutbox() }
        summary.failedForGood = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.failedOperationCount() }
    }

    // MARK: - The phases' parts

    /// Applies one batch of other devices' operations in ONE transaction, in clock order,
    /// each through the one merge, and records each as applied in the same transaction: a
    /// reader never sees half a batch, and an operation is applied once.
    private func apply(_ batch: [OperationDocument.Decoded], to summary: inout SyncSummary) throws(Journal.Failure) {
        let report = try journal.applyInOneTransaction { (transaction) throws(Journal.Failure) -> SyncSummary in
            var report = SyncSummary()
            for decoded in batch {
                guard try !transaction.isApplied(decoded.idempotencyKey) else { continue }
                try transaction.observe(decoded.clock)
                switch decoded {
                case .refused(_, _, _, let entity, let action):
                    // Well-formed but against the journal's rules: seen, reported, never retried.
                    report.rejected += 1
                    log.warning("sync.operation.rejected", ["entity": .public(entity.rawValue), "action": .public(action.rawValue)])
                case .operation(let operation):
                    switch try transaction.merge(operation.record) {
                    case .deferred:
                        report.deferred += 1
                        continue   // not marked: read again at the next sync
                    case .unchanged:
                        report.pulled += 1
                    case .applied(let conflicts):
                        report.pulled += 1
                        report.conflicts += conflicts
                    }
                }
                try transaction.markApplied(decoded.idempotencyKey, device: decoded.deviceID, clock: decoded.clock)
            }
            return report
        }
        summary.pulled += report.pulled
        summary.conflicts += report.conflicts
        summary.deferred += report.deferred
        summary.rejected += report.rejected
    }

    /// The remote's descriptor, or nil when it holds no vault yet; one of another vault is
    /// refused. Whether this device's replaces it is ``RemoteDescriptor/replacement(for:)``'s
    /// to say: newer keyslots (a passphrase change or a rekey made here), or the same key's
    /// chain with entries it lacks; never the slots of a device that has not caught up with
    /// a rekey made elsewhere (that device leaves the remote alone until it takes it up).
    private func readDescriptor(of remote: any Remote) throws(RemoteError) -> RemoteDescriptor? {
        guard let bytes = try remote.readDescriptor() else { return nil }
        let theirs = try RemoteDescriptor.decode(bytes)
        guard theirs.vaultId == journal.vaultID else { throw .otherVault }
        return theirs
    }

    private func skip(_ remote: any Remote, _ error: RemoteError, in summary: inout SyncSummary) {
        summary.skipped[remote.name] = error.errorClass
        log.warning("sync.remote.skipped", ["error": .public(error.errorClass)])
    }

    /// Every operation other devices left on `remote` that this vault has not applied, and
    /// the names of every device's operation files (for the acknowledgement).
    /// A remote's failure skips it (nil); the journal's ends the sync.
    private func newOperations(on remote: any Remote, summary: inout SyncSummary)
        throws(SyncError<Journal.Failure>) -> ([OperationDocument.Decoded], [String: [String]])? {
        var operations: [OperationDocument.Decoded] = []
        var listed: [String: [String]] = [:]
        let devices: [String]
        do { devices = try remote.devices() } catch {
            summary.skipped[remote.name] = error.errorClass
            return nil
        }
        for device in devices where device != journal.deviceID {
            let applied = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.appliedOperationKeys(from: device) }
            do throws(RemoteError) {
                let names = try remote.operationNames(of: device)
                listed[device] = names
                operations += try newOperations(named: names, of: device, on: remote, skipping: applied, summary: &summary)
            } catch {
                summary.skipped[remote.name] = error.errorClass
                return nil
            }
        }
        return (operations, listed)
    }

    /// The operations of `device` among `names` that are not `applied` here, read from `remote`.
    private func newOperations(named names: [String], of device: String, on remote: any Remote, skipping applied: Set<String>,
                               summary: inout SyncSummary) throws(RemoteError) -> [OperationDocument.Decoded] {
        var operations: [OperationDocument.Decoded] = []
        let wanted = names.compactMap { name in
            OperationFileName.idempotencyKey(in: name).flatMap { applied.contains($0) ? nil : (name: name, key: $0) }
        }
        // Read a batch at a time (a remote may fetch a batch at once), then taken in order.
        var reads: [Result<[UInt8], RemoteError>] = []
        for (index, (name, key)) in wanted.enumerated() {
            if index % Self.readBatchSize == 0 {
                reads = remote.readOperations(wanted[index..<min(index + Self.readBatchSize, wanted.count)].map(\.name), of: device)
            }
            // A remote that answered fewer reads than asked (and no failure) broke its contract.
            guard index % Self.readBatchSize < reads.count else { throw RemoteError.io(operation: "read", errno: EIO) }
            // A file that is not a file bmvault writes (a FIFO, a link, something huge), does
            // not open under this vault's key and binding, or is not an operation, is
            // counted and logged (by class), and read again next time.
            let sealed: [UInt8]
            switch reads[index % Self.readBatchSize] {
            case .success(let bytes):
                sealed = bytes
            case .failure(.malformed):
                summary.rejected += 1
                log.warning("sync.operation.unreadable", ["remote": .public(remote.name)])
                continue
            case .failure(let error):
                throw error
            }
            var operation: OperationDocument.Decoded?
            if var plain = try? cipher.open(operation: sealed, idempotencyKey: key) {
                operation = try? OperationDocument.decode(plain, expectedKey: key, device: device)
                wipe(&plain)
            }
            // The clock in the name is in the clear: it must be the sealed one, or a
            // renamed file could move an operation in the order, or inflate watermarks.
            guard let operation, OperationFileName.clock(in: name) == operation.clock else {
                summary.rejected += 1
                log.warning("sync.operation.unreadable", ["remote": .public(remote.name)])
                continue
            }
            operations.append(operation)
        }
        return operations
    }

    /// Removes this device's files about every tombstone all other devices have
    /// acknowledged, from every remote: no device can then miss an operation it needs, and
    /// the remotes no longer hold the content. If any remote fails, the operations are kept
    /// and the next sync tries again.
    private func compactTombstones(on remotes: [any Remote], acknowledgements: Acknowledgements) throws(SyncError<Journal.Failure>) {
        // Every device has the deletion, and every file of this device about the record.
        let tombstones = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.tombstonesWithFiles() }.filter { tombstone in
            acknowledgements.coverEveryDevice(tombstone.clock)
                && tombstone.operations.allSatisfy { acknowledgements.coverEveryDevice($0.clock) }
        }
        guard !tombstones.isEmpty else { return }
        for remote in remotes {
            do {
                try compact(tombstones, on: remote)
            } catch let error as RemoteError {
                log.warning("sync.compaction.failed", ["remote": .public(remote.name), "error": .public(error.errorClass)])
                return
            } catch {
                log.warning("sync.compaction.failed", ["remote": .public(remote.name), "error": .public("journal")])
                return
            }
        }
        try SyncError.fromJournal { () throws(Journal.Failure) in try journal.forgetSentOperations(of: tombstones) }
    }

    /// A content-free stand-in for each deletion this device sent (so a device that joins
    /// later still learns of it), durable, and only then the removal of this device's files.
    private func compact(_ tombstones: [Tombstone], on remote: any Remote) throws {
        // Only the deletion needs a stand-in, and only a device that sent one sends it: the
        // device that made it, or one whose snapshot carried it (another device's deletion
        // stays on the remote in that device's folder). One stand-in per deletion and remote:
        // a deletion compacted before, then carried again by a snapshot, has one there already.
        let present = Set(try remote.operationNames(of: journal.deviceID).compactMap(OperationFileName.idempotencyKey(in:)))
        for tombstone in tombstones {
            guard let deletion = tombstone.sentDeletion else { continue }
            let key = DerivedIDs.standIn(for: tombstone.id, deletedAt: tombstone.clock)
            guard !present.contains(key) else { continue }
            let standIn = SyncOperation(idempotencyKey: key, deviceID: journal.deviceID, clock: deletion.clock, action: .delete,
                                        record: try journal.contentFreeDeletion(of: tombstone))
            let sealed = try cipher.seal(operation: OperationDocument.encode(standIn), idempotencyKey: standIn.idempotencyKey)
            let upload = OutgoingOperation(outboxID: 0, fileName: standIn.fileName, sealed: sealed,
                                           entityID: tombstone.id.rawValue, attempts: 0)
            let outcome = Result { () throws(RemoteError) in try remote.writeOperation(upload.fileName, of: journal.deviceID, bytes: sealed) }
            try finishUpload(upload, outcome, to: remote)
        }
        try remote.commitWrites()
        for tombstone in tombstones {
            for sent in tombstone.operations {
                try remote.removeOperation(sent.fileName, of: journal.deviceID)
            }
        }
        try remote.commitWrites()
    }

    /// Leaves this device's acknowledgement on `remote`, saying whether its folder there is
    /// `complete`. A failure only delays purging, so it is logged and the sync goes on;
    /// returns whether it was written.
    private func acknowledge(on remote: any Remote, listed: [String: [String]], complete: Bool) throws(SyncError<Journal.Failure>) -> Bool {
        var applied: [String: Set<String>] = [:]
        for device in listed.keys {
            applied[device] = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.appliedOperationKeys(from: device) }
        }
        let marks = Acknowledgement.watermarks(listed: listed) { device in applied[device] ?? [] }
        let acknowledgement = Acknowledgement(device: journal.deviceID, at: journal.now, applied: marks, complete: complete)
        do {
            let sealed = try cipher.seal(acknowledgement: acknowledgement.encoded(), device: journal.deviceID)
            try remote.writeAcknowledgement(sealed, of: journal.deviceID)
            return true
        } catch {
            log.warning("sync.acknowledgement.failed", ["remote": .public(remote.name)])
            return false
        }
    }

    /// Queues a snapshot of the journal for `remote` when it lacks what this device finished
    /// before: a remote added after others (or after the first sync), or one whose copy of
    /// this device's folder is gone (emptied, or another stick under the same path: a
    /// remote this device synced with before holds no acknowledgement of its).
    private func queueSnapshotIfNeeded(for remote: any Remote, summary: inout SyncSummary) throws(SyncError<Journal.Failure>) {
        if try SyncError.fromJournal({ () throws(Journal.Failure) in try journal.hasSynced(with: remote.name) }),
           case .success(nil) = Result(catching: { () throws(RemoteError) in try remote.readAcknowledgement(of: journal.deviceID) }) {
            log.notice("sync.remote.emptied", ["remote": .public(remote.name)])
            try SyncError.fromJournal { () throws(Journal.Failure) in try journal.requireSnapshot(for: remote.name) }
        }
        guard try SyncError.fromJournal({ () throws(Journal.Failure) in try journal.remotesNeedingSnapshot() }).contains(remote.name) else { return }
        let report = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.enqueueSnapshot(for: remote.name) }
        summary.snapshots[remote.name] = report.operations
        summary.unsentRecords += report.unreadable
        log.notice("sync.snapshot.queued", ["remote": .public(remote.name), "operations": .integer(report.operations),
                                            "unreadable": .integer(report.unreadable)])
    }

    /// Sends `remote` the blobs this device holds that it lacks, then takes from it the
    /// blobs this device wants, each streamed and kept only if it checks out (a blob that
    /// does not is counted in ``SyncSummary/filesRefused`` and removed, here and from the
    /// remote, so that a device holding the file sends it again), and last removes from it
    /// the blobs named in `forgettable` (files removed longer ago than the retention period).
    /// A transfer or a removal that fails is counted and tried again at the next sync; an
    /// unreachable remote ends the exchange.
    private func exchangeFileBlobs(with remote: any Remote, forgetting forgettable: [String], summary: inout SyncSummary,
                                   progress: (String) -> Void) throws(SyncError<Journal.Failure>) {
        let there: Set<String>
        do {
            there = try remote.fileBlobNames()
        } catch {
            summary.failures += 1
            log.warning("sync.files.listFailed", ["remote": .public(remote.name), "error": .public(error.errorClass)])
            return
        }
        for id in try SyncError.fromJournal({ () throws(Journal.Failure) in try journal.fileBlobsToSend() }) where !there.contains(id) {
            let source = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.openFileBlob(id) }
            defer { try? source.close() }
            do {
                try remote.writeFileBlob(id, from: source)
                summary.filesSent += 1
                progress("sent \(summary.filesSent) book files")
            } catch {
                summary.failures += 1
                log.warning("sync.files.sendFailed", ["remote": .public(remote.name), "error": .public(error.errorClass)])
                if case .unreachable = error { return }
            }
        }
        for id in try SyncError.fromJournal({ () throws(Journal.Failure) in try journal.fileBlobsWanted() }) where there.contains(id) {
            let incoming = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.receiveFileBlob(id) }
            do {
                try remote.readFileBlob(id, into: incoming.descriptor)
                FaultInjection.reach("sync:file-received")
            } catch {
                incoming.discard()
                summary.failures += 1
                log.warning("sync.files.receiveFailed", ["remote": .public(remote.name), "error": .public(error.errorClass)])
                if case .unreachable = error { return }
                continue
            }
            if try SyncError.fromJournal({ () throws(Journal.Failure) in try journal.keepFileBlob(incoming) }) {
                summary.filesReceived += 1
                progress("received \(summary.filesReceived) book files")
            } else {
                // Not what its key sealed: removed there too, so a device that holds the file
                // sends it again at its next sync (a remote can withhold a file, never swap one).
                summary.filesRefused += 1
                log.warning("sync.files.refused", ["remote": .public(remote.name)])
                do { try remote.removeFileBlob(id) } catch {
                    log.warning("sync.files.refusedLeft", ["remote": .public(remote.name), "error": .public(error.errorClass)])
                }
            }
        }
        for id in forgettable where there.contains(id) {
            do {
                try remote.removeFileBlob(id)
                summary.filesRemoved += 1
            } catch {
                summary.failures += 1
                log.warning("sync.files.removeFailed", ["remote": .public(remote.name), "error": .public(error.errorClass)])
                if case .unreachable = error { return }
            }
        }
    }

    /// Sends what `remote` lacks; returns whether every upload succeeded.
    private func push(to remote: any Remote, summary: inout SyncSummary, progress: (String) -> Void) throws(SyncError<Journal.Failure>) -> Bool {
        var blockedRecords = Set<String>()
        var generator = SystemRandomNumberGenerator()
        while true {
            let operations = try SyncError.fromJournal { () throws(Journal.Failure) in
                try journal.operationsToPush(to: remote.name, limit: Self.batchSize)
            }.filter { !blockedRecords.contains($0.entityID) }
            guard !operations.isEmpty else { return blockedRecords.isEmpty }
            var written: [OutgoingOperation] = []
            var remoteDown = false
            // Written a wave at a time (a remote may write a wave at once): one operation of a
            // record per wave, so a record's changes land in order, and a failed one holds back
            // the record's later ones.
            waves: for wave in Self.waves(of: operations) {
                let wave = wave.filter { !blockedRecords.contains($0.entityID) }
                let outcomes = remote.writeOperations(wave.map { (name: $0.fileName, bytes: $0.sealed) }, of: journal.deviceID)
                for (operation, outcome) in zip(wave, outcomes) {
                    do {
                        try finishUpload(operation, outcome, to: remote)
                        written.append(operation)
                        FaultInjection.reach("sync:wrote-operation:\(summary.pushed + written.count)")
                    } catch {
                        summary.failures += 1
                        // Later changes to the same record wait, so devices see them in order.
                        blockedRecords.insert(operation.entityID)
                        try recordFailure(of: operation, error, using: &generator)
                        if case .unreachable = error { remoteDown = true; break waves }
                    }
                }
            }
            // Durable on the remote first, then marked delivered: a crash in between only
            // means the same files are offered again, and land on the names they have.
            if !written.isEmpty {
                do { try remote.commitWrites() } catch {
                    summary.failures += written.count
                    for operation in written { try recordFailure(of: operation, error, using: &generator) }
                    return false
                }
            }
            let delivered = written.map(\.outboxID)
            try SyncError.fromJournal { () throws(Journal.Failure) in try journal.markDelivered(delivered, to: remote.name) }
            summary.pushed += delivered.count
            progress("pushed \(summary.pushed)")
            if remoteDown || delivered.isEmpty { return blockedRecords.isEmpty }
        }
    }

    /// `operations` in waves, in order, each holding at most one operation of a record, a
    /// record's later operation always in a later wave than its earlier ones.
    static func waves(of operations: [OutgoingOperation]) -> [[OutgoingOperation]] {
        var waves: [[OutgoingOperation]] = []
        var lastWave: [String: Int] = [:]
        for operation in operations {
            let index = lastWave[operation.entityID].map { $0 + 1 } ?? 0
            if index == waves.count { waves.append([]) }
            waves[index].append(operation)
            lastWave[operation.entityID] = index
        }
        return waves
    }

    /// Finishes one operation's upload from its write's outcome. A file already under its
    /// name is normally this operation's own earlier upload whose answer was lost (the same
    /// bytes: the outbox holds each operation sealed once); any other content is a damaged
    /// leftover (a partial copy, a file linked before its data was flushed) and is replaced,
    /// or no other device would ever receive the change.
    private func finishUpload(_ operation: OutgoingOperation, _ outcome: Result<Bool, RemoteError>,
                              to remote: any Remote) throws(RemoteError) {
        let device = journal.deviceID
        if try outcome.get() { return }
        // A link, a FIFO or an oversized file under this device's own name is not its upload:
        // replaced like a damaged file (a rename replaces the name, never writes through it).
        let existing: [UInt8]
        do throws(RemoteError) {
            existing = try remote.readOperation(operation.fileName, of: device)
        } catch .malformed {
            existing = []
        }
        if existing == operation.sealed || opens(existing, as: operation.fileName) { return }
        log.warning("sync.push.replacedDamagedFile", ["remote": .public(remote.name)])
        try remote.replaceOperation(operation.fileName, of: device, bytes: operation.sealed)
    }

    /// Whether `sealed` opens under the binding of the operation named `fileName`: then it
    /// is that operation, sealed at another time (a stand-in made again after a compaction
    /// failed), not a damaged file.
    private func opens(_ sealed: [UInt8], as fileName: String) -> Bool {
        guard let key = OperationFileName.idempotencyKey(in: fileName),
              var plain = try? cipher.open(operation: sealed, idempotencyKey: key) else { return false }
        wipe(&plain)
        return true
    }

    /// Records a failed upload, which waits out a backoff and then goes again. Every
    /// ``RemoteError`` is something the remote or the network did (an answer bmvault did not
    /// expect, a link where a folder belongs, a lost mount), never something wrong with the
    /// operation: failing it for good would leave it unsent after the remote heals, until
    /// the reader found `--retry-failed`, and the other devices without it (issue 40).
    private func recordFailure(of operation: OutgoingOperation, _ error: RemoteError,
                               using generator: inout SystemRandomNumberGenerator) throws(SyncError<Journal.Failure>) {
        let retryAfter = backoff.delay(afterAttempt: operation.attempts, using: &generator)
        try SyncError.fromJournal { () throws(Journal.Failure) in
            try journal.recordPushFailure(operation.outboxID, errorClass: error.errorClass, retryAfterMilliseconds: retryAfter)
        }
        log.warning("sync.push.failed", ["error": .public(error.errorClass), "attempts": .integer(operation.attempts + 1)])
    }

}

// Not Sendable: one sync runs on one thread, with the journal and remotes it was given.
@available(*, unavailable)
extension SyncEngine: Sendable {}

extension OperationDocument.Decoded {
    var idempotencyKey: String {
        switch self {
        case .operation(let operation): operation.idempotencyKey
        case .refused(let key, _, _, _, _): key
        }
    }

    var deviceID: String {
        switch self {
        case .operation(let operation): operation.deviceID
        case .refused(_, let device, _, _, _): device
        }
    }

    var clock: HybridTimestamp {
        switch self {
        case .operation(let operation): operation.clock
        case .refused(_, _, let clock, _, _): clock
        }
    }
}
