import Applier
import Foundation
import Testing
import Journal
@testable import Sync
@testable import SyncWire
@testable import VaultStore
import VaultCrypto

/// The pieces under the engine: backoff, operation files, the descriptor, the folder remote.
@Suite struct BackoffTests {
    @Test func delayIsFullJitterUnderTheExponentialCeiling() {
        let backoff = Backoff()
        #expect(backoff.baseMilliseconds == 2_000)
        #expect(backoff.capMilliseconds == 3_600_000)
        var generator = SystemRandomNumberGenerator()
        for attempt in 0..<30 {
            let ceiling = min(3_600_000, 2_000 * (Int64(1) << Int64(attempt)))
            for _ in 0..<200 {
                let delay = backoff.delay(afterAttempt: attempt, using: &generator)
                #expect(delay >= 0 && delay <= ceiling, "attempt \(attempt): \(delay) not in 0...\(ceiling)")
            }
        }
    }

    @Test func jitterVariesAndReachesBothEnds() {
        let backoff = Backoff(baseMilliseconds: 1_000, capMilliseconds: 60_000)
        var generator = SystemRandomNumberGenerator()
        let delays = (0..<500).map { _ in backoff.delay(afterAttempt: 3, using: &generator) }
        #expect(Set(delays).count > 100, "jitter should spread the delays")
        #expect(delays.min()! < 1_000, "full jitter reaches near zero")
        #expect(delays.max()! > 7_000, "full jitter reaches near the ceiling (8 s)")
    }

    @Test func capHoldsForHugeAttemptsAndNothingOverflows() {
        let backoff = Backoff()
        var generator = SystemRandomNumberGenerator()
        for attempt in [20, 40, 41, 62, 63, 64, 1_000, Int.max] {
            for _ in 0..<50 {
                let delay = backoff.delay(afterAttempt: attempt, using: &generator)
                #expect(delay >= 0 && delay <= 3_600_000, "attempt \(attempt): \(delay)")
            }
        }
        // A base so large that base·2^attempt overflows Int64: still capped, no trap.
        let huge = Backoff(baseMilliseconds: Int64.max / 2, capMilliseconds: 10_000)
        for attempt in [0, 1, 2, 40, 100] {
            #expect(huge.delay(afterAttempt: attempt, using: &generator) <= 10_000)
        }
        // Negative attempts count as none.
        for _ in 0..<50 { #expect(backoff.delay(afterAttempt: -5, using: &generator) <= 2_000) }
        // A zero base never waits.
        #expect(Backoff(baseMilliseconds: 0, capMilliseconds: 0).delay(afterAttempt: 7, using: &generator) == 0)
    }
}

@Suite struct OperationDocumentTests {
    static let clock = HybridTimestamp(wallMilliseconds: 1_767_225_600_123, counter: 7, deviceID: deviceID("d"))
    static let key = "0193f2a1-7c4e-7abc-8def-0123456789ab"
    static let texts = [
        "plain", "\"quoted\" and \\backslashed\\ / slashed", "tab\tnew\nline\rreturn\u{8}\u{C}\u{1}\u{1F}\u{7F}",
        "é 👩🏽‍💻 مرحبا \u{2028}\u{2029}\u{85}\u{FEFF}", String(repeating: "long text ", count: 200),
    ]

