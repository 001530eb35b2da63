import Foundation
public import Journal
import VaultCrypto

/// What KOReader's exporter plugin writes as JSON (Tools → Export highlights → JSON): one
/// book (`{"title", "author", "entries": [...], "number_of_pages", "created_on", "version"}`)
/// or several (`{"documents": [...], "created_on", "version"}`), each entry `{"page", "time",
/// "chapter", "text", "note", "drawer", "sort"}`. Read with Foundation's JSON reader.
public struct KOReaderExport: Sendable {
    public struct Document: Sendable, Equatable {
        public let title: String?
        public let author: String?
        public let entries: [Entry]
    }

    /// A highlight as the sidecar would give it (no `pos0`/`pos1`: the exporter leaves them
    /// out, so its key is its own: book, time, page and text), and when it was made.
    public struct Entry: Sendable, Equatable {
        public let highlight: KOReaderSidecar.Highlight
        public let createdAt: Timestamp?
    }

    public let documents: [Document]

    /// Whether `bytes` begin as the exporter's JSON does (its own members), not as a sidecar.
    public static func isExport(_ bytes: some Collection<UInt8>) -> Bool {
        let text = String(decoding: bytes.prefix(64 << 10), as: UTF8.self)
        return text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.hasPrefix("{")
            && (text.containsBytes("\"number_of_pages\"") || (text.containsBytes("\"documents\"") && text.containsBytes("\"created_on\"")))
    }

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> KOReaderExport {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw .malformed(line: 1, reason: "not a JSON object")
        }
        let books = root["documents"] as? [[String: Any]] ?? [root]
        var documents: [Document] = []
        for book in books {
            guard let entries = book["entries"] as? [[String: Any]] else { throw .malformed(line: 1, reason: "a book without its `entries`") }
            let title = book["title"] as? String, author = book["author"] as? String
            var read: [Entry] = []
            for entry in entries {
                let text = entry["text"] as? String ?? ""
                // `time`: the highlight's moment, in seconds since 1970.
                let seconds = (entry["time"] as? NSNumber)?.int64Value
                let page = (entry["page"] as? NSNumber)?.intValue
                let material = ["koreader-export", title ?? "", author ?? "", seconds.map(String.init) ?? "", page.map(String.init) ?? "", text]
                let highlight = KOReaderSidecar.Highlight(text: text, note: (entry["note"] as? String).flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 },
                                                          chapter: entry["chapter"] as? String, pageNumber: page, datetime: "",
                                                          pos0: nil, pos1: nil, naturalKey: SHA256.hex(of: Array(material.joined(separator: "\n").utf8)))
                read.append(Entry(highlight: highlight, createdAt: seconds.flatMap(Self.timestamp)))
            }
            documents.append(Document(title: title.flatMap { $0.isEmpty ? nil : $0 }, author: author.flatMap { $0.isEmpty ? nil : $0 },
                                      entries: read))
        }
        return KOReaderExport(documents: documents)
    }

    /// An entry's `time` as a moment, or nil (the import's own time is taken, as for a
    /// sidecar's `datetime` not in its form) when it is before 1970 or after the last moment
    /// bmvault accepts from outside (``HybridTimestamp/latestWallMilliseconds``): a hostile
    /// file's `time` near 2^63 would overflow in milliseconds.
    static func timestamp(_ seconds: Int64) -> Timestamp? {
        guard (0...HybridTimestamp.latestWallMilliseconds / 1000).contains(seconds) else { return nil }
        return Timestamp(millisecondsSince1970: seconds * 1000)
    }
}
