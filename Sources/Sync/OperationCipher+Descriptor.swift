import SyncWire
import VaultCrypto

extension OperationCipher {
    /// `descriptor`, this device's (its key is the current one), with its keyslots sealed.
    func sealingKeyslots(of descriptor: RemoteDescriptor) throws(CryptoError) -> RemoteDescriptor {
        try descriptor.sealingKeyslots(with: currentSealer)
    }

    /// Whether `descriptor`'s keyslots were sealed under the current key.
    func sealedKeyslots(of descriptor: RemoteDescriptor) -> Bool {
        descriptor.keyslotsAreSealed(by: currentSealer)
    }
}
