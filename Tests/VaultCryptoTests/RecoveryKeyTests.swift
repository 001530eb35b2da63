import Testing
@testable import VaultCrypto

private let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

/// A valid recovery key, fixed so that checks over every single-character change are
/// deterministic. Its key part contains both 0 and 1, for the O/I/L substitution tests.
private let fixture = "GS14CJ-VP9Y7V-S070WF-PF7B48-7AF0KG-SME21A"

private func parse(_ text: String) throws(CryptoError) -> RecoveryKey {
    try RecoveryKey(parsing: secret(text))
}

/// `text` with the character at `offset` replaced by `replacement`.
private func replacing(_ text: String, at offset: Int, with replacement: Character) -> String {
    var characters = Array(text)
    characters[offset] = replacement
    return String(characters)
}

/// Offsets of the 36 symbols in the 41-character display form.
private let symbolOffsets = (0..<41).filter { ($0 + 1) % 7 != 0 }

private func sameKey(_ a: RecoveryKey, _ b: RecoveryKey) -> Bool {
    a.bytes.constantTimeEquals(b.bytes)
}

@Suite("RecoveryKey")
struct RecoveryKeyTests {
    @Test("The display form is six groups of six Crockford base32 characters")
    func displayForm() throws {
        for _ in 0..<50 {
            let text = try string(RecoveryKey.generate().formatted())
            let characters = Array(text)
            #expect(text.utf8.count == 41)
            #expect(characters.count == 41)
            for (offset, character) in characters.enumerated() {
                if [6, 13, 20, 27, 34].contains(offset) {
                    #expect(character == "-", "offset \(offset) of \(text)")
                } else {
                    #expect(alphabet.contains(character), "offset \(offset) of \(text)")
                }
            }
            #expect(text.split(separator: "-").map(\.count) == [6, 6, 6, 6, 6, 6])
        }
    }

    @Test("The display form of a key is stable")
    func formattedIsDeterministic() throws {
        let key = try RecoveryKey.generate()
        #expect(try string(key.formatted()) == string(key.formatted()))
        #expect(try string(parse(fixture).formatted()) == fixture)
    }

    @Test("A key holds 20 random bytes, and two keys differ")
    func generateIsRandom() throws {
        let first = try RecoveryKey.generate()
        let second = try RecoveryKey.generate()
        #expect(first.bytes.count == 20)
        #expect(!sameKey(first, second))
        #expect(try string(first.formatted()) != string(second.formatted()))
    }

    @Test("Parsing the display form gives the same key")
    func parseRoundTrip() throws {
        for _ in 0..<50 {
            let original = try RecoveryKey.generate()
            let parsed = try RecoveryKey(parsing: original.formatted())
            #expect(sameKey(original, parsed))
        }
    }

    @Test("A recovery slot made with the original key opens with the parsed key")
    func parsedKeyUnwrapsSlot() throws {
        let vaultKey = try VaultKey.generate()
        let original = try RecoveryKey.generate()
        let slot = try Keyslot.wrapping(vaultKey, recoveryKey: original, vaultID: "v", slotID: "recovery")
        let parsed = try parse(string(original.formatted()).lowercased())
        #expect(try slot.unwrap(recoveryKey: parsed, vaultID: "v").id == vaultKey.id)
    }

    @Test("The fixture decodes to the bytes its symbols spell")
    func fixtureBits() throws {
        // Decode the first 32 symbols (160 bits) independently of the implementation.
        let symbols = fixture.filter { $0 != "-" }.prefix(32).map { alphabet.firstIndex(of: $0)! }
        var bits: [Int] = []
        for value in symbols { for bit in (0..<5).reversed() { bits.append((value >> bit) & 1) } }
        let bytes = stride(from: 0, to: 160, by: 8).map { start in
            bits[start..<(start + 8)].reduce(UInt8(0)) { $0 << 1 | UInt8($1) }
        }
        #expect(contents(try parse(fixture).bytes) == bytes)
    }