    static func note(_ body: String, index: Int) throws -> AnnotationVersion {
        let annotation = Annotation(id: EntityID.generate(at: Timestamp(millisecondsSince1970: Int64(index))),
                                    bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 0)),
                                    kind: index % 2 == 0 ? .note : .quote, body: body,
                                    locator: index % 3 == 0 ? nil : try Locator("p. \(index) \"x\""),
                                    createdAt: Timestamp(millisecondsSince1970: -1), updatedAt: Timestamp(millisecondsSince1970: 1_767_225_600_123),
                                    deletedAt: index % 2 == 0 ? nil : Timestamp(millisecondsSince1970: 5), version: Int64(index + 1),
                                    conflictOf: index == 1 ? EntityID.generate(at: Timestamp(millisecondsSince1970: 9)) : nil,
                                    conflictReason: index == 1 ? .bothEdited : nil)
        let other = HybridTimestamp(wallMilliseconds: 5, counter: 2, deviceID: deviceID("e"))
        return AnnotationVersion(annotation, clock: clock, history: VersionVector([clock, other]))
    }

    static func operation(_ record: RecordVersion, action: OutboxAction = .update) -> SyncOperation {
        SyncOperation(idempotencyKey: key, deviceID: deviceID("d"), clock: clock, action: action, record: record)
    }

    static func decoded(_ bytes: [UInt8]) throws -> SyncOperation {
        guard case .operation(let operation) = try OperationDocument.decode(bytes, expectedKey: key, device: deviceID("d")) else {
            throw RemoteError.malformed(what: "refused in a test")
        }
        return operation
    }

    @Test func aNameSortsByClockAndCarriesTheKey() throws {
        let name = OperationFileName.make(clock: Self.clock, idempotencyKey: Self.key)
        #expect(name == "\(Self.clock.description).\(Self.key).op")
        #expect(OperationFileName.idempotencyKey(in: name) == Self.key && OperationFileName.clock(in: name) == Self.clock)
        // Not operation files.
        for other in ["vault.json", ".tmp-1234", "a.b", "a.b.c.op", "\(Self.clock).\(Self.key).tmp", "x.y.op.bak"] {
            #expect(OperationFileName.idempotencyKey(in: other) == nil, "\(other)")
        }
        // Names sort in clock order, across wall time and counters.
        let later = HybridTimestamp(wallMilliseconds: Self.clock.wallMilliseconds, counter: 8, deviceID: deviceID("d"))
        let muchLater = HybridTimestamp(wallMilliseconds: Self.clock.wallMilliseconds + 1, counter: 0, deviceID: deviceID("d"))
        let names = [muchLater, Self.clock, later].map { OperationFileName.make(clock: $0, idempotencyKey: Self.key) }
        #expect(names.sorted() == [Self.clock, later, muchLater].map { OperationFileName.make(clock: $0, idempotencyKey: Self.key) })
    }

    /// Every record reads back as it was written, whatever its text; the record is a JSON
    /// object of its own (no JSON inside a string), members in sorted order.
    /// A book file (format 9, which bmvault 0.17 refuses and reads once upgraded): stored
    /// (its sealed key travels) or linked (none, and never its path), attached or removed,
    /// with its clocks or the operation's; one that breaks the rules is refused.
    private func bookFilesRoundTripAsFormatNine() throws {
        for index in 0..<4 {
            let content = BookFile.Content(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 20)), format: index % 2 == 0 ? "epub" : "pdf",
                                           size: Int64(index * 1000), checksum: String(repeating: "0f", count: 32),
                                           metadata: #"{"title":"Désert","creators":["A"]}"#, deviceID: "device",
                                           sealedKey: index < 2 ? [UInt8](repeating: 7, count: 73) : nil,
                                           createdAt: Timestamp(millisecondsSince1970: 21))
            let file = BookFile(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 22)), bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 23)),
                                content: content, locator: index == 3 ? nil : try Locator("epubcfi(/6/4!/4/2)"),
                                createdAt: Timestamp(millisecondsSince1970: 24), updatedAt: Timestamp(millisecondsSince1970: 25),
                                removedAt: index == 1 ? Timestamp(millisecondsSince1970: 25) : nil, version: Int64(index + 1))
            let other = HybridTimestamp(wallMilliseconds: 3, counter: 1, deviceID: "device")
            let version = BookFileVersion(file, clock: index % 2 == 0 ? Self.clock : other, locatorClock: index < 2 ? Self.clock : other)
            let operation = Self.operation(.bookFile(version), action: index == 1 ? .delete : .update)
            let bytes = OperationDocument.encode(operation)
            #expect(try Self.decoded(bytes) == operation, "book file \(index)")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix(#","v":9}"#))
            #expect(String(decoding: bytes, as: UTF8.self).contains("fileKey") == (index < 2))
        }
        let file = BookFile(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 22)), bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 23)),
                            content: BookFile.Content(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 20)), format: "epub", size: 1,
                                                      checksum: String(repeating: "0f", count: 32), metadata: "{}", deviceID: "device",
                                                      sealedKey: nil, createdAt: Timestamp(millisecondsSince1970: 21)),
                            locator: nil, createdAt: Timestamp(millisecondsSince1970: 24), updatedAt: Timestamp(millisecondsSince1970: 25),
                            removedAt: nil, version: 1)
        let good = String(decoding: OperationDocument.encode(Self.operation(.bookFile(BookFileVersion(file, clock: Self.clock, locatorClock: Self.clock)))),
                          as: UTF8.self)
        for (from, to) in [(#""format":"epub""#, #""format":"docx""#), (String(repeating: "0f", count: 32), "0F"),
                           (#""size":1"#, #""size":-1"#), (#""metadata":"{}""#, #""metadata":"""#)] {
            guard case .refused = try OperationDocument.decode(Array(good.replacingOccurrences(of: from, with: to).utf8),
                                                               expectedKey: Self.key, device: deviceID("d")) else {
                Issue.record("a book file with \(to) is refused")
                return
            }
        }
    }

    @Test func everyRecordRoundTripsAsOneJSONDocument() throws {
        for (index, typed) in Self.texts.enumerated() {
            let text = try TextRules.body(typed)   // as every stored note is
            let operation = Self.operation(.annotation(try Self.note(text, index: index)))
            let bytes = OperationDocument.encode(operation)
            #expect(try Self.decoded(bytes) == operation, "\(index)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(json["v"] as? Int == 2 && json["annotation"] is [String: Any] && json["payload"] == nil)
            let keys = String(decoding: bytes, as: UTF8.self).split(separator: ",").compactMap { $0.split(separator: ":").first }
            #expect(keys.first == "{\"action\"", "members in sorted order")
        }
        let progresses: [Double] = [0, 100, 42.5, 33.333333333333336, 0.1, 1e-5, 99.99999999999999, 12.000000000000002]
        for (index, progress) in progresses.enumerated() {
            let titles = ["Plain", "\"Quoted\" \\ / slashed", "é 👩🏽‍💻 مرحبا", "Солярис"]
            let book = Book(id: EntityID.generate(at: Timestamp(millisecondsSince1970: Int64(index))), title: titles[index % titles.count],
                            authors: ["One", "Two"].prefix(index % 3).map { $0 }, progress: progress,
                            createdAt: Timestamp(millisecondsSince1970: 1), updatedAt: Timestamp(millisecondsSince1970: 2),
                            deletedAt: index % 2 == 0 ? nil : Timestamp(millisecondsSince1970: 3), version: 7)
            let positions = ProgressPolicy.Positions(percent: progress, isRewind: index % 2 == 0, clock: Self.clock)
                .joined(with: ProgressPolicy.Positions(percent: 100, isRewind: false, clock: HybridTimestamp(wallMilliseconds: 1, counter: 0, deviceID: "e")))
            let version = BookVersion(book, clock: Self.clock, metadataClock: HybridTimestamp(wallMilliseconds: 12, counter: 3, deviceID: "device"),
                                      positions: positions)
            let operation = Self.operation(.book(version))
            let encoded = OperationDocument.encode(operation)
            #expect(try Self.decoded(encoded) == operation, "\(progress)")
            // A book without a status or rating stays format 2, which bmvault 0.9 reads.
            #expect(String(decoding: encoded, as: UTF8.self).hasSuffix(#","v":2}"#))

            // With them, format 4: every member round-trips.
            var shelved = version
            shelved.book.rating = index % 2 == 0 ? 3.5 : nil
            shelved.ratingClock = HybridTimestamp(wallMilliseconds: 13, counter: 0, deviceID: "device")
            shelved.book.readingLog = ReadingLog(events: [
                ReadingEvent(status: .finished, on: Timestamp(millisecondsSince1970: 20), clock: HybridTimestamp(wallMilliseconds: 14, counter: 1, deviceID: "x")),
                ReadingEvent(status: .reading, on: Timestamp(millisecondsSince1970: 10), clock: HybridTimestamp(wallMilliseconds: 15, counter: 0, deviceID: "y")),
            ].prefix(index % 3).map { $0 })
            let shelvedOperation = Self.operation(.book(shelved))
            let shelvedBytes = OperationDocument.encode(shelvedOperation)
            #expect(try Self.decoded(shelvedBytes) == shelvedOperation, "\(progress)")
            #expect(String(decoding: shelvedBytes, as: UTF8.self).hasSuffix(#","v":4}"#))

            // A status change whose day is not known: format 8 (which bmvault 0.15 refuses, and
            // reads once upgraded, rather than refusing the log as breaking its rules).
            var undated = shelved
            undated.book.readingLog = shelved.book.readingLog.adding(
                ReadingEvent(status: .finished, on: Timestamp(millisecondsSince1970: 30), clock: HybridTimestamp(wallMilliseconds: 16, counter: 0, deviceID: "z"),
                             dayKnown: false))
            let undatedBytes = OperationDocument.encode(Self.operation(.book(undated)))
            #expect(try Self.decoded(undatedBytes) == Self.operation(.book(undated)), "\(progress)")
            #expect(String(decoding: undatedBytes, as: UTF8.self).hasSuffix(#","v":8}"#))

            // With an edition, format 5 (which bmvault 0.10 refuses, and reads once upgraded).
            var edited = shelved
            edited.book.edition = [Edition(isbn: "9780156027601", year: 1961, pages: 204), Edition(year: -400), Edition(pages: 1)][index % 3]
            edited.editionClock = HybridTimestamp(wallMilliseconds: 16, counter: 0, deviceID: "device")
            let editedOperation = Self.operation(.book(edited))
            let editedBytes = OperationDocument.encode(editedOperation)
            #expect(try Self.decoded(editedBytes) == editedOperation, "\(progress)")
            #expect(String(decoding: editedBytes, as: UTF8.self).hasSuffix(#","v":5}"#))
        }
        // A quote with the reader's comment or an import key: format 7 (which bmvault 0.15
        // refuses and reads once upgraded); the same quote without either stays format 2.
        for (index, (comment, importKey)) in [("typed on the highlight", nil), (nil, "kindle:" + String(repeating: "ab", count: 32)),
                                                ("both \"quoted\"\nand long", "koreader:0f1e")].enumerated() {
            var version = try Self.note("the book's words", index: 2 * index + 2)
            version.annotation = Annotation(id: version.annotation.id, bookID: version.annotation.bookID, kind: .quote,
                                            body: version.annotation.body, locator: try Locator("loc 12-14"),
                                            createdAt: version.annotation.createdAt, updatedAt: version.annotation.updatedAt,
                                            deletedAt: nil, version: 1, comment: comment, importKey: importKey)
            let operation = Self.operation(.annotation(version))
            let bytes = OperationDocument.encode(operation)
            #expect(try Self.decoded(bytes) == operation, "\(index)")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix(#","v":7}"#))
            var plain = version
            plain.annotation = Annotation(id: plain.annotation.id, bookID: plain.annotation.bookID, kind: .quote, body: plain.annotation.body,
                                          locator: plain.annotation.locator, createdAt: plain.annotation.createdAt,
                                          updatedAt: plain.annotation.updatedAt, deletedAt: nil, version: 1)
            #expect(String(decoding: OperationDocument.encode(Self.operation(.annotation(plain))), as: UTF8.self).hasSuffix(#","v":2}"#))
        }
        // An import key that is not one (a space in it) breaks the rules: refused.
        var badKey = Self.operation(.annotation(try Self.note("words", index: 2)))
        if case .annotation(var version) = badKey.record {
            let a = version.annotation
            version.annotation = Annotation(id: a.id, bookID: a.bookID, kind: a.kind, body: a.body, locator: a.locator, createdAt: a.createdAt,
                                            updatedAt: a.updatedAt, deletedAt: a.deletedAt, version: a.version, importKey: "kindle:ok")
            badKey = Self.operation(.annotation(version))
        }
        let badKeyText = String(decoding: OperationDocument.encode(badKey), as: UTF8.self).replacingOccurrences(of: "kindle:ok", with: "kindle:not ok")
        guard case .refused = try OperationDocument.decode(Array(badKeyText.utf8), expectedKey: Self.key, device: deviceID("d")) else {
            Issue.record("an import key that breaks the rules is refused")
            return
        }
        // A tag (format 6, which bmvault 0.12 refuses and reads once upgraded), given and
        // taken away, with its own clock or the operation's.
        for (index, name) in ["fiction", "Désert", "👩🏽‍💻", "to-reread"].enumerated() {
            let tagging = Tagging(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 9)),
                                  recordID: EntityID.generate(at: Timestamp(millisecondsSince1970: 10)),
                                  recordKind: index % 2 == 0 ? .annotation : .book, name: name,
                                  createdAt: Timestamp(millisecondsSince1970: 11), updatedAt: Timestamp(millisecondsSince1970: 12),
                                  removedAt: index < 2 ? nil : Timestamp(millisecondsSince1970: 12), version: Int64(index + 1))
            let clock = index % 2 == 0 ? Self.clock : HybridTimestamp(wallMilliseconds: 3, counter: 1, deviceID: "device")
            let operation = Self.operation(.tagging(TaggingVersion(tagging, clock: clock)))
            let bytes = OperationDocument.encode(operation)
            #expect(try Self.decoded(bytes) == operation, "\(name)")
            #expect(String(decoding: bytes, as: UTF8.self).hasSuffix(#","v":6}"#))
        }
        var bad = String(decoding: OperationDocument.encode(Self.operation(.tagging(TaggingVersion(
            Tagging(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 9)), recordID: EntityID.generate(at: Timestamp(millisecondsSince1970: 10)),
                    recordKind: .book, name: "word", createdAt: Timestamp(millisecondsSince1970: 11), updatedAt: Timestamp(millisecondsSince1970: 12),
                    removedAt: nil, version: 1), clock: Self.clock)))), as: UTF8.self)
        bad = bad.replacingOccurrences(of: #""name":"word""#, with: #""name":"two words""#)
        guard case .refused = try OperationDocument.decode(Array(bad.utf8), expectedKey: Self.key, device: deviceID("d")) else {
            Issue.record("a tag that breaks the rules is refused")
            return
        }

        try bookFilesRoundTripAsFormatNine()

        let session = ReadingSession(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 4)),
                                     bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 5)),
                                     startedAt: Timestamp(millisecondsSince1970: 6), endedAt: Timestamp(millisecondsSince1970: 7), pagesRead: 30)
        let operation = Self.operation(.session(SessionVersion(session, clock: .origin)), action: .create)
        let encoded = OperationDocument.encode(operation)
        #expect(try Self.decoded(encoded) == operation)
        // A session recorded and never changed is written as format 2, which bmvault 0.8 reads.
        #expect(String(decoding: encoded, as: UTF8.self).hasSuffix(#","v":2}"#))
        // One without a clock of its own (as bmvault 0.8 writes every session, snapshots
        // included) never changed: it has the origin clock, not its operation's, so a late
        // recording never undoes an edit.
        let fromOldDevice = Self.operation(.session(SessionVersion(session, clock: Self.clock)), action: .create)
        guard case .operation(let read) = try OperationDocument.decode(OperationDocument.encode(fromOldDevice), expectedKey: Self.key, device: deviceID("d")),
              case .session(let version) = read.record else { Issue.record("not a session"); return }
        #expect(version.clock == .origin)

        // Edited, deleted, or carrying a clock of its own (a snapshot's): each round-trips.
        var edited = session
        edited.pagesRead = 31
        edited.version = 2
        var deleted = edited
        deleted.deletedAt = Timestamp(millisecondsSince1970: 8)
        deleted.version = 3
        for (changed, clock, format) in [(edited, Self.clock, 3), (deleted, Self.clock, 3), (session, HybridTimestamp.origin, 2),
                                         (edited, HybridTimestamp(wallMilliseconds: 9, counter: 1, deviceID: "e"), 3)] {
            let operation = Self.operation(.session(SessionVersion(changed, clock: clock)))
            let encoded = OperationDocument.encode(operation)
            #expect(try Self.decoded(encoded) == operation)
            // Format 3 only where a device of bmvault 0.8 would misread the session.
            #expect(String(decoding: encoded, as: UTF8.self).hasSuffix(#","v":\#(format)}"#), "\(changed) \(clock)")
        }
    }

    /// A session an import recorded carries where from (`source`): format 10, which a
    /// bmvault from before schema v20 refuses and reads once upgraded, instead of keeping the
    /// session without it. Recorded, edited or deleted, it round-trips; a typed one keeps its
    /// format; a source that is not one word of lowercase ASCII is refused.
    @Test func aSessionWithASourceRoundTripsAsFormatTen() throws {
        let session = ReadingSession(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 4)),
                                     bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 5)),
                                     startedAt: Timestamp(millisecondsSince1970: 6), endedAt: Timestamp(millisecondsSince1970: 7), pagesRead: 30,
                                     source: "koreader")
        var edited = session
        edited.pagesRead = 31
        edited.version = 2
        var deleted = edited
        deleted.deletedAt = Timestamp(millisecondsSince1970: 8)
        deleted.version = 3
        for (changed, clock) in [(session, HybridTimestamp.origin), (edited, Self.clock), (deleted, Self.clock)] {
            let operation = Self.operation(.session(SessionVersion(changed, clock: clock)))
            let encoded = OperationDocument.encode(operation)
            #expect(try Self.decoded(encoded) == operation)
            let text = String(decoding: encoded, as: UTF8.self)
            #expect(text.contains(#""source":"koreader""#) && text.hasSuffix(#","v":10}"#), "\(changed)")
        }
        var typed = session
        typed.source = nil
        let typedText = String(decoding: OperationDocument.encode(Self.operation(.session(SessionVersion(typed, clock: .origin)))), as: UTF8.self)
        #expect(!typedText.contains("source") && typedText.hasSuffix(#","v":2}"#))

        let good = String(decoding: OperationDocument.encode(Self.operation(.session(SessionVersion(session, clock: .origin)))), as: UTF8.self)
        for bad in ["", "KOReader", "ko reader", "koreader\\n", String(repeating: "k", count: TextRules.maximumSessionSourceBytes + 1)] {
            let text = good.replacingOccurrences(of: #""source":"koreader""#, with: #""source":"\#(bad)""#)
            guard case .refused = try OperationDocument.decode(Array(text.utf8), expectedKey: Self.key, device: deviceID("d")) else {
                Issue.record("source \(bad.debugDescription) was accepted")
                continue
            }
        }
        // Any such word is taken, not only the programs this build imports from.
        let later = good.replacingOccurrences(of: #""source":"koreader""#, with: #""source":"kobo-2""#)
        guard case .operation(let read) = try OperationDocument.decode(Array(later.utf8), expectedKey: Self.key, device: deviceID("d")),
              case .session(let version) = read.record else { Issue.record("not a session"); return }
        #expect(version.session.source == "kobo-2")
    }

    /// A version no change could follow, sent by a hostile or broken device, is refused at the
    /// door: it would otherwise trap the next edit on every device it reached (issue 23).
    @Test func aVersionOutsideItsRangeIsRefused() throws {
        for version in [Int64.max, VersionNumber.range.upperBound + 1, 0, -1] {
            var annotation = try Self.note("words", index: 0).annotation
            annotation.version = version
            let bytes = OperationDocument.encode(Self.operation(.annotation(AnnotationVersion(annotation, clock: Self.clock,
                                                                                             history: VersionVector(Self.clock)))))
            guard case .refused = try OperationDocument.decode(bytes, expectedKey: Self.key, device: deviceID("d")) else {
                Issue.record("version \(version) was accepted")
                continue
            }
        }
        var annotation = try Self.note("words", index: 0).annotation
        annotation.version = VersionNumber.range.upperBound
        let operation = Self.operation(.annotation(AnnotationVersion(annotation, clock: Self.clock, history: VersionVector(Self.clock))))
        #expect(try Self.decoded(OperationDocument.encode(operation)) == operation, "the last version of the range is accepted")
    }

    /// A note's clock and history, and a book's metadata clock, are written only when they
    /// say more than the operation does (another clock, a history beyond the version).
    @Test func clocksTheOperationAlreadyGivesAreLeftOut() throws {
        let written = try Self.note("words", index: 0).annotation
        var note = AnnotationVersion(written, clock: Self.clock, history: VersionVector(Self.clock))
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(OperationDocument.encode(Self.operation(.annotation(note))))) as? [String: Any])
        let record = try #require(plain["annotation"] as? [String: Any])
        #expect(record["clock"] == nil && record["history"] == nil)
        #expect(try Self.decoded(OperationDocument.encode(Self.operation(.annotation(note)))) == Self.operation(.annotation(note)))
        let earlier = HybridTimestamp(wallMilliseconds: 5, counter: 0, deviceID: deviceID("e"))
        note = AnnotationVersion(written, clock: earlier,
                                 history: VersionVector([earlier, HybridTimestamp(wallMilliseconds: 4, counter: 0, deviceID: deviceID("f"))]))
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(OperationDocument.encode(Self.operation(.annotation(note))))) as? [String: Any])
        let keptRecord = try #require(kept["annotation"] as? [String: Any])
        #expect(keptRecord["clock"] as? String == earlier.description && keptRecord["history"] as? String == note.history.description)
        #expect(try Self.decoded(OperationDocument.encode(Self.operation(.annotation(note)))) == Self.operation(.annotation(note)))
    }

    /// Files written by bmvault 0.3 to 0.5 (format 1: the record as JSON text in `payload`,
    /// `hlc` and `base`) still read: a note's version was written at the file's clock and
    /// supersedes its base; a book changed everything at that clock.
    @Test func formatOneFilesStillRead() throws {
        let base = HybridTimestamp(wallMilliseconds: 5, counter: 0, deviceID: deviceID("e"))
        let noteID = "0193f2a1-0000-7abc-8def-0123456789ab"
        let payload = #"{"annotation":{"body":"old words","bookId":"0193f2a1-0000-7abc-8def-0123456789ac","createdAt":1,"id":"\#(noteID)","kind":"note","updatedAt":2,"version":3},"v":1}"#
        var file: [String: Any] = ["v": 1, "key": Self.key, "device": deviceID("d"), "entity": "annotation", "action": "update",
                                   "entityId": noteID, "hlc": Self.clock.description, "base": base.description, "payload": payload]
        let operation = try Self.decoded(Array(try JSONSerialization.data(withJSONObject: file)))
        guard case .annotation(let version) = operation.record else { Issue.record("not a note"); return }
        #expect(version.annotation.body == "old words" && version.clock == Self.clock && operation.clock == Self.clock)
        #expect(version.history == VersionVector([base, Self.clock]))
        // A book without a metadata clock changed everything at the file's clock.
        file["entity"] = "book"
        file["entityId"] = "0193f2a1-0000-7abc-8def-0123456789ac"
        file["payload"] = #"{"book":{"authors":["A"],"createdAt":1,"id":"0193f2a1-0000-7abc-8def-0123456789ac","progress":10,"progressClock":"\#(base.description)","progressRewind":false,"title":"T","updatedAt":2,"version":3},"v":1}"#
        guard case .book(let book) = try Self.decoded(Array(try JSONSerialization.data(withJSONObject: file))).record else {
            Issue.record("not a book"); return
        }
        #expect(book.metadataClock == Self.clock && book.positions.current.clock == base && book.clock == Self.clock)
    }

    @Test func aFileOfAnotherKeyDeviceOrANewerFormatIsMalformedAndBadRecordsAreRefused() throws {
        let operation = Self.operation(.annotation(try Self.note("text", index: 0)))
        let bytes = OperationDocument.encode(operation)
        #expect(throws: MalformedDocument(what: "operation")) {
            try OperationDocument.decode(bytes, expectedKey: "another-key", device: deviceID("d"))
        }
        #expect(throws: MalformedDocument(what: "operation")) {
            try OperationDocument.decode(bytes, expectedKey: Self.key, device: deviceID("f"))
        }
        var json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        json["v"] = OperationDocument.version + 1
        #expect(throws: MalformedDocument(what: "operation from a newer bmvault")) {
            try OperationDocument.decode(Array(try JSONSerialization.data(withJSONObject: json)), expectedKey: Self.key, device: deviceID("d"))
        }
        // Garbage, an unknown entity or action, a bad clock: malformed (read again next time).
        for change in [("entity", "shelf"), ("action", "merge"), ("clock", "yesterday")] {
            var bad = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            bad[change.0] = change.1
            #expect(throws: MalformedDocument(what: "operation"), "\(change.0)") {
                try OperationDocument.decode(Array(try JSONSerialization.data(withJSONObject: bad)), expectedKey: Self.key, device: deviceID("d"))
            }
        }
        #expect(throws: MalformedDocument(what: "operation")) {
            try OperationDocument.decode(Array("not json".utf8), expectedKey: Self.key, device: deviceID("d"))
        }
        // A record against the journal's rules, or about another id than the file says: refused.
        for change in [("body", String(repeating: "x", count: TextRules.maximumBodyBytes + 1)), ("body", " "), ("id", "not-an-id")] {
            var bad = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            var record = try #require(bad["annotation"] as? [String: Any])
            record[change.0] = change.1
            bad["annotation"] = record
            let decoded = try OperationDocument.decode(Array(try JSONSerialization.data(withJSONObject: bad)), expectedKey: Self.key,
                                                       device: deviceID("d"))
            #expect(decoded == .refused(idempotencyKey: Self.key, deviceID: deviceID("d"), clock: Self.clock, entity: .annotation,
                                        action: .update), "\(change.0)")
        }
    }
}

