import Testing
internal import CSodium
@testable import VaultCrypto

/// Sizes of the version-1 envelope: version | key id (8) | nonce (24) | ciphertext | tag (16).
private let headerCount = 1 + 8
private let nonceCount = 24
private let tagCount = 16
private let overhead = headerCount + nonceCount + tagCount

/// The envelope length for a plaintext of `count` bytes: ISO/IEC 7816-4 padding to 32
/// always adds at least the 0x80 marker, so 32 bytes of text take two blocks.
private func envelopeCount(forPlaintext count: Int) -> Int {
    overhead + (count / 32 + 1) * 32
}

/// The associated data written independently of the implementation: header, then each of
/// purpose, vault, table, record, field as a 2-byte big-endian length and its UTF-8.
private func expectedAdditionalData(header: [UInt8], purpose: String, _ binding: Binding) -> [UInt8] {
    var out = header
    for component in [purpose, binding.vaultID, binding.table, binding.recordID, binding.field] {
        let utf8 = Array(component.utf8)
        out += [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xff)] + utf8
    }
    return out
}

@Suite("FieldSealer")
struct FieldSealerTests {
    let key: VaultKey
    let sealer: FieldSealer
    static let vaultID = "0193f2a1-7c4e-7abc-8def-0123456789ab"
    static let home = Binding(vaultID: vaultID, table: "book", recordID: "0193f2a1-0000-7000-8000-000000000001", field: "title")

    init() throws {
        key = try VaultKey.generate()
        sealer = FieldSealer(key: key, vaultID: Self.vaultID)
    }

    private func seal(_ text: String, binding: Binding = home) throws -> [UInt8] {
        try sealer.seal(Array(text.utf8), binding: binding)
    }

    // MARK: - Round trips

    @Test("Text round-trips through seal and open", arguments: [
        "The Left Hand of Darkness",
        "Ünïcødé — 読書の記録 📚 👩‍👩‍👧‍👦 🏳️‍🌈",
        "",
        "line one\nline two\r\n\ttabbed\u{0}nul",
    ])
    func roundTrip(text: String) throws {
        let sealed = try sealer.seal(Array(text.utf8), table: "book", recordID: "r1", field: "title")
        let opened = try sealer.open(sealed, table: "book", recordID: "r1", field: "title")
        #expect(opened == Array(text.utf8))
        #expect(String(decoding: opened, as: UTF8.self) == text)
    }

    @Test("One MiB of random bytes round-trips")
    func roundTripOneMebibyte() throws {
        let plaintext = try randomBytes(count: 1 << 20)
        let sealed = try sealer.seal(plaintext, binding: Self.home)
        #expect(sealed.count == envelopeCount(forPlaintext: 1 << 20))
        let opened = try sealer.open(sealed, binding: Self.home)
        #expect(opened == plaintext)
    }

