import Testing
@testable import Journal

/// Tags (issue 21): one word each, compared folded; each tag on a record a tagging of its
/// own, merged between devices by its own clock (``TagPolicy``).
@Suite struct TagTests {
    static func clock(_ wall: Int64, _ device: String = "a") -> HybridTimestamp {
        HybridTimestamp(wallMilliseconds: wall, counter: 0, deviceID: device)
    }

    static func tagging(_ name: String, removed: Bool = false, created: Int64 = 1) throws -> Tagging {
        Tagging(id: try EntityID(validating: "01a23663-6b27-7ed9-b1d8-4737eb171a6a"),
                recordID: try EntityID(validating: "01a23663-6b56-7b38-ae69-92e5f9c01d50"), recordKind: .annotation, name: name,
                createdAt: Timestamp(millisecondsSince1970: created), updatedAt: Timestamp(millisecondsSince1970: 2),
                removedAt: removed ? Timestamp(millisecondsSince1970: 2) : nil, version: removed ? 2 : 1)
    }

    @Test("A tag is one word; white space around it and one leading # are dropped", arguments: [
        ("fiction", "fiction"), ("  #To-Reread ", "To-Reread"), ("##x", "#x"), ("Désert", "Désert"), ("👩🏽‍💻", "👩🏽‍💻"),
        (String(repeating: "é", count: 64), String(repeating: "é", count: 64)),
    ])
    func validTags(typed: String, kept: String) throws {
        #expect(try Tag.checked(typed) == kept)
    }

    @Test("Another program's label is made a tag", arguments: [
        ("kidz", "kidz"), ("to read, later", "to-read-later"), ("  sci  fi ", "sci-fi"), ("over\u{202E}ride", "over-ride"),
        ("line\u{2028}break", "line-break"), ("#fav", "fav"), (String(repeating: "x", count: 70), String(repeating: "x", count: 64)),
    ])
    func labelsMadeSafe(label: String, tag: String) throws {
        #expect(Tag.madeSafe(label) == tag)
        #expect(try Tag.checked(tag) == tag, "a label made safe is a tag as it is")
    }

    @Test func aLabelWithNothingLeftIsNoTag() {
        #expect(Tag.madeSafe(" , \u{7} ") == nil && Tag.madeSafe("#") == nil && Tag.madeSafe("") == nil)
    }

    @Test("Anything else is refused", arguments: ["two words", "a,b", "tab\there", String(repeating: "x", count: 65), "bell\u{7}",
                                                 "over\u{202E}ride", "line\u{2028}break"])
    func invalidTags(typed: String) {
        #expect(throws: JournalError.self) { try Tag.checked(typed) }
    }

    @Test func anEmptyTagIsEmptyText() {
        #expect(throws: JournalError.emptyText(field: "tag")) { try Tag.checked(" # ") }
    }

    @Test func tagsAreShownOnceEachSpelledAsFirstGivenInFoldedOrder() throws {
        var other = try Self.tagging("DESERT", created: 5)
        other = Tagging(id: try EntityID(validating: "01a23663-6b27-7ed9-b1d8-4737eb171a6b"), recordID: other.recordID,
                        recordKind: .annotation, name: "DESERT", createdAt: other.createdAt, updatedAt: other.updatedAt, removedAt: nil, version: 1)
        let shown = Tag.shown([other, try Self.tagging("Désert", created: 3), try Self.tagging("zebra"), try Self.tagging("Apple"),
                               try Self.tagging("gone", removed: true), try Self.tagging("")])
        #expect(shown == ["Apple", "Désert", "zebra"])
    }

    @Test func aTaggingFromElsewhereIsKeptNewAndOtherwiseTheLaterChangeWins() throws {
        let merge = JournalMerge(conflictCopyID: { id, _ in id })
        let given = TaggingVersion(try Self.tagging("ocean"), clock: Self.clock(10))
        let removed = TaggingVersion(try Self.tagging("ocean", removed: true), clock: Self.clock(20, "b"))
        #expect(merge.merge(given, into: nil, record: .live) == .store(given))
        #expect(merge.merge(given, into: nil, record: .missing) == .deferred, "its note has not arrived")
        #expect(merge.merge(removed, into: given, record: .live) == .store(removed))
        #expect(merge.merge(given, into: removed, record: .live) == .unchanged, "an older change never undoes a later one")
        #expect(merge.merge(given, into: given, record: .live) == .unchanged)
        #expect(merge.merge(given, into: removed, record: .deleted) == .unchanged)
        guard case .store(let purged) = merge.merge(given, into: nil, record: .purged) else {
            Issue.record("a tag on a purged note is kept, without its name")
            return
        }
        #expect(purged.tagging.name.isEmpty && purged.clock == given.clock)
    }
}