@Suite struct RemoteDescriptorTests {
    static let slot = Keyslot(id: "slot-passphrase", kind: .passphrase,
                              kdf: KDFParameters(algorithm: "argon2id13", opsLimit: 2, memLimit: 67_108_864),
                              salt: [1, 2, 3], wrappedKey: [4, 5, 6])

    static func descriptor(key: String = "00112233aabbccdd", generation: Int = 0, chain: [RetiredKey] = []) throws -> RemoteDescriptor {
        RemoteDescriptor(vaultID: "v-1", keyID: try KeyID(hex: key), keyslots: [slot], keyslotGeneration: generation, keyChain: chain)
    }

    @Test func roundTripsAndRefusesForeignOrNewer() throws {
        let descriptor = try Self.descriptor()
        #expect(try RemoteDescriptor.decode(descriptor.encoded()) == descriptor)
        #expect(descriptor.vaultKeyslots() == [Self.slot])
        #expect(descriptor.format == "bmvault-remote" && descriptor.formatVersion == 1)

        var json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        json["format"] = "someone-elses-app"
        #expect(throws: RemoteError.malformed(what: "descriptor")) {
            try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        json["format"] = "bmvault-remote"
        json["formatVersion"] = 2
        #expect(throws: RemoteError.malformed(what: "descriptor from a newer bmvault")) {
            try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        }
        #expect(throws: RemoteError.malformed(what: "descriptor")) { try RemoteDescriptor.decode(Array("{}".utf8)) }
        #expect(throws: RemoteError.malformed(what: "descriptor")) { try RemoteDescriptor.decode([]) }
    }

    /// Descriptors written before the keyslot generation existed still read, as generation 0.
    @Test func aDescriptorWithoutAGenerationReadsAsZero() throws {
        let descriptor = try Self.descriptor(generation: 3)
        var json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        #expect(json["keyslotGeneration"] as? Int == 3)
        json["keyslotGeneration"] = nil
        json["keyChain"] = nil
        let older = try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        #expect(older.keyslotGeneration == nil && older.vaultKeyslots() == [Self.slot])
        #expect(older.retiredKeys() == [], "a descriptor from before the key chain has an empty one")
    }

    /// The key chain travels as it is (sealed), and a damaged entry or an endless chain is refused.
    @Test func theKeyChainRoundTripsAndIsBounded() throws {
        let entries = [RetiredKey(id: try KeyID(hex: "0102030405060708"), sealed: [9, 9, 9])]
        let descriptor = try Self.descriptor(chain: entries)
        #expect(try RemoteDescriptor.decode(descriptor.encoded()).retiredKeys() == entries)

        var json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        json["keyChain"] = [["keyId": "not hex", "sealedKey": "AAAA"]]
        #expect(try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json))).retiredKeys() == nil)
        json["keyChain"] = Array(repeating: ["keyId": "0102030405060708", "sealedKey": "AAAA"], count: RemoteDescriptor.longestChain + 1)
        #expect(throws: RemoteError.malformed(what: "descriptor")) {
            try RemoteDescriptor.decode(Array(try JSONSerialization.data(withJSONObject: json)))
        }
    }

    /// Newer keyslots, for one key: a higher generation. For two keys that did not retire
    /// each other (rekeys made at once): the longer chain, then the lower key id, whatever
    /// the generations say; never the same key at the same generation.
    @Test func newerMeansAHigherGenerationForOneKeyThenTheLongerChainAndTheLowerID() throws {
        #expect(try Self.descriptor(generation: 3).isNewer(than: try Self.descriptor(generation: 2)))
        #expect(!(try Self.descriptor(generation: 2).isNewer(than: try Self.descriptor(generation: 2))))
        let one = RetiredKey(id: try KeyID(hex: "0000000000000001"), sealed: [1])
        let two = RetiredKey(id: try KeyID(hex: "0000000000000002"), sealed: [2])
        let low = try Self.descriptor(key: "00000000000000aa", generation: 1, chain: [one])
        let high = try Self.descriptor(key: "ff000000000000aa", generation: 7, chain: [one])
        #expect(low.isNewer(than: high) && !high.isNewer(than: low))
        let deeper = try Self.descriptor(key: "ff000000000000bb", generation: 1, chain: [one, two])
        #expect(deeper.isNewer(than: low) && !low.isNewer(than: deeper))
    }

    /// The circle the lower id alone makes: K2 retired K1, K1 beats K3 by its lower id, K3
    /// beats K2 by its lower id. Chain length puts the three in one order.
    @Test func threeKeysAreInOneOrder() throws {
        let k0 = RetiredKey(id: try KeyID(hex: "0000000000000000"), sealed: [0])
        let k1 = try Self.descriptor(key: "9932ffaa7c11dfb7", chain: [k0])
        let k2 = try Self.descriptor(key: "e536fd04c2a90674", chain: [k0, RetiredKey(id: try KeyID(hex: "9932ffaa7c11dfb7"), sealed: [1])])
        let k3 = try Self.descriptor(key: "c2156046e89b3f9b", chain: [k0])
        #expect(k2.isNewer(than: k1) && k1.isNewer(than: k3) && k2.isNewer(than: k3))
        #expect(!k3.isNewer(than: k2) && !k1.isNewer(than: k2) && !k3.isNewer(than: k1))
    }

    /// A rekey's keyslots beat the key it retired whatever the generations (a passphrase
    /// change counted elsewhere meanwhile); and, asked of the descriptor that retired a key,
    /// a descriptor of that key never wins, even one claiming to have retired it in turn.
    @Test func aKeyThatRetiredTheOtherIsNewer() throws {
        let retired = RetiredKey(id: try KeyID(hex: "ff000000000000aa"), sealed: [1])
        let rekeyed = try Self.descriptor(key: "ff000000000000bb", generation: 1, chain: [retired])
        let passphraseChangedTwice = try Self.descriptor(key: "ff000000000000aa", generation: 2)
        #expect(rekeyed.isNewer(than: passphraseChangedTwice) && !passphraseChangedTwice.isNewer(than: rekeyed))
        let replayed = try Self.descriptor(key: "ff000000000000aa", generation: 9,
                                           chain: [RetiredKey(id: try KeyID(hex: "ff000000000000bb"), sealed: [2])])
        #expect(rekeyed.isNewer(than: replayed))
    }

    /// Over a descriptor of the same key, only the chain entries it lacks are added, with
    /// its own slots and generation; an equal one is left alone.
    @Test func theSameKeysChainIsMergedNotReplaced() throws {
        let k1 = RetiredKey(id: try KeyID(hex: "0000000000000001"), sealed: [1])
        let k2 = RetiredKey(id: try KeyID(hex: "0000000000000002"), sealed: [2])
        let theirs = try Self.descriptor(generation: 5, chain: [k1])
        let ours = try Self.descriptor(generation: 2, chain: [k1, k2])
        let merged = try #require(ours.replacement(for: theirs))
        #expect(merged.keyslotGeneration == 5 && merged.retiredKeys() == [k1, k2])
        #expect(theirs.replacement(for: theirs) == nil)
        #expect(ours.replacement(for: nil) == ours)
    }

    /// What the descriptor holds in the clear: ids, KDF parameters, salts and wrapped keys —
    /// nothing else (SYNC.md's "what a remote can see").
    @Test func holdsOnlyIdsKDFParametersAndWrappedKeys() throws {
        let descriptor = try Self.descriptor(chain: [RetiredKey(id: try KeyID(hex: "0102030405060708"), sealed: [9, 9, 9])])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(descriptor.encoded())) as? [String: Any])
        #expect(Set(json.keys) == ["format", "formatVersion", "vaultId", "keyId", "keyslots", "keyslotGeneration", "keyChain"])
        let entry = try #require((json["keyChain"] as? [[String: Any]])?.first)
        #expect(Set(entry.keys) == ["keyId", "sealedKey"])
        let slot = try #require((json["keyslots"] as? [[String: Any]])?.first)
        #expect(Set(slot.keys) == ["id", "kind", "kdf", "opsLimit", "memLimit", "salt", "wrappedKey"])
    }
}

