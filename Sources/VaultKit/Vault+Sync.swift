import Applier
internal import FileIO
import Foundation
public import Journal
import Keystore
public import Sync
import SyncWire
import Telemetry
public import VaultStore
import VaultCrypto

extension Vault {
    // MARK: - Remotes

    /// Sets up a folder remote: checks it can be used, claims it for this vault (a folder
    /// holding another vault is refused), and records it.
    @discardableResult
    public func addRemote(name: String, path: String, carriesFiles: Bool = false) throws(VaultError) -> RemoteRecord {
        let store = try unlockedStore()
        try Self.checkRemoteName(name)
        let location = URL(fileURLWithPath: path).standardizedFileURL.path
        let remote = FolderRemote(name: name, location: location, vaultID: vaultID)
        do throws(RemoteError) {
            try remote.checkReachable()
            if let bytes = try remote.readDescriptor(), try RemoteDescriptor.decode(bytes).vaultId != vaultID {
                throw RemoteError.otherVault
            }
        } catch {
            throw Self.folderError(error, remote: name)
        }
        // What a sync will do there, tried first: a file system that cannot is named now.
        do throws(RemoteError) {
            try remote.probe()
        } catch {
            throw .remote(name: name, errorClass: "probe." + error.errorClass)
        }
        try store.writing { tables throws(StoreError) in try tables.remotes.add(name: name, kind: .folder, location: location, carriesFiles: carriesFiles) }
        log.notice("sync.remote.added", ["kind": .public("folder")])
        guard let record = try store.reading({ tables throws(StoreError) in try tables.remotes.all() }).first(where: { $0.name == name }) else {
            throw .remoteNotFound(name: name)
        }
        return record
    }

    /// Whether sync carries book files' encrypted blobs to and from the remote `name`.
    public func setRemoteCarriesFiles(_ carries: Bool, name: String) throws(VaultError) {
        let store = try unlockedStore()
        try store.writing { tables throws(StoreError) in try tables.remotes.setCarriesFiles(carries, remote: name) }
        log.notice("sync.remote.files", ["on": .boolean(carries)])
    }

    /// The remotes, with when each last synced. Works while locked: no content.
    public func remotes() throws(VaultError) -> [RemoteRecord] {
        try store.reading { tables throws(StoreError) in try tables.remotes.all() }
    }

