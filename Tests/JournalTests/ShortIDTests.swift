import Testing
@testable import Journal

/// Short ids (issue 22): the shortest unique start of an id's random part, at least six
/// hex digits, worked out from its neighbours in sorted order.
@Suite struct ShortIDTests {
    @Test("The random part is the 19 hex digits after the clock and the version digit")
    func randomPart() throws {
        let id = try EntityID(validating: "0193f2a1-7c4e-7abc-8def-0123456789ab")
        #expect(ShortID.randomPart(of: id) == "abc8def0123456789ab")
        #expect(ShortID.randomPart(of: id).count == ShortID.maximumLength)
        // Read in place from the stored bytes, across the hyphens.
        let stored = Array(id.rawValue.utf8)
        let startsWith = { (typed: String) in stored.withUnsafeBufferPointer { ShortID.randomPart(ofStored: $0, startsWith: Array(typed.utf8)) } }
        #expect(startsWith("abc8de") && startsWith("abc8def0123") && startsWith("abc8def0123456789ab"))
        #expect(!startsWith("abc8df") && !startsWith("0193f2") && !startsWith("abc8def0123456789ab0"))
    }

    @Test("A short id is 6 to 19 hex digits", arguments: [
        ("abc8de", true), ("abc8def0123456789ab", true), ("abc8d", false), ("abc8def0123456789abc", false),
        ("abc8dg", false), ("abc-8de", false), ("", false),
    ])
    func possible(_ text: String, _ expected: Bool) {
        #expect(ShortID.isPossible(text) == expected)
    }

    func part(_ digits: String) -> RandomPartIndex.Part? {
        Array(digits.utf8).withUnsafeBytes { RandomPartIndex.Part(digits: $0) }
    }

    @Test("Six digits when no neighbour shares them, one more than the longest shared start otherwise, none for a twin")
    func index() throws {
        let ids = try ["0193f2a1-7c4e-7abc-8def-0123456789ab", "0193f2a1-7c4f-7abc-8def-0000000000aa",
                       "0193f2a1-7c50-7123-8456-789abcdef012", "0193f2a1-7c51-7123-8456-789abcdef012"]
            .map { try EntityID(validating: $0) }
        let parts = try ids.map { try #require(part(ShortID.randomPart(of: $0))) }
        let index = RandomPartIndex(merging: [[parts[2], parts[3]], [parts[1], parts[0]]])
        let alone = RandomPartIndex(merging: [[parts[2]]])
        #expect(alone.shortID(of: ids[2]) == "123845", "no neighbour: six digits")
        #expect(index.shortID(of: ids[0]) == "abc8def01")
        #expect(index.shortID(of: ids[1]) == "abc8def00")
        #expect(index.shortID(of: ids[2]) == nil && index.shortID(of: ids[3]) == nil, "same random part")
        #expect(index.shortID(of: try EntityID(validating: "0193f2a1-7c4e-7fff-8def-0123456789ab")) == nil, "not in the index")
        #expect(part("abc8def0123456789aB") == nil && part("abc") == nil)
        let last = try EntityID(validating: "0193f2a1-7c52-7abc-8def-0123456789a0")
        let tail = RandomPartIndex(merging: [try [ids[0], last].map { try #require(part(ShortID.randomPart(of: $0))) }.sorted()])
        #expect(tail.shortID(of: last) == "abc8def0123456789a0", "differing in the last of the 19 digits")
    }
}