@Suite struct FolderRemoteTests {
    @Test func writesAFileOnceAndLeavesNoTemporaryFile() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        let (one, two) = (deviceID("1"), deviceID("2"))
        try remote.checkReachable()
        #expect(try remote.devices() == [])
        #expect(try remote.readDescriptor() == nil)

        #expect(try remote.writeOperation("b.k2.op", of: two, bytes: [1]) == true)
        #expect(try remote.writeOperation("a.k1.op", of: two, bytes: [2, 2]) == true)
        #expect(try remote.writeOperation("c.k3.op", of: one, bytes: [3]) == true)
        // A second write of the same name: false, and the first content stays.
        #expect(try remote.writeOperation("a.k1.op", of: two, bytes: [9, 9, 9]) == false)
        #expect(try remote.readOperation("a.k1.op", of: two) == [2, 2])

        #expect(try remote.devices() == [one, two])
        #expect(try remote.operationNames(of: two) == ["a.k1.op", "b.k2.op"])
        #expect(try remote.operationNames(of: "nobody") == [])

        // Nothing but the operation files: no temporary file left behind.
        let root = scratch.path + "/bmvault-vault-1/devices"
        for device in [one, two] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root + "/" + device)
            #expect(names.allSatisfy { $0.hasSuffix(".op") && !$0.hasPrefix(".") }, "\(names)")
        }
        // Files are private.
        let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + two + "/a.k1.op")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func ignoresStrayFilesAndTemporaryNames() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        let one = deviceID("1")
        try remote.writeOperation("a.k1.op", of: one, bytes: [1])
        let directory = scratch.path + "/bmvault-vault-1/devices/" + one
        _ = FileManager.default.createFile(atPath: directory + "/.tmp-leftover", contents: Data([0]))
        _ = FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data([0]))
        try FileManager.default.createDirectory(atPath: scratch.path + "/bmvault-vault-1/devices/.hidden", withIntermediateDirectories: true)
        // What a file manager or a sync tool leaves: not device folders, skipped (issue 23).
        try FileManager.default.createDirectory(atPath: scratch.path + "/bmvault-vault-1/devices/New Folder", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: scratch.path + "/bmvault-vault-1/devices/desktop.ini", contents: Data([0]))
        _ = FileManager.default.createFile(atPath: scratch.path + "/bmvault-vault-1/devices/" + deviceID("3"), contents: Data([0]))
        #expect(try remote.operationNames(of: one) == ["a.k1.op"])
        #expect(try remote.devices() == [one])
    }

    @Test func descriptorIsReplacedAtomically() throws {
        let scratch = try Scratch("folder")
        let remote = FolderRemote(name: "r", location: scratch.path, vaultID: "vault-1")
        try remote.writeDescriptor(Array("one".utf8))
        try remote.writeDescriptor(Array("two".utf8))
        #expect(try remote.readDescriptor() == Array("two".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/bmvault-vault-1")
        #expect(names == ["vault.json"], "\(names)")
    }

    @Test func unreachableWhenMissingOrNotADirectory() throws {
        let scratch = try Scratch("folder")
        #expect(throws: RemoteError.unreachable(errno: ENOENT)) { try FolderRemote(name: "r", location: scratch.path + "/missing", vaultID: "v").checkReachable() }
        _ = FileManager.default.createFile(atPath: scratch.path + "/file", contents: Data())
        #expect(throws: RemoteError.unreachable(errno: ENOTDIR)) { try FolderRemote(name: "r", location: scratch.path + "/file", vaultID: "v").checkReachable() }
        do {
            try FolderRemote(name: "r", location: scratch.path + "/missing", vaultID: "v").checkReachable()
        } catch {
            #expect(error.errorClass == "unreachable")
        }
    }

    @Test(.enabled(if: getuid() != 0, "root may write into a folder whatever its mode"))
    func unreachableWhenNotWritable() throws {
        let scratch = try Scratch("folder")
        let readOnly = try scratch.sub("ro")
        chmod(readOnly, 0o500)
        defer { chmod(readOnly, 0o700) }
        #expect(throws: RemoteError.unreachable(errno: EACCES)) { try FolderRemote(name: "r", location: readOnly, vaultID: "v").checkReachable() }
    }

    @Test func errorClasses() {
        #expect(RemoteError.unreachable(errno: 2).errorClass == "unreachable")
        #expect(RemoteError.timedOut.errorClass == "timedOut")
        #expect(RemoteError.otherVault.errorClass == "otherVault")
        #expect(RemoteError.io(operation: "link", errno: 5).errorClass == "io.link")
        #expect(RemoteError.malformed(what: "x").errorClass == "malformed")
    }
}