    /// Forgets a remote, and the password kept for a WebDAV one (a keyring that cannot be
    /// reached leaves it there, logged: the remote is forgotten all the same).
    public func removeRemote(name: String) throws(VaultError) {
        let store = try unlockedStore()
        let kind = try store.reading { tables throws(StoreError) in try tables.remotes.all() }.first { $0.name == name }?.kind
        try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in try tables.remotes.remove(name: name) }
            // Operations every remote left has are done: their sealed payloads can go now.
            try store.write { tables throws(StoreError) in try tables.outbox.compact() }
        }
        if kind == .webdav {
            do {
                try keyStore.removeRemotePassword(vaultID: vaultID, remote: name)
            } catch {
                log.warning("sync.remote.passwordLeft", ["outcome": .public(error.caseName)])
            }
        }
    }

    /// How long a deleted record keeps its content, in days (see `TombstonePurge.tombstones`).
    public func tombstoneRetentionDays() throws(VaultError) -> Int {
        try store.reading { tables throws(StoreError) in try tables.tombstones.retentionDays() }
    }

    /// How many deleted records one command purges, at most, on its way (see
    /// ``purgeExpiredTombstones(all:)``).
    public static let purgePerCommand = 100

    /// Purges the content of deleted records older than the retention period, on this
    /// device, with or without a remote (their operations must be sent first): at most
    /// ``purgePerCommand`` of each kind, or all with `all` (`bmvault purge`). Needs no key.
    /// Returns how many were purged.
    @discardableResult
    public func purgeExpiredTombstones(all: Bool = false) throws(VaultError) -> Int {
        try storeCall { () throws(StoreError) -> Int in
            var purged = 0
            while true {
                let now = try store.purge.expired(limit: Self.purgePerCommand, onlyIfDue: !all)
                purged += now
                if !all || now == 0 { return purged }
            }
        }
    }

    /// The same, as housekeeping before a command: a failure never fails the command, it is
    /// logged and tried again at the next.
    public func purgeExpiredTombstonesOnTheWay() {
        do {
            let purged = try purgeExpiredTombstones()
            if purged > 0 { log.notice("tombstones.purged", ["count": .integer(purged)]) }
        } catch {
            log.warning("tombstones.purge.failed")
        }
    }

    public func setTombstoneRetention(days: Int) throws(VaultError) {
        let store = try unlockedStore()
        try store.writing { tables throws(StoreError) in try tables.tombstones.setRetention(days: days) }
    }

    // MARK: - Sync

    /// Pushes the outbox to the remotes (or one), pulls what other devices left there and
    /// applies it through the conflict policies. See ``SyncEngine``.
    /// `askPassword` gives a WebDAV remote's password when the Secret Service keeps none
    /// (``remotesWithoutKeptPassword(named:)``); a server's refusal of a password it did not
    /// get is skipped as `noPassword`, of one it gave as `unauthorized.given`.
    public func sync(remote name: String? = nil, retryFailed: Bool = false, allowMassDelete: Bool = false,
                     askPassword: (RemoteRecord) -> SecretBytes? = { _ in nil },
                     progress: (String) -> Void = { _ in }) throws(VaultError) -> SyncSummary {
        let store = try unlockedStore()
        guard let cipher = operationCipher else { throw .locked }
        var records = try store.reading { tables throws(StoreError) in try tables.remotes.all() }
        if let name {
            records = records.filter { $0.name == name }
            guard !records.isEmpty else { throw .remoteNotFound(name: name) }
        }
        guard !records.isEmpty else { throw .noRemote }
        if retryFailed { _ = try store.writing { tables throws(StoreError) in try tables.outbox.retryFailed() } }
        let made = records.map { makeRemote($0, askPassword: askPassword) }
        let conflictsBefore = try store.reading { tables throws(StoreError) in try tables.annotations.conflictIDs() }
        var summary: SyncSummary
        do {
            summary = try SyncEngine(journal: StoreSyncJournal(store), cipher: cipher, remotes: made.map(\.remote), remotesAreComplete: name == nil,
                                     carryingFiles: Set(records.filter(\.carriesFiles).map(\.name)))
                .run(allowMassDelete: allowMassDelete, progress: progress)
        } catch {
            switch error {
            case .massDelete(let count, let total): throw .massDelete(count: count, total: total)
            case .journal(let storeError): throw .storage(storeError)
            }
        }
        // A refusal of a password no keyring holds, or of one given for this sync, is told
        // apart from a refusal of the kept one: each has its own advice.
        for (record, remote) in zip(records, made) where summary.skipped[record.name] == "unauthorized" {
            switch remote.origin {
            case .none: summary.skipped[record.name] = "noPassword"
            case .given: summary.skipped[record.name] = "unauthorized.given"
            case .keyring: break
            }
        }
        // The conflicts counted are those `conflicts` will list that were not there before: one
        // another device made and resolved, both pulled in this sync, is not left to the reader.
        let conflictsAfter = try store.reading { tables throws(StoreError) in try tables.annotations.conflictIDs() }
        summary.conflicts = conflictsAfter.subtracting(conflictsBefore).count
        // A book file removed on another device: its blob here goes now that no book has it.
        try storeCall { () throws(StoreError) in try store.files.sweep() }
        if summary.skipped.count == records.count, let first = summary.skipped.sorted(by: { $0.key < $1.key }).first {
            throw .remote(name: first.key, errorClass: first.value)
        }
        return summary
    }

    /// The outbox's waiting operations, without payloads.
    public func outbox() throws(VaultError) -> [OutboxEntry] {
        try store.reading { tables throws(StoreError) in try tables.outbox.entries() }
    }

    // MARK: - Conflicts

    /// Conflict copies, and notes an edit brought back after a deletion, with the title of
    /// their book and both sides of each.
    public func conflicts() throws(VaultError) -> [Result<ConflictListing, UnreadableRecord>] {
        let store = try unlockedStore()
        var titles: [EntityID: String] = [:]
        for case .success(let book) in try store.reading({ tables throws(StoreError) in try tables.books.all(includeDeleted: true) }) {
            titles[book.id] = book.title
        }
        let tags = try tagsByRecord(.annotation)
        var listings: [Result<ConflictListing, UnreadableRecord>] = []
        for result in try store.reading({ tables throws(StoreError) in try tables.annotations.conflicts() }) {
            switch result {
            case .failure(let unreadable):
                listings.append(.failure(unreadable))
            case .success(let annotation):
                do throws(StoreError) {
                    let sides = try store.read { tables throws(StoreError) in try tables.annotations.conflictSides(of: annotation.id) }
                    listings.append(.success(ConflictListing(listing: AnnotationListing(annotation: annotation, bookTitle: titles[annotation.bookID],
                                                                                           tags: tags[annotation.id] ?? []),
                                                             sides: sides, thisDevice: store.deviceID)))
                } catch .recordUnreadable(let id, let field) {
                    listings.append(.failure(UnreadableRecord(id: id, field: field)))
                } catch .noConflict {
                    continue   // resolved by another process since it was listed
                } catch {
                    throw .storage(error)
                }
            }
        }
        return listings
    }

    /// Resolves one conflict, keeping the side `keep` names (see ``ConflictKeep``).
    public func resolveConflict(_ id: String, keep: ConflictKeep) throws(VaultError) {
        let reference = try resolveID(id)
        guard reference.kind == .annotation else { throw .noConflict(id: reference.id.rawValue) }
        let store = try unlockedStore()
        try store.writing { tables throws(StoreError) in try tables.annotations.resolveConflict(reference.id, keep: keep) }
    }

    // MARK: - Joining

    /// The name `init --join` gives the remote it joined through.
    public static let joinedRemoteName = "origin"

    /// Where `init --join` finds the vault: a folder, or a WebDAV folder (with the password
    /// its server asks for, kept in the Secret Service once the vault is joined).
    public enum JoinSource {
        case folder(path: String)
        case webdav(WebDAVFolder, password: SecretBytes?)
    }

    /// Creates this device's copy of a vault that already syncs through `source`: the vault
    /// id, keyslots and key chain come from the remote, and the passphrase (or the recovery
    /// key, `usingRecoveryKey`) must open them before anything is written. The remote is
    /// recorded as ``joinedRemoteName``; the new vault is locked. Also says how complete the
    /// remote's copy of the journal is, by its devices' acknowledgements.
    public static func join(at location: VaultLocation, from source: JoinSource, secret: SecretBytes, usingRecoveryKey: Bool,
                            keyStore: any KeyStore, clock: any Clock = SystemClock()) throws(VaultError) -> (Vault, RemoteCompleteness) {
        guard !exists(at: location) else { throw .vaultExists(path: location.databasePath) }
        let (remote, descriptor) = try findVault(in: source)
        guard let keyID = try? KeyID(hex: descriptor.keyId), let slots = descriptor.vaultKeyslots(),
              let keyChain = descriptor.retiredKeys() else {
            throw .remote(name: joinedRemoteName, errorClass: "malformed")
        }
        // Prove the secret opens the vault before creating anything.
        let key: VaultKey
        do throws(CryptoError) {
            if usingRecoveryKey {
                let recoveryKey = try RecoveryKey(parsing: secret)
                guard let slot = slots.first(where: { $0.kind == .recovery }) else { throw CryptoError.malformed }
                key = try slot.unwrap(recoveryKey: recoveryKey, vaultID: descriptor.vaultId)
            } else {
                guard let slot = slots.first(where: { $0.kind == .passphrase }) else { throw CryptoError.malformed }
                key = try slot.unwrap(passphrase: secret, vaultID: descriptor.vaultId)
            }
        } catch .invalidRecoveryKey {
            throw .invalidRecoveryKey
        } catch .recoveryKeyChecksumFailed {
            throw .recoveryKeyChecksumFailed
        } catch .authenticationFailed {
            throw usingRecoveryKey ? .wrongRecoveryKey : .wrongPassphrase
        } catch {
            throw .crypto(error)
        }
        guard key.id == keyID else { throw .remote(name: joinedRemoteName, errorClass: "malformed") }
        let completeness: RemoteCompleteness
        do throws(RemoteError) {
            // What was written before a rekey opens with the chain's keys.
            let cipher = OperationCipher(sealer: FieldSealer(key: key, vaultID: descriptor.vaultId)).adding(keyChain).cipher
            completeness = try RemoteCompleteness.read(from: remote, opening: cipher)
        } catch {
            if case .webdav = source { throw webDAVError(error, remote: nil) }
            throw folderError(error, remote: nil)
        }
        // The server's password is kept before anything is created: a keyring that refuses it
        // leaves no half-joined vault behind.
        if case .webdav(_, let password?) = source {
            do {
                try keyStore.storeRemotePassword(password, vaultID: descriptor.vaultId, remote: Self.joinedRemoteName)
            } catch {
                throw .keystore(error)
            }
        }
        let metadata = VaultMetadata(vaultID: descriptor.vaultId, keyID: keyID, createdAt: clock.now())
        let store = try storeCall { () throws(StoreError) in
            try Store.create(at: location.databasePath, metadata: metadata, keyslots: slots, clock: clock, generatorVersion: BuildInfo.version)
        }
        try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in try tables.keys.setGeneration(descriptor.keyslotGeneration ?? 0) }
            try store.attach(key)
            try StoreSyncJournal(store).adoptRetiredKeys(keyChain)
            switch source {
            case .folder(let path):
                try store.write { tables throws(StoreError) in try tables.remotes.add(name: Self.joinedRemoteName, kind: .folder, location: remoteLocation(for: path)) }
            case .webdav(let folder, _):
                try store.write { tables throws(StoreError) in try tables.remotes.add(name: Self.joinedRemoteName, kind: .webdav, location: folder.url, user: folder.user, caFile: folder.caFile) }
            }
        }
        log.notice("vault.joined")
        return (try open(at: location, keyStore: keyStore, clock: clock), completeness)
    }

    /// The folder to sync through for `path`: the folder given, or, when the reader gave the
    /// `bmvault-<vault id>` folder inside it (what they see on the stick), the one holding it.
    static func remoteLocation(for path: String) -> String {
        let location = URL(fileURLWithPath: path).standardizedFileURL.path
        let name = FileSystem.fileName(of: location)
        guard name.hasPrefix("bmvault-"), FileSystem.exists(location + "/vault.json", followingLinks: false) else { return location }
        return FileSystem.directory(of: location)
    }

    /// A remote folder that cannot be used, said about the folder the reader named (remote
    /// `remote`, or nil for `init --join`): a missing folder and a permission are told apart
    /// from other failures.
    static func folderError(_ error: RemoteError, remote: String?) -> VaultError {
        if case .unreachable(let errno) = error {
            switch Errno(rawValue: errno) {
            case .notFound, .notDirectory: return .remoteFolderMissing(name: remote)
            case .permissionDenied, .notPermitted: return .remoteFolderNotPermitted(name: remote)
            default: break
            }
        }
        return .remote(name: remote ?? joinedRemoteName, errorClass: error.errorClass)
    }

    /// The remote `source` names, on the one vault it holds, and that vault's descriptor.
    private static func findVault(in source: JoinSource) throws(VaultError) -> (any Remote, RemoteDescriptor) {
        switch source {
        case .folder(let path):
            let location = remoteLocation(for: path)
            let descriptor = try findDescriptor(in: location)
            return (FolderRemote(name: joinedRemoteName, location: location, vaultID: descriptor.vaultId), descriptor)
        case .webdav(let folder, let password):
            let credentials = folder.credentials(password: password)
            let vaults: [String]
            do throws(RemoteError) {
                vaults = try WebDAVRemote.vaultIDs(at: folder.url, credentials: credentials, caFile: folder.caFile)
            } catch {
                throw webDAVError(error, remote: nil)
            }
            guard vaults.count == 1, let vaultID = vaults.first else {
                throw .remote(name: joinedRemoteName, errorClass: vaults.isEmpty ? "noVault" : "severalVaults")
            }
            do throws(RemoteError) {
                let remote = WebDAVRemote(name: joinedRemoteName, url: folder.url, vaultID: vaultID, credentials: credentials,
                                          caFile: folder.caFile)
                guard let bytes = try remote.readDescriptor() else { throw RemoteError.malformed(what: "descriptor") }
                let descriptor = try RemoteDescriptor.decode(bytes)
                guard descriptor.vaultId == vaultID else { throw RemoteError.malformed(what: "descriptor") }
                return (remote, descriptor)
            } catch {
                throw webDAVError(error, remote: nil)
            }
        }
    }

    /// The descriptor of the one vault in a remote folder.
    private static func findDescriptor(in location: String) throws(VaultError) -> RemoteDescriptor {
        let names = (try? FileSystem.entries(of: location)) ?? []
        let vaults = names.filter { $0.hasPrefix("bmvault-") }.map { String($0.dropFirst("bmvault-".count)) }
        guard vaults.count == 1, let vaultID = vaults.first else {
            if !FileSystem.exists(location) { throw .remoteFolderMissing(name: nil) }
            throw .remote(name: joinedRemoteName, errorClass: vaults.isEmpty ? "noVault" : "severalVaults")
        }
        do throws(RemoteError) {
            let remote = FolderRemote(name: joinedRemoteName, location: location, vaultID: vaultID)
            try remote.checkReachable()
            guard let bytes = try remote.readDescriptor() else { throw RemoteError.malformed(what: "descriptor") }
            let descriptor = try RemoteDescriptor.decode(bytes)
            guard descriptor.vaultId == vaultID else { throw RemoteError.malformed(what: "descriptor") }
            return descriptor
        } catch {
            throw folderError(error, remote: nil)
        }
    }
}
