internal import CCrypto
internal import CSodium

/// SHA-256 of data that is not secret: a book file's contents (its checksum, checked again
/// whenever the file is read back), an archive's files (its manifest), a backup, a migration's
/// SQL, the digests that find an imported highlight or an archive's note again, and the ids
/// every device derives alike (`DerivedIDs`). Where a digest is stored in the vault (a book
/// file's checksum, an import key) it is sealed like any other field.
///
/// Two libraries compute it, one function: a hasher (`init()`, `update(_:)`, `finalizeHex()`)
/// uses OpenSSL's libcrypto, whose SHA-256 uses the CPU's SHA extensions (five to seven times
/// libsodium's portable one, Docs/PERFORMANCE.md section 27), for what is hashed in bulk: book
/// files and archives, most of `file add`'s time and half of `export`'s instructions.
/// ``hex(of:)`` uses libsodium's `crypto_hash_sha256`, for the short texts a command hashes
/// (the migration history, checked at every open; import keys; derived ids): libcrypto's first
/// use in a process reads its configuration and sets up its default provider, 1.5 to 3 ms and
/// about 2.5 MiB, more than those texts take to hash. The digests are SHA-256's either way, so
/// nothing stored or exchanged changed when the hasher moved to libcrypto;
/// `SHA256AgreementTests` holds the two equal.
///
/// Not a MAC and not a key derivation: nothing is keyed with it, and it must never make an
/// identifier from a secret. Encryption, key derivation and keyed hashing stay with libsodium
/// (`FieldSealer`, `FileStream`, `Keyslot`, `LogTagger`).
///
/// A value type: a copied hasher continues independently (its libcrypto context is copied
/// before either copy changes it).
public struct SHA256: Sendable {
    private var context = DigestContext()

    public init() {}

    public mutating func update(_ bytes: some Collection<UInt8>) {
        // An array, a slice of one or a string's UTF-8 is hashed where it lies.
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Hashes `buffer` where it lies: a book file goes through in chunks, never copied.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        uniqueContext().update(base, count: buffer.count)
    }

    /// The digest as 64 lowercase hex characters. The hasher is spent afterwards: make a new
    /// one for the next digest.
    public mutating func finalizeHex() -> String {
        encodeHex(uniqueContext().finalize())
    }

    /// The digest of a short text, as 64 lowercase hex characters, through libsodium (see above:
    /// bulk data goes through a hasher).
    public static func hex(of bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return encodeHex(digest)
    }

    /// The context, copied first if another `SHA256` shares it (copy-on-write).
    private mutating func uniqueContext() -> DigestContext {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        return context
    }
}

/// One libcrypto SHA-256 context (`EVP_MD_CTX`), freed with the last `SHA256` that holds it.
///
/// A failed libcrypto call stops the process with a precondition rather than throwing: it
/// means libcrypto could not allocate a few hundred bytes or has no SHA-256 (a broken install),
/// the kind of failure Swift itself stops on for memory, and no caller could do anything but
/// give up. Throwing would put an error that never happens on every path that hashes a file or
/// an archive. The messages name the call, never what was being hashed.
///
/// `@unchecked Sendable`: the context is changed only through a `SHA256` holding the only
/// reference to it (`isKnownUniquelyReferenced`); shared, it is only read, to be copied.
private final class DigestContext: @unchecked Sendable {
    private let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest context") }
        precondition(EVP_DigestInit_ex(context, FetchedSHA256.shared.method, nil) == 1, "libcrypto could not start a SHA-256 digest")
        self.context = context
    }

    private init(copying other: OpaquePointer) {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest context") }
        precondition(EVP_MD_CTX_copy_ex(context, other) == 1, "libcrypto could not copy a SHA-256 digest")
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func copy() -> DigestContext {
        DigestContext(copying: context)
    }

    func update(_ base: UnsafeRawPointer, count: Int) {
        precondition(EVP_DigestUpdate(context, base, count) == 1, "libcrypto could not hash")
    }

    func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "libcrypto could not finish a SHA-256 digest")
        return Array(digest.prefix(Int(length)))
    }
}

/// libcrypto's SHA-256, fetched from its default provider once per process and kept for its
/// life: `EVP_sha256()` would be looked up again at every `EVP_DigestInit_ex`, about 0.6 µs,
/// more than hashing a short text (an archive import hashes every note's).
///
/// `@unchecked Sendable`: a fetched `EVP_MD` is never changed, and libcrypto lets any thread use it.
private struct FetchedSHA256: @unchecked Sendable {
    static let shared = FetchedSHA256()

    let method: OpaquePointer

    private init() {
        guard let method = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("libcrypto has no SHA-256") }
        self.method = method
    }
}
