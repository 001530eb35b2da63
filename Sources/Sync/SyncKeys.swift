import Journal
import SyncWire
import Telemetry
import VaultCrypto

/// Every decision a sync makes about keys, apart from moving bytes: what this device's
/// descriptor says, and what it takes up from a remote's. The engine hands it each
/// descriptor it read and writes back what it is told to; it never touches a key itself.
///
/// From a descriptor of this same key it takes up the key chain's entries it lacks (so
/// files written under a retired key open here) and keyslots of a higher generation sealed
/// under the key (a passphrase or recovery key changed on another device). A descriptor of
/// another key that this device's is not newer than is a rekey made elsewhere: that remote
/// is left alone until `unlock` takes the rekey up.
struct SyncKeys<Journal: SyncJournal> {
    /// What meeting a remote's descriptor decided.
    enum Meeting {
        /// The remote holds a rekey this device has not taken up: leave it alone.
        case rekeyedElsewhere
        /// Go on with the remote, writing `replacement` as its descriptor first when set.
        case proceed(replacement: RemoteDescriptor?)
    }

    let journal: Journal
    /// Widened when a descriptor carries keys of the chain this device lacks.
    private(set) var cipher: OperationCipher

    init(journal: Journal, cipher: OperationCipher) {
        self.journal = journal
        self.cipher = cipher
    }

    /// Takes up what `theirs` (remote `remote`'s descriptor, nil when it holds no vault yet)
    /// carries for this key, and says whether the sync goes on with that remote.
    mutating func meet(_ theirs: RemoteDescriptor?, of remote: String,
                       summary: inout SyncSummary) throws(SyncError<Journal.Failure>) -> Meeting {
        if let theirs, theirs.keyId == journal.keyID.description {
            try adoptKeyChain(of: theirs)
            try adoptKeyslots(of: theirs, on: remote, summary: &summary)
        }
        let ours = try descriptor()
        if let theirs, theirs.keyId != ours.keyId, !ours.isNewer(than: theirs) {
            log.warning("sync.remote.rekeyedElsewhere", ["remote": .public(remote)])
            return .rekeyedElsewhere
        }
        return .proceed(replacement: ours.replacement(for: theirs))
    }

    /// This device's descriptor: its key, keyslots, their generation (sealed under the key)
    /// and the key chain.
    func descriptor() throws(SyncError<Journal.Failure>) -> RemoteDescriptor {
        let descriptor = try SyncError.fromJournal { () throws(Journal.Failure) in
            RemoteDescriptor(vaultID: journal.vaultID, keyID: journal.keyID, keyslots: try journal.keyslots(),
                             keyslotGeneration: try journal.keyslotGeneration(), keyChain: try journal.retiredKeys())
        }
        do {
            return try cipher.sealingKeyslots(of: descriptor)
        } catch {
            // Unsealed, the other devices only leave its keyslots alone.
            log.warning("sync.descriptor.unsealed")
            return descriptor
        }
    }

    /// Takes up the keyslots another device published for this same key with a higher
    /// generation (a passphrase change or a new recovery key made there) when their seal
    /// opens under the key: a device holding it wrote them. The secrets they replaced stop
    /// opening this device too. Keyslots whose seal does not open (an older bmvault's, or
    /// made up by whoever can write the folder) are left alone; so are they when this
    /// device's own changed meanwhile.
    private func adoptKeyslots(of theirs: RemoteDescriptor, on remote: String,
                               summary: inout SyncSummary) throws(SyncError<Journal.Failure>) {
        let generation = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.keyslotGeneration() }
        guard let newer = theirs.keyslotGeneration, newer > generation else { return }
        guard cipher.sealedKeyslots(of: theirs), let slots = theirs.vaultKeyslots(), Keyslot.areOneOfEachKind(slots) else {
            log.notice("sync.keyslots.notSealed", ["remote": .public(remote)])
            return
        }
        let adopted = try SyncError.fromJournal { () throws(Journal.Failure) in
            try journal.adoptKeyslots(slots, generation: newer, replacing: generation)
        }
        guard adopted else { return }
        summary.keyslotsTakenUp = remote
        log.notice("sync.keyslots.adopted", ["remote": .public(remote), "generation": .integer(Int64(newer))])
    }

    /// Takes up the keys of a descriptor's chain (under this device's key) that this device
    /// lacks: after two devices rekeyed at once, the one that followed the other added its
    /// own retired key, and every device needs it for the files written under it.
    private mutating func adoptKeyChain(of theirs: RemoteDescriptor) throws(SyncError<Journal.Failure>) {
        let (wider, added) = cipher.adding(theirs.retiredKeys() ?? [])
        guard !added.isEmpty else { return }
        let adopted = try SyncError.fromJournal { () throws(Journal.Failure) in try journal.adoptRetiredKeys(added) }
        cipher = wider
        log.notice("sync.keyChain.adopted", ["count": .integer(Int64(adopted))])
    }
}