    @Test("Parsing ignores case, hyphens and white space", arguments: [
        fixture.lowercased(),
        fixture.replacingDashes(with: ""),
        fixture.replacingDashes(with: " "),
        fixture.lowercased().replacingDashes(with: ""),
        "  " + fixture + "\n",
        fixture.replacingDashes(with: "\t"),
        fixture.replacingDashes(with: "\r\n"),
        "GS-14-CJ VP9Y7V S070WF-PF7B48-7AF0KG-SME21A",
        "gS14cJ-Vp9y7v-s070wF-Pf7b48-7aF0Kg-smE21a",
    ])
    func tolerantParsing(text: String) throws {
        #expect(sameKey(try parse(text), try parse(fixture)))
    }

    @Test("Parsing reads O as 0 and I or L as 1, in either case")
    func lookalikeSubstitutions() throws {
        let expected = try parse(fixture)
        for (digit, lookalikes) in [("0", ["O", "o"]), ("1", ["I", "i", "L", "l"])] {
            for lookalike in lookalikes {
                let text = fixture.replacingOccurrences(of: digit, with: lookalike)
                #expect(text != fixture)
                #expect(sameKey(try parse(text), expected), "\(digit) → \(lookalike)")
            }
        }
    }

    @Test("Every single-character change of the fixture is rejected by the checksum")
    func everyChangeOfFixtureIsRejected() throws {
        for offset in symbolOffsets {
            let original = Array(fixture)[offset]
            for replacement in alphabet where replacement != original {
                #expect(throws: CryptoError.recoveryKeyChecksumFailed, "offset \(offset): \(original) → \(replacement)") {
                    try parse(replacing(fixture, at: offset, with: replacement))
                }
            }
        }
    }

    @Test("Changing any one character of a fresh key is rejected")
    func everyPositionOfFreshKeyIsChecked() throws {
        let text = try string(RecoveryKey.generate().formatted())
        for offset in symbolOffsets {
            let original = Array(text)[offset]
            let index = alphabet.firstIndex(of: original)!
            let replacement = alphabet[(index + 1 + offset % 31) % 32]
            #expect(replacement != original)
            #expect(throws: CryptoError.recoveryKeyChecksumFailed, "offset \(offset)") {
                try parse(replacing(text, at: offset, with: replacement))
            }
        }
    }

    @Test("Swapping two adjacent different characters is rejected")
    func transpositions() throws {
        let characters = Array(fixture)
        for offset in symbolOffsets where symbolOffsets.contains(offset + 1) && characters[offset] != characters[offset + 1] {
            var swapped = characters
            swapped.swapAt(offset, offset + 1)
            #expect(throws: CryptoError.recoveryKeyChecksumFailed, "offset \(offset)") { try parse(String(swapped)) }
        }
    }

    @Test("Wrong lengths and characters outside the alphabet are .invalidRecoveryKey", arguments: [
        "",
        "------",
        String(fixture.dropLast()),
        fixture + "0",
        fixture + "-000000",
        String(fixture.dropFirst(7)),
        replacing(fixture, at: 0, with: "U"),
        replacing(fixture, at: 40, with: "u"),
        replacing(fixture, at: 6, with: "_"),
        replacing(fixture, at: 3, with: "é"),
        replacing(fixture, at: 3, with: "\0"),
        replacing(fixture, at: 3, with: "+"),
        fixture.replacingDashes(with: "."),
        fixture.replacingDashes(with: "_"),
    ])
    func invalidText(text: String) throws {
        #expect(throws: CryptoError.invalidRecoveryKey) { try parse(text) }
    }

    @Test("A key with a checksum-valid prefix but trailing junk is rejected")
    func trailingJunk() throws {
        #expect(throws: CryptoError.invalidRecoveryKey) { try parse(fixture + "x") }
        #expect(throws: CryptoError.invalidRecoveryKey) { try parse(fixture + fixture) }
    }
}

private extension String {
    func replacingDashes(with replacement: String) -> String {
        split(separator: "-", omittingEmptySubsequences: false).joined(separator: replacement)
    }

    func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
