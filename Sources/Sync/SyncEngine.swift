import Foundation
import Journal
import Telemetry
import VaultStore

/// What one sync did, for the summary line and `--json`.
public struct SyncSummary: Sendable, Equatable {
    public var pushed = 0
    public var pulled = 0
    public var conflicts = 0
    public var deferred = 0
    public var rejected = 0
    /// Uploads that failed this time (they stay in the outbox, with their next retry).
    public var failures = 0
    /// Tombstones whose content was purged (see `Store.purgeTombstones`).
    public var purged = 0
    /// Other devices silent for longer than the retention period, with the days since their
    /// last sync: the files of deleted records wait on the remotes for them.
    public var silentDevices: [String: Int] = [:]
    /// Days since this device last synced, when that was longer than the retention period:
    /// it has now taken in everything it missed.
    public var returningAfterDays: Int?
    /// Remotes that could not be used, with why (error class).
    public var skipped: [String: String] = [:]

    public init() {}
}

/// Why a sync stopped before doing anything.
public enum SyncError: Error, Equatable, Sendable {
    /// Applying what the remotes hold would delete `count` of this vault's `total` live books
    /// and notes: more than the fail-safe allows without `--allow-mass-delete`.
    case massDelete(count: Int, total: Int)
    case store(StoreError)
}

/// Drains the outbox to remotes and applies what other devices left there.
///
/// The orchestration the seed asks for: each remote is checked for reachability before
/// anything is sent; pulled operations are checked by the mass-delete fail-safe and then
/// applied in transactional batches; the outbox is drained oldest first, each failure is
/// recorded with its class and a backoff (full jitter), permanent failures are kept as
/// `failed`, and a retry of an upload whose answer was lost finds the file already there.
/// Last, each remote gets this device's acknowledgement of what it has applied, and the
/// tombstones every device has acknowledged (or older than the retention) lose their content.
public final class SyncEngine {
    public static let batchSize = 500
    /// The fail-safe: a sync may not delete more than this share of the live records...
    public static let massDeleteShare = 0.5
    /// ...counting only when it deletes at least this many.
    public static let massDeleteMinimum = 10

    let store: Store
    let remotes: [any Remote]
    let backoff: Backoff

    /// Whether `remotes` are all the vault's remotes, so that the devices they list are all
    /// the devices that could still need a tombstone (otherwise only the retention purges).
    let remotesAreComplete: Bool

    public init(store: Store, remotes: [any Remote], remotesAreComplete: Bool = true, backoff: Backoff = Backoff()) {
        self.store = store
        self.remotesAreComplete = remotesAreComplete
        #if DEBUG
        self.remotes = remotes.map(FaultInjectingRemote.wrapIfRequested)
        #else
        self.remotes = remotes
        #endif
        self.backoff = backoff
    }