/// Operation files are sealed and bound: a file renamed to another key, or copied into
/// another vault's folder, does not open; nothing in it is readable.
@Suite struct OperationSealingTests {
    @Test func aRemoteFileHoldsNoPlaintextAndOpensOnlyUnderItsOwnKeyAndVault() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let book = try a.addBook("Canary Title Zq9", authors: ["Canary Author Zq9"])
        let note = try a.addNote("Canary note body Zq9 on page 12", to: book)
        try a.sync()

        let remote = cluster.folderRemote()
        let names = try remote.operationNames(of: a.deviceID)
        #expect(names.count == 2)
        for name in names {
            let bytes = try remote.readOperation(name, of: a.deviceID)
            for canary in ["Canary", "Zq9", book.id.rawValue, note.id.rawValue, "annotation", "\"book\""] {
                #expect(!contains(bytes, Array(canary.utf8)), "\(name) holds \(canary) in the clear")
            }
        }

        // Renamed to another idempotency key: does not open.
        let name = names[1]
        let key = try #require(OperationFileName.idempotencyKey(in: name))
        let sealed = try remote.readOperation(name, of: a.deviceID)
        #expect(try cluster.cipher.open(operation: sealed, idempotencyKey: key).isEmpty == false)
        let otherKey = EntityID.generate(at: a.clock.now()).rawValue
        #expect(throws: CryptoError.authenticationFailed) { try cluster.cipher.open(operation: sealed, idempotencyKey: otherKey) }

