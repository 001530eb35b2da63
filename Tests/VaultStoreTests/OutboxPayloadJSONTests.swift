import Foundation
import Testing
import Journal
@testable import VaultStore

/// The outbox payload's JSON is written by hand; it must be the very bytes `JSONEncoder`
/// writes (sorted keys, slashes unescaped), which every device reads.
@Suite struct OutboxPayloadJSONTests {
    static let texts = [
        "plain", "", "\"quoted\" and \\backslashed\\ / slashed", "tab\tnew\nline\rreturn\u{8}\u{C}\u{0}\u{1F}\u{7F}",
        "é 👩🏽‍💻 مرحبا \u{2028}\u{2029}\u{85}\u{FEFF}", String(repeating: "long text ", count: 200),
    ]

    private func encoded(_ payload: OutboxPayload) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(payload))
    }

    @Test func annotationsAreWhatJSONEncoderWrites() throws {
        for (index, text) in Self.texts.enumerated() {
            let annotation = Annotation(id: EntityID.generate(at: Timestamp(millisecondsSince1970: Int64(index))),
                                        bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 0)),
                                        kind: index % 2 == 0 ? .note : .quote, body: text,
                                        locator: index % 3 == 0 ? nil : try Locator("p. \(index) \"x\""),
                                        createdAt: Timestamp(millisecondsSince1970: -1), updatedAt: Timestamp(millisecondsSince1970: 1_767_225_600_123),
                                        deletedAt: index % 2 == 0 ? nil : Timestamp(millisecondsSince1970: 5), version: Int64(index + 1),
                                        conflictOf: index == 1 ? EntityID.generate(at: Timestamp(millisecondsSince1970: 9)) : nil,
                                        conflictReason: index == 1 ? .bothEdited : nil)
            let payload = OutboxPayload(annotation)
            #expect(payload.jsonBytes() == (try encoded(payload)), "\(index)")
        }
    }

    @Test func booksAndSessionsAreWhatJSONEncoderWrites() throws {
        let progresses: [Double] = [0, 100, 42.5, 33.333333333333336, 0.1, 1e-5, 99.99999999999999, 12.000000000000002]
        for (index, progress) in progresses.enumerated() {
            let book = Book(id: EntityID.generate(at: Timestamp(millisecondsSince1970: Int64(index))), title: Self.texts[index % Self.texts.count],
                            authors: Array(Self.texts.prefix(index % 4)), progress: progress,
                            createdAt: Timestamp(millisecondsSince1970: 1), updatedAt: Timestamp(millisecondsSince1970: 2),
                            deletedAt: index % 2 == 0 ? nil : Timestamp(millisecondsSince1970: 3), version: 7)
            let clock = index % 3 == 0 ? nil : HybridTimestamp(wallMilliseconds: 12, counter: 3, deviceID: "device")
            let payload = OutboxPayload(book, progressRewind: index % 2 == 0, progressClock: clock)
            #expect(payload.jsonBytes() == (try encoded(payload)), "\(progress)")
        }
        let session = ReadingSession(id: EntityID.generate(at: Timestamp(millisecondsSince1970: 4)),
                                     bookID: EntityID.generate(at: Timestamp(millisecondsSince1970: 5)),
                                     startedAt: Timestamp(millisecondsSince1970: 6), endedAt: Timestamp(millisecondsSince1970: 7), pagesRead: 30)
        #expect(OutboxPayload(session).jsonBytes() == (try encoded(OutboxPayload(session))))
    }
}