    public func run(allowMassDelete: Bool, progress: (String) -> Void = { _ in }) throws(SyncError) -> SyncSummary {
        var summary = SyncSummary()
        var reachable: [any Remote] = []
        for remote in remotes {
            do {
                try remote.checkReachable()
                try checkDescriptor(of: remote)
                reachable.append(remote)
            } catch {
                summary.skipped[remote.name] = error.errorClass
                log.warning("sync.remote.skipped", ["error": .public(error.errorClass)])
            }
        }

        // Acknowledgements first: every operation a device sent before acknowledging is then
        // in the listing below.
        var acknowledgements = Acknowledgements(ownDevice: store.deviceID)
        for remote in reachable {
            do { try acknowledgements.read(from: remote, opening: store) } catch {
                summary.skipped[remote.name] = error.errorClass
            }
        }

        let retention = try storeCall { () throws(StoreError) in try store.tombstoneRetentionDays() }
        var silent = acknowledgements.silent(forMoreThan: retention, now: store.now)
        summary.returningAfterDays = silent.removeValue(forKey: store.deviceID)
        summary.silentDevices = silent
        if let days = summary.returningAfterDays { log.notice("sync.device.returning", ["days": .integer(days)]) }

        // Pull: gather every new operation first, so the fail-safe sees the whole change.
        var incoming: [IncomingOperation] = []
        var listed: [String: [String: [String]]] = [:]
        var seen = Set<String>()
        for remote in reachable where summary.skipped[remote.name] == nil {
            do {
                let (operations, names) = try newOperations(on: remote, summary: &summary)
                listed[remote.name] = names
                for operation in operations where seen.insert(operation.idempotencyKey).inserted {
                    incoming.append(operation)
                }
            } catch {
                summary.skipped[remote.name] = error.errorClass
            }
        }
        let deleted = store.deletions(in: incoming)
        let live = try storeCall { () throws(StoreError) in try store.liveRecords(among: deleted) }
        if !allowMassDelete, live.matching >= Self.massDeleteMinimum,
           Double(live.matching) > Self.massDeleteShare * Double(live.total) {
            log.warning("sync.massDelete.blocked", ["count": .integer(live.matching), "total": .integer(live.total)])
            throw .massDelete(count: live.matching, total: live.total)
        }
        incoming.sort { $0.clock < $1.clock }
        var start = 0
        while start < incoming.count {
            let batch = Array(incoming[start..<min(start + Self.batchSize, incoming.count)])
            let report = try storeCall { () throws(StoreError) in try store.apply(batch) }
            summary.pulled += report.applied
            summary.conflicts += report.conflicts
            summary.deferred += report.deferred
            summary.rejected += report.rejected
            start += batch.count
            FaultInjection.reach("sync:applied-batch")
            progress("pulled \(min(start, incoming.count)) of \(incoming.count)")
        }

        // Push.
        for remote in reachable where summary.skipped[remote.name] == nil {
            try push(to: remote, summary: &summary, progress: progress)
        }

        // Acknowledge, then purge what every device has acknowledged or the retention allows.
        for remote in reachable where summary.skipped[remote.name] == nil {
            acknowledge(on: remote, listed: listed[remote.name] ?? [:])
        }
        // Tombstones: content purged here once every device has acknowledged the deletion or
        // after the retention; files removed from the remotes only once every device has.
        let everyDeviceIsKnown = remotesAreComplete && summary.skipped.isEmpty
        summary.purged = try storeCall { () throws(StoreError) in
            try store.purgeTombstones(store.tombstonesToPurge { everyDeviceIsKnown && acknowledgements.coverEveryDevice($0.clock) })
        }
        if everyDeviceIsKnown { try compactTombstones(on: reachable, acknowledgements: acknowledgements) }
        log.notice("sync.finished", ["pushed": .integer(summary.pushed), "pulled": .integer(summary.pulled),
                                     "conflicts": .integer(summary.conflicts), "failures": .integer(summary.failures),
                                     "purged": .integer(summary.purged),
                                     "skipped": .integer(summary.skipped.count)])
        return summary
    }

    /// Writes the descriptor to a new remote; refuses a remote holding another vault.
    /// An existing descriptor is replaced only by newer keyslots (a passphrase change or a
    /// rekey made here), never by a device that has not caught up with one made elsewhere.
    private func checkDescriptor(of remote: any Remote) throws(RemoteError) {
        let ours = descriptor()
        guard let bytes = try remote.readDescriptor() else {
            try remote.writeDescriptor(ours.encoded())
            return
        }
        let theirs = try RemoteDescriptor.decode(bytes)
        guard theirs.vaultId == ours.vaultId else { throw .otherVault }
        if (ours.keyslotGeneration ?? 0) > (theirs.keyslotGeneration ?? 0) { try remote.writeDescriptor(ours.encoded()) }
    }

    private func descriptor() -> RemoteDescriptor {
        let slots = ((try? store.keyslots()) ?? []).map {
            RemoteDescriptor.Slot(id: $0.id, kind: $0.kind.rawValue, kdf: $0.kdf.algorithm, opsLimit: $0.kdf.opsLimit,
                                  memLimit: $0.kdf.memLimit, salt: $0.salt, wrappedKey: $0.wrappedKey)
        }
        return RemoteDescriptor(vaultID: store.metadata.vaultID, keyID: store.metadata.keyID.description, keyslots: slots,
                                keyslotGeneration: (try? store.keyslotGeneration()) ?? 0)
    }