    @Test("Every byte value and every padding boundary round-trips")
    func roundTripBoundaries() throws {
        for count in [0, 1, 15, 31, 32, 33, 63, 64, 65, 255, 256] {
            let plaintext = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 0x80) }
            let sealed = try sealer.seal(plaintext, binding: Self.home)
            #expect(try sealer.open(sealed, binding: Self.home) == plaintext, "length \(count)")
        }
    }

    @Test("A plaintext ending in the 0x80 padding marker and zeros is not shortened")
    func plaintextThatLooksPadded() throws {
        let plaintext: [UInt8] = [0x41, 0x80, 0x00, 0x00, 0x80]
        let sealed = try sealer.seal(plaintext, binding: Self.home)
        #expect(try sealer.open(sealed, binding: Self.home) == plaintext)
    }

    @Test("Sealing accepts any collection of bytes, and opening accepts a slice")
    func genericCollections() throws {
        let text = "slice me"
        let sealed = try sealer.seal(text.utf8, binding: Self.home)
        let padded = [0xEE] + sealed + [0xEE]
        let opened = try sealer.open(padded[1..<(padded.count - 1)], binding: Self.home)
        #expect(opened == Array(text.utf8))
    }

    @Test("The table/record/field form binds the sealer's vault id")
    func convenienceFormUsesVaultID() throws {
        let sealed = try sealer.seal(Array("x".utf8), table: "annotation", recordID: "r9", field: "body")
        let explicit = Binding(vaultID: Self.vaultID, table: "annotation", recordID: "r9", field: "body")
        #expect(try sealer.open(sealed, binding: explicit) == Array("x".utf8))
        #expect(sealer.vaultID == Self.vaultID)
    }

    @Test("Another sealer over the same key and vault opens the value")
    func sameKeyOtherInstance() throws {
        let sealed = try seal("shared")
        let twin = try FieldSealer(key: vaultKey(rawBytes(key)), vaultID: Self.vaultID)
        #expect(try twin.open(sealed, binding: Self.home) == Array("shared".utf8))
    }

    // MARK: - Envelope

    @Test("Two seals of the same text differ (fresh nonce each time) and both open")
    func freshNonce() throws {
        let first = try seal("same text")
        let second = try seal("same text")
        #expect(first != second)
        #expect(first[headerCount..<(headerCount + nonceCount)] != second[headerCount..<(headerCount + nonceCount)])
        #expect(try sealer.open(first, binding: Self.home) == Array("same text".utf8))
        #expect(try sealer.open(second, binding: Self.home) == Array("same text".utf8))
    }

    @Test("The envelope starts with version byte 1, then the 8 key-id bytes")
    func envelopeHeader() throws {
        let sealed = try seal("header")
        #expect(FieldSealer.formatVersion == 1)
        #expect(sealed[0] == 1)
        #expect(Array(sealed[1..<9]) == key.id.bytes)
        #expect(sealer.keyID == key.id)
        #expect(key.id.bytes.count == 8)
    }

    @Test("The plaintext does not appear in the envelope")
    func noPlaintextInEnvelope() throws {
        let text = String(repeating: "secret reading notes ", count: 8)
        let sealed = try seal(text)
        let needle = Array("secret reading".utf8)
        let found = sealed.indices.dropLast(needle.count).contains { Array(sealed[$0..<($0 + needle.count)]) == needle }
        #expect(!found)
    }

    @Test("The envelope is exactly the documented XChaCha20-Poly1305 construction")
    func envelopeMatchesSpecification() throws {
        let plaintext = Array("Only the format, independently decoded".utf8)
        let sealed = try seal(String(decoding: plaintext, as: UTF8.self))
        let additional = expectedAdditionalData(header: Array(sealed[0..<headerCount]), purpose: "bmvault.field", Self.home)
        #expect(try additional == Self.home.encoded(purpose: "bmvault.field", header: Array(sealed[0..<headerCount])))

        let cipher = Array(sealed[(headerCount + nonceCount)...])
        let nonce = Array(sealed[headerCount..<(headerCount + nonceCount)])
        var padded = [UInt8](repeating: 0, count: cipher.count - tagCount)
        var paddedCount: UInt64 = 0
        let keyBytes = rawBytes(key)
        let status = crypto_aead_xchacha20poly1305_ietf_decrypt(
            &padded, &paddedCount, nil, cipher, UInt64(cipher.count),
            additional, UInt64(additional.count), nonce, keyBytes)
        try #require(status == 0)
        #expect(Int(paddedCount) == 64)
        #expect(Array(padded[0..<plaintext.count]) == plaintext)
        #expect(padded[plaintext.count] == 0x80)
        #expect(padded[(plaintext.count + 1)...].allSatisfy { $0 == 0 })
    }

    @Test("An authentic envelope whose padding is invalid is .malformed")
    func badPaddingIsMalformed() throws {
        // Build a correctly authenticated envelope around a block with no 0x80 marker.
        let header = [UInt8(1)] + key.id.bytes
        let nonce = try randomBytes(count: nonceCount)
        let additional = expectedAdditionalData(header: header, purpose: "bmvault.field", Self.home)
        let block = [UInt8](repeating: 0, count: 32)
        var cipher = [UInt8](repeating: 0, count: block.count + tagCount)
        let keyBytes = rawBytes(key)
        let status = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &cipher, nil, block, UInt64(block.count), additional, UInt64(additional.count), nil, nonce, keyBytes)
        try #require(status == 0)
        #expect(throws: CryptoError.malformed) {
            try sealer.open(header + nonce + cipher, binding: Self.home)
        }
    }

    // MARK: - Padding

    @Test("Padding hides the exact length: 1 and 31 bytes seal to the same size; 32 and 33 are larger")
    func paddingHidesLength() throws {
        let one = try sealer.seal([UInt8](repeating: 0x61, count: 1), binding: Self.home)
        let thirtyOne = try sealer.seal([UInt8](repeating: 0x61, count: 31), binding: Self.home)
        let thirtyTwo = try sealer.seal([UInt8](repeating: 0x61, count: 32), binding: Self.home)
        let thirtyThree = try sealer.seal([UInt8](repeating: 0x61, count: 33), binding: Self.home)
        let empty = try sealer.seal([UInt8](), binding: Self.home)
        #expect(one.count == thirtyOne.count)
        #expect(empty.count == one.count)
        #expect(thirtyThree.count > thirtyOne.count)
        #expect(thirtyTwo.count > thirtyOne.count)
        #expect(thirtyTwo.count == thirtyThree.count)
    }

    @Test("Envelope size is header + nonce + padded blocks + tag", arguments: [0, 1, 31, 32, 33, 63, 64, 100, 1000])
    func envelopeSize(plaintextCount: Int) throws {
        let sealed = try sealer.seal([UInt8](repeating: 0x7a, count: plaintextCount), binding: Self.home)
        #expect(sealed.count == envelopeCount(forPlaintext: plaintextCount))
        #expect((sealed.count - overhead) % 32 == 0)
    }

    // MARK: - Binding

    static let movedBindings: [Binding] = [
        Binding(vaultID: vaultID, table: "book", recordID: "0193f2a1-0000-7000-8000-000000000002", field: "title"),
        Binding(vaultID: vaultID, table: "book", recordID: home.recordID, field: "authors"),
        Binding(vaultID: vaultID, table: "annotation", recordID: home.recordID, field: "title"),
        Binding(vaultID: "0193f2a1-7c4e-7abc-8def-0123456789ac", table: "book", recordID: home.recordID, field: "title"),
        Binding(vaultID: vaultID, table: "book", recordID: home.recordID, field: "Title"),
        Binding(vaultID: vaultID, table: "book", recordID: home.recordID, field: ""),
        // Moving a boundary between components must not give the same associated data.
        Binding(vaultID: vaultID, table: "boo", recordID: "k" + home.recordID, field: "title"),
        Binding(vaultID: vaultID, table: "book", recordID: home.recordID + "t", field: "itle"),
        Binding(vaultID: vaultID + "b", table: "ook", recordID: home.recordID, field: "title"),
        Binding(vaultID: vaultID, table: "book" + home.recordID, recordID: "", field: "title"),
    ]

    @Test("A ciphertext moved to another record, field, table or vault does not open", arguments: movedBindings)
    func bindingIsEnforced(moved: Binding) throws {
        let sealed = try seal("bound")
        #expect(throws: CryptoError.authenticationFailed) {
            try sealer.open(sealed, binding: moved)
        }
        // And it still opens where it belongs.
        #expect(try sealer.open(sealed, binding: Self.home) == Array("bound".utf8))
    }

    @Test("The table/record/field form rejects another record, field or table")
    func convenienceBinding() throws {
        let sealed = try sealer.seal(Array("t".utf8), table: "book", recordID: "r1", field: "title")
        #expect(throws: CryptoError.authenticationFailed) { try sealer.open(sealed, table: "book", recordID: "r2", field: "title") }
        #expect(throws: CryptoError.authenticationFailed) { try sealer.open(sealed, table: "book", recordID: "r1", field: "authors") }
        #expect(throws: CryptoError.authenticationFailed) { try sealer.open(sealed, table: "annotation", recordID: "r1", field: "title") }
    }

    @Test("A sealer for another vault, same key, cannot open the value")
    func otherVaultSameKey() throws {
        let sealed = try sealer.seal(Array("t".utf8), table: "book", recordID: "r1", field: "title")
        let other = FieldSealer(key: key, vaultID: Self.vaultID + "-other")
        #expect(throws: CryptoError.authenticationFailed) {
            try other.open(sealed, table: "book", recordID: "r1", field: "title")
        }
    }

    @Test("Distinct bindings encode to distinct associated data")
    func bindingEncodingIsInjective() throws {
        let header: [UInt8] = [1, 2, 3]
        var encodings: [[UInt8]] = []
        for binding in [Self.home] + Self.movedBindings { encodings.append(try binding.encoded(purpose: "p", header: header)) }
        #expect(Set(encodings).count == encodings.count)
        let home = try Self.home.encoded(purpose: "p", header: header)
        #expect(try home != Self.home.encoded(purpose: "q", header: header))
        #expect(try home != Self.home.encoded(purpose: "p", header: [1, 2, 4]))
        #expect(Array(home.prefix(3)) == header)
    }

    @Test("A binding component too long for its 16-bit length prefix is refused, not wrapped")
    func longComponentsAreRefused() throws {
        // With 16-bit length prefixes, a 65,536-byte record id would wrap to length 0 and
        // collide with another binding; such components are refused instead.
        let filler = String(repeating: "a", count: 65_534)
        let first = Binding(vaultID: Self.vaultID, table: "book", recordID: "\u{0}\u{1}" + filler, field: "f")
        let second = Binding(vaultID: Self.vaultID, table: "book", recordID: "", field: filler + "\u{0}\u{1}f")
        #expect(throws: CryptoError.malformed) { try first.encoded(purpose: "bmvault.field", header: [1]) }
        #expect(throws: CryptoError.malformed) { try sealer.seal(Array("moved".utf8), binding: first) }
        #expect(throws: CryptoError.malformed) { try second.encoded(purpose: "bmvault.field", header: [1]) }
        // The largest allowed component still works.
        let largest = Binding(vaultID: Self.vaultID, table: "book", recordID: String(repeating: "b", count: 65_535), field: "f")
        let sealed = try sealer.seal(Array("fits".utf8), binding: largest)
        #expect(try sealer.open(sealed, binding: largest) == Array("fits".utf8))
    }

    // MARK: - Tampering

    @Test("Flipping any single byte of the nonce, ciphertext or tag fails authentication")
    func everyBodyByteIsAuthenticated() throws {
        let sealed = try seal("tamper with me")
        #expect(sealed.count == envelopeCount(forPlaintext: 14))
        for index in headerCount..<sealed.count {
            for mask: UInt8 in [0x01, 0x80] {
                #expect(throws: CryptoError.authenticationFailed, "byte \(index) ^ \(mask)") {
                    try sealer.open(flipping(sealed, at: index, mask: mask), binding: Self.home)
                }
            }
        }
    }

    @Test("Flipping any key-id byte is .keyMismatch")
    func keyIDBytes() throws {
        let sealed = try seal("key id")
        for index in 1..<headerCount {
            #expect(throws: CryptoError.keyMismatch, "byte \(index)") {
                try sealer.open(flipping(sealed, at: index), binding: Self.home)
            }
        }
    }

    @Test("Another version byte is .unsupportedFormat(version:)", arguments: [UInt8(0), 2, 0x7f, 0xff])
    func versionByte(version: UInt8) throws {
        var sealed = try seal("versioned")
        sealed[0] = version
        #expect(throws: CryptoError.unsupportedFormat(version: version)) {
            try sealer.open(sealed, binding: Self.home)
        }
    }

    @Test("Input shorter than header + nonce + tag is .malformed")
    func truncatedBelowMinimum() throws {
        let sealed = try seal("short")
        for count in 0..<overhead {
            #expect(throws: CryptoError.malformed, "length \(count)") {
                try sealer.open(Array(sealed.prefix(count)), binding: Self.home)
            }
        }
    }

    @Test("Cutting or adding ciphertext bytes past the minimum fails authentication")
    func truncatedCiphertext() throws {
        let sealed = try seal("short")
        for count in [overhead, overhead + 1, sealed.count - 16, sealed.count - 1] {
            #expect(throws: CryptoError.authenticationFailed, "length \(count)") {
                try sealer.open(Array(sealed.prefix(count)), binding: Self.home)
            }
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try sealer.open(sealed + [0], binding: Self.home)
        }
    }

    @Test("A sealer over a different key refuses with .keyMismatch")
    func differentKey() throws {
        let sealed = try seal("mine")
        let stranger = try FieldSealer(key: VaultKey.generate(), vaultID: Self.vaultID)
        #expect(throws: CryptoError.keyMismatch) {
            try stranger.open(sealed, binding: Self.home)
        }
    }

    @Test("Relabelling an envelope with another key's id does not let that key open it")
    func relabelledKeyID() throws {
        let sealed = try seal("mine")
        let strangerKey = try VaultKey.generate()
        let stranger = FieldSealer(key: strangerKey, vaultID: Self.vaultID)
        var relabelled = sealed
        relabelled.replaceSubrange(1..<headerCount, with: strangerKey.id.bytes)
        #expect(throws: CryptoError.authenticationFailed) {
            try stranger.open(relabelled, binding: Self.home)
        }
    }
}
