import Testing
@testable import Journal

@Suite("EntityID")
struct EntityIDTests {
    static let hexDigits = Set("0123456789abcdef")

    @Test("A generated id is a 36-character lowercase UUIDv7 with the RFC 9562 variant",
          arguments: [Int64(0), 1, 1_700_000_000_123, 0xffff_ffff_ffff])
    func shape(milliseconds: Int64) {
        for _ in 0..<100 {
            let id = EntityID.generate(at: ms(milliseconds))
            let characters = Array(id.rawValue)
            #expect(characters.count == 36)
            #expect(id.rawValue.utf8.count == 36)
            for (offset, character) in characters.enumerated() {
                if [8, 13, 18, 23].contains(offset) {
                    #expect(character == "-")
                } else {
                    #expect(Self.hexDigits.contains(character), "\(character) at \(offset) in \(id)")
                }
            }
            #expect(characters[14] == "7")
            #expect("89ab".contains(characters[19]))
        }
    }

    @Test("The first 12 hex digits are the millisecond timestamp", arguments: [
        Int64(0), 1, 255, 256, 951_782_400_000, 1_700_000_000_123, 0xffff_ffff_ffff,
    ])
    func embedsTimestamp(milliseconds: Int64) {
        let id = EntityID.generate(at: ms(milliseconds))
        #expect(embeddedMilliseconds(id) == milliseconds)
    }

    @Test("1700000000123 ms is written as 018bcfe5-687b")
    func knownTimestampPrefix() {
        #expect(EntityID.generate(at: ms(1_700_000_000_123)).rawValue.hasPrefix("018bcfe5-687b-7"))
        #expect(EntityID.generate(at: ms(0)).rawValue.hasPrefix("00000000-0000-7"))
    }

    @Test("A timestamp before 1970 is written as zero")
    func negativeTimestampClamps() {
        #expect(embeddedMilliseconds(EntityID.generate(at: ms(-1))) == 0)
        #expect(embeddedMilliseconds(EntityID.generate(at: ms(.min))) == 0)
    }

    @Test("Ids made at increasing times sort in that order")
    func sortsByTime() {
        let times: [Int64] = [0, 1, 2, 15, 16, 255, 256, 4_095, 4_096, 65_535, 65_536,
                              1_699_999_999_999, 1_700_000_000_000, 1_700_000_000_001, 0xffff_ffff_fffe, 0xffff_ffff_ffff]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<20 {
            let ids = times.map { EntityID.generate(at: ms($0)) }
            #expect(ids.sorted() == ids)
            let shuffled = ids.shuffled(using: &generator)
            #expect(shuffled.sorted() == ids)
            #expect(shuffled.sorted().map(embeddedMilliseconds) == times.map { Optional($0) })
        }
    }

    @Test("< agrees with the order of the text")
    func comparable() throws {
        let a = try EntityID(validating: "0193f2a1-7c4e-7abc-8def-0123456789ab")
        let b = try EntityID(validating: "0193f2a1-7c4e-7abc-8def-0123456789ac")
        #expect(a < b)
        #expect(!(b < a))
        #expect(!(a < a))
    }

    @Test("Ids made in the same millisecond differ")
    func randomBits() {
        let ids = (0..<1_000).map { _ in EntityID.generate(at: ms(1_700_000_000_000)) }
        #expect(Set(ids).count == ids.count)
    }

    @Test("A seeded generator gives reproducible ids; another seed gives others")
    func seededGenerator() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        var other = SplitMix64(seed: 43)
        let a = (0..<10).map { _ in EntityID.generate(at: ms(1_700_000_000_000), using: &first) }
        let b = (0..<10).map { _ in EntityID.generate(at: ms(1_700_000_000_000), using: &second) }
        let c = (0..<10).map { _ in EntityID.generate(at: ms(1_700_000_000_000), using: &other) }
        #expect(a == b)
        #expect(Set(a).count == 10)
        #expect(Set(a).isDisjoint(with: c))
    }

    @Test("Version and variant bits are forced whatever the generator returns")
    func versionAndVariantMasks() {
        var ones = ConstantGenerator(value: .max)
        var zeros = ConstantGenerator(value: 0)
        let high = EntityID.generate(at: ms(0xffff_ffff_ffff), using: &ones)
        let low = EntityID.generate(at: ms(0), using: &zeros)
        #expect(high.rawValue == "ffffffff-ffff-7fff-bfff-ffffffffffff")
        #expect(low.rawValue == "00000000-0000-7000-8000-000000000000")
    }

    @Test("A generated id validates back to itself")
    func generatedValidates() throws {
        let id = EntityID.generate(at: ms(1_700_000_000_000))
        #expect(try EntityID(validating: id.rawValue) == id)
        #expect(id.description == id.rawValue)
    }

    @Test("Validating accepts uppercase and stores lowercase")
    func validatingLowercases() throws {
        let id = try EntityID(validating: "0193F2A1-7C4E-7ABC-8DEF-0123456789AB")
        #expect(id.rawValue == "0193f2a1-7c4e-7abc-8def-0123456789ab")
        #expect(id == (try EntityID(validating: "0193f2a1-7c4e-7abc-8def-0123456789ab")))
    }

    @Test("Validating rejects malformed ids", arguments: [
        "",
        "0193f2a1-7c4e-7abc-8def-0123456789a",      // 35
        "0193f2a1-7c4e-7abc-8def-0123456789abc",    // 37
        "0193f2a17c4e7abc8def0123456789ab",         // no hyphens
        "0193f2a1-7c4e-7abc-8def0-123456789ab",     // hyphen moved
        "0193f2a-17c4e-7abc-8def-0123456789ab",     // hyphen moved
        "0193f2a1-7c4e-7abc-8def-0123456789ag",     // g
        "0193f2a1-7c4e-7abc-8def-0123456789a ",     // space
        " 0193f2a1-7c4e-7abc-8def-0123456789a",
        "0193f2a1_7c4e_7abc_8def_0123456789ab",     // underscores
        "0193f2a1-7c4e-7abc-8def-0123456789-b",     // hyphen for hex
        "0193f2a1-7c4e-7abc-8def-0123456789é",      // 36 bytes, not hex
        "{193f2a1-7c4e-7abc-8def-0123456789ab",
        "0193f2a1-7c4e-7abc-8def-0123456789ab\n",
    ])
    func validatingRejects(text: String) {
        #expect(throws: JournalError.invalidID) { try EntityID(validating: text) }
    }

    @Test("isPossiblePrefix accepts the start of an id", arguments: [
        "0", "0193", "0193F2", "0193f2a1-", "0193f2a1-7c4e-7abc-8def-0123456789ab", "0193F2A1-7C4E-7ABC-8DEF-0123456789AB",
    ])
    func possiblePrefixes(text: String) {
        #expect(EntityID.isPossiblePrefix(text))
    }

    @Test("isPossiblePrefix refuses empty, too long and non-hex text (including GLOB and LIKE wildcards)", arguments: [
        "", "0193f2a1-7c4e-7abc-8def-0123456789ab0", "dune", "0193 f2", "0193*", "01?3", "[0-9]", "01%", "01_",
        "0193\n", "０１９３",
    ])
    func impossiblePrefixes(text: String) {
        #expect(!EntityID.isPossiblePrefix(text))
    }

    @Test("Equal ids hash equally")
    func hashable() throws {
        let a = try EntityID(validating: "0193F2A1-7C4E-7ABC-8DEF-0123456789AB")
        let b = try EntityID(validating: "0193f2a1-7c4e-7abc-8def-0123456789ab")
        #expect(Set([a, b]).count == 1)
    }
}