    /// Every operation other devices left on `remote` that this vault has not applied, and
    /// the names of every device's operation files (for the acknowledgement).
    private func newOperations(on remote: any Remote,
                               summary: inout SyncSummary) throws(RemoteError) -> ([IncomingOperation], [String: [String]]) {
        var operations: [IncomingOperation] = []
        var listed: [String: [String]] = [:]
        for device in try remote.devices() where device != store.deviceID {
            let applied = (try? store.appliedOperationKeys(from: device)) ?? []
            let names = try remote.operationNames(of: device)
            listed[device] = names
            for name in names {
                guard let key = OperationFile.idempotencyKey(inName: name), !applied.contains(key) else { continue }
                let sealed = try remote.readOperation(name, of: device)
                // A file that does not open under this vault's key and binding, or is not an
                // operation, is counted and logged (by class), and read again next time.
                guard let plain = try? store.openRemoteOperation(sealed, idempotencyKey: key),
                      let operation = try? OperationFile.decode(plain, expectedKey: key, device: device) else {
                    summary.rejected += 1
                    log.warning("sync.operation.unreadable", ["remote": .public(remote.name)])
                    continue
                }
                operations.append(operation)
            }
        }
        return (operations, listed)
    }

    /// Removes this device's files about every tombstone all other devices have
    /// acknowledged, from every remote: no device can then miss an operation it needs, and
    /// the remotes no longer hold the content. If any remote fails, the operations are kept
    /// and the next sync tries again.
    private func compactTombstones(on remotes: [any Remote], acknowledgements: Acknowledgements) throws(SyncError) {
        // Every device has the deletion, and every file of this device about the record.
        let tombstones = try storeCall { () throws(StoreError) in
            try store.tombstonesToCompact { tombstone in
                acknowledgements.coverEveryDevice(tombstone.clock)
                    && tombstone.operations.allSatisfy { acknowledgements.coverEveryDevice($0.clock) }
            }
        }
        guard !tombstones.isEmpty else { return }
        for remote in remotes {
            do {
                try compact(tombstones, on: remote)
            } catch {
                let errorClass = (error as? RemoteError)?.errorClass ?? "store"
                log.warning("sync.compaction.failed", ["remote": .public(remote.name), "error": .public(errorClass)])
                return
            }
        }
        try storeCall { () throws(StoreError) in try store.forgetSentOperations(of: tombstones) }
    }

    /// A content-free stand-in for each deletion this device made (so a device that joins
    /// later still learns of it), durable, and only then the removal of this device's files.
    private func compact(_ tombstones: [Tombstone], on remote: any Remote) throws {
        // Only the deletion needs a stand-in, and only the device that made it sends one
        // (another device's deletion stays on the remote in that device's folder).
        for tombstone in tombstones {
            guard let deletion = tombstone.ownDeletion else { continue }
            let operation = try storeCall { () throws(StoreError) in try store.tombstoneOperation(for: tombstone, replacing: deletion) }
            try upload(operation, to: remote)
        }
        try remote.commitWrites()
        for tombstone in tombstones {
            for sent in tombstone.operations {
                try remote.removeOperation(OperationFile.name(clock: sent.clock, idempotencyKey: sent.idempotencyKey), of: store.deviceID)
            }
        }
        try remote.commitWrites()
    }

    /// Leaves this device's acknowledgement on `remote`. A failure only delays purging, so
    /// it is logged and the sync goes on.
    private func acknowledge(on remote: any Remote, listed: [String: [String]]) {
        let marks = Acknowledgement.watermarks(listed: listed) { device in (try? store.appliedOperationKeys(from: device)) ?? [] }
        let acknowledgement = Acknowledgement(device: store.deviceID, at: store.now, applied: marks)
        do {
            let sealed = try store.sealRemoteAcknowledgement(acknowledgement.encoded(), device: store.deviceID)
            try remote.writeAcknowledgement(sealed, of: store.deviceID)
        } catch {
            log.warning("sync.acknowledgement.failed", ["remote": .public(remote.name)])
        }
    }

