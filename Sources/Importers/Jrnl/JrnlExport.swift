import Foundation
import VaultCrypto

/// A jrnl journal as `jrnl --export json` writes it: `{"tags": {...}, "entries": [{"title",
/// "body", "date": "YYYY-MM-DD", "time": "HH:MM", "tags": ["@word"], "starred"}]}`, read with
/// Foundation's JSON reader. Its entries are the reader's own words: they become notes, in a
/// book the import is told (`--book`) or a book called Journal (`starred` is not kept: the
/// journal has no such mark).
public struct JrnlExport: Sendable {
    public struct Entry: Sendable, Equatable {
        /// The title (jrnl's first sentence) and the body after it, one text.
        public let text: String
        public let date: String
        public let time: String?
        /// jrnl's tags (`@work`), without their `@`.
        public let tags: [String]
        /// (date, time, title, body), SHA-256: the same in every export of the journal.
        public let naturalKey: String

        /// The year, month, day, hour and minute of `date` and `time`; nil when malformed.
        public var localTime: (year: Int, month: Int, day: Int, hour: Int, minute: Int)? {
            let day = date.split(separator: "-").compactMap { Int($0) }
            let clock = (time ?? "00:00").split(separator: ":").compactMap { Int($0) }
            guard day.count == 3, clock.count >= 2 else { return nil }
            return (day[0], day[1], day[2], clock[0], clock[1])
        }
    }

    public let entries: [Entry]

    public static func read(_ bytes: [UInt8]) throws(ImportError) -> JrnlExport {
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let items = root["entries"] as? [Any] else {
            throw .malformed(line: 1, reason: "not a jrnl JSON export (no `entries` list)")
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            guard let entry = item as? [String: Any], let date = entry["date"] as? String else {
                throw .malformed(line: 1, reason: "entry \(index + 1) has no date")
            }
            let title = (entry["title"] as? String ?? "").trimmingCharacters(in: " \t\n")
            let body = (entry["body"] as? String ?? "").trimmingCharacters(in: " \t\n")
            let text = body.isEmpty ? title : title.isEmpty ? body : title + "\n" + body
            guard !text.isEmpty else { throw .malformed(line: 1, reason: "entry \(index + 1) has no text") }
            let time = entry["time"] as? String
            let tags = (entry["tags"] as? [String] ?? []).map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }.filter { !$0.isEmpty }
            let material = ["jrnl", date, time ?? "", title, body].joined(separator: "\n")
            entries.append(Entry(text: text, date: date, time: time, tags: tags, naturalKey: SHA256.hex(of: Array(material.utf8))))
        }
        return JrnlExport(entries: entries)
    }
}