        // Copied into another vault's folder: even under the SAME key, another vault id in
        // the associated data does not open it (and the same vault id, as a control, does).
        let sameVault = FieldSealer(key: cluster.key, vaultID: cluster.metadata.vaultID)
        #expect(try sameVault.open(sealed, table: "remote-operation", recordID: key, field: "operation").isEmpty == false)
        let otherVault = FieldSealer(key: cluster.key, vaultID: UUID().uuidString.lowercased())
        #expect(throws: CryptoError.authenticationFailed) { try otherVault.open(sealed, table: "remote-operation", recordID: key, field: "operation") }
        // Nor as an outbox payload or a record field of this vault: the table and field are bound too.
        #expect(throws: CryptoError.authenticationFailed) { try sameVault.open(sealed, table: "outbox", recordID: key, field: "payload") }
        // And a vault with another key refuses it outright.
        let other = try Cluster()
        let stranger = try other.addDevice("s")
        #expect(throws: CryptoError.keyMismatch) { try other.cipher.open(operation: sealed, idempotencyKey: key) }
        _ = stranger

        // And an engine reading such files counts them as unreadable and applies nothing.
        let b = try cluster.addDevice("b")
        let renamedDirectory = cluster.remoteRoot + "/devices/" + deviceID("9")
        try FileManager.default.createDirectory(atPath: renamedDirectory, withIntermediateDirectories: true)
        let clockPart = name.split(separator: ".")[0]
        try Data(sealed).write(to: URL(fileURLWithPath: renamedDirectory + "/\(clockPart).\(otherKey).op"))
        // Same name, but moved under another device's folder: the device inside does not match.
        try Data(sealed).write(to: URL(fileURLWithPath: renamedDirectory + "/" + name))
        let summary = try b.sync()
        #expect(summary.rejected == 2)
        #expect(summary.pulled == 2)
        #expect(try b.liveAnnotations().map(\.body) == ["Canary note body Zq9 on page 12"])
    }

    @Test func aFlippedByteDoesNotOpen() throws {
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.addBook("Title")
        try a.sync()
        let remote = cluster.folderRemote()
        let name = try #require(try remote.operationNames(of: a.deviceID).first)
        var sealed = try remote.readOperation(name, of: a.deviceID)
        sealed[sealed.count / 2] ^= 0x40
        #expect(throws: CryptoError.authenticationFailed) {
            try cluster.cipher.open(operation: sealed, idempotencyKey: OperationFileName.idempotencyKey(in: name)!)
        }
    }
}

/// True when `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
    }
    return false
}

/// How a push batch is cut into waves a remote may write at once.
@Suite struct PushWaveTests {
    @Test func eachWaveHoldsOneOperationOfARecordInOrder() {
        let entities = ["a", "b", "a", "c", "a", "b"]
        let operations = entities.enumerated().map { index, entity in
            OutgoingOperation(outboxID: Int64(index), fileName: "\(index).op", sealed: [], entityID: entity, attempts: 0)
        }
        let waves = SyncEngine<VaultSyncJournal>.waves(of: operations)
        #expect(waves.map { $0.map(\.outboxID) } == [[0, 1, 3], [2, 5], [4]])
        #expect(waves.allSatisfy { Set($0.map(\.entityID)).count == $0.count })
        #expect(SyncEngine<VaultSyncJournal>.waves(of: []).isEmpty)
    }
}