    private func push(to remote: any Remote, summary: inout SyncSummary, progress: (String) -> Void) throws(SyncError) {
        var blockedRecords = Set<String>()
        var generator = SystemRandomNumberGenerator()
        while true {
            let operations = try storeCall { () throws(StoreError) in try store.operationsToPush(to: remote.name, limit: Self.batchSize) }
                .filter { !blockedRecords.contains($0.entityID) }
            guard !operations.isEmpty else { return }
            var written: [OutgoingOperation] = []
            var remoteDown = false
            for operation in operations where !blockedRecords.contains(operation.entityID) {
                do {
                    try upload(operation, to: remote)
                    written.append(operation)
                    FaultInjection.reach("sync:wrote-operation:\(summary.pushed + written.count)")
                } catch let error as RemoteError {
                    summary.failures += 1
                    // Later changes to the same record wait, so devices see them in order.
                    blockedRecords.insert(operation.entityID)
                    try recordFailure(of: operation, error, using: &generator)
                    if case .unreachable = error { remoteDown = true; break }
                } catch let error as SyncError {
                    throw error
                } catch {
                    throw .store(.database(code: 0, message: "unexpected error while pushing"))
                }
            }
            // Durable on the remote first, then marked delivered: a crash in between only
            // means the same files are offered again, and land on the names they have.
            if !written.isEmpty {
                do { try remote.commitWrites() } catch {
                    summary.failures += written.count
                    for operation in written { try recordFailure(of: operation, error, using: &generator) }
                    return
                }
            }
            let delivered = written.map(\.outboxID)
            try storeCall { () throws(StoreError) in try store.markDelivered(delivered, to: remote.name) }
            summary.pushed += delivered.count
            progress("pushed \(summary.pushed)")
            if remoteDown || delivered.isEmpty { return }
        }
    }

    /// Writes one operation's file. A file already under its name is normally this
    /// operation's own earlier upload whose answer was lost; one that does not open as this
    /// operation is a damaged leftover (a partial copy, a file linked before its data was
    /// flushed) and is replaced, or no other device would ever receive the change.
    private func upload(_ operation: OutgoingOperation, to remote: any Remote) throws {
        let device = store.deviceID
        let key = operation.idempotencyKey
        let sealed = try storeCall { () throws(StoreError) in
            try store.sealRemoteOperation(OperationFile(operation, device: device).encoded(), idempotencyKey: key)
        }
        let name = OperationFile.name(clock: operation.clock, idempotencyKey: key)
        if try remote.writeOperation(name, of: device, bytes: sealed) { return }
        let existing = try remote.readOperation(name, of: device)
        if let plain = try? store.openRemoteOperation(existing, idempotencyKey: key),
           (try? OperationFile.decode(plain, expectedKey: key, device: device)) != nil {
            return
        }
        log.warning("sync.push.replacedDamagedFile", ["remote": .public(remote.name)])
        try remote.replaceOperation(name, of: device, bytes: sealed)
    }

    /// Records a failed upload: a temporary failure waits out a backoff, a permanent one
    /// moves the operation to `failed`.
    private func recordFailure(of operation: OutgoingOperation, _ error: RemoteError,
                               using generator: inout SystemRandomNumberGenerator) throws(SyncError) {
        let retryAfter = error.isTemporary ? backoff.delay(afterAttempt: operation.attempts, using: &generator) : nil
        try storeCall { () throws(StoreError) in
            try store.recordPushFailure(operation.outboxID, errorClass: error.errorClass, retryAfterMilliseconds: retryAfter)
        }
        log.warning("sync.push.failed", ["error": .public(error.errorClass), "attempts": .integer(operation.attempts + 1)])
    }

    private func storeCall<Result>(_ body: () throws(StoreError) -> Result) throws(SyncError) -> Result {
        do { return try body() } catch { throw .store(error) }
    }
}
