/// A note file as it is in the folder, read to find what bmvault manages in it: the
/// properties of ``BookNoteRenderer/managedKeys`` in its front matter, and the region
/// between the begin and end markers. Everything else is the reader's, and
/// ``splice(properties:region:)`` keeps it byte for byte.
struct NoteDocument {
    /// One top-level entry of the front matter: a key and the lines under it, or (`key` nil)
    /// lines before the first key (comments, blank lines).
    struct Entry {
        let key: String?
        /// Its lines in ``bytes``, line breaks included.
        let range: Range<Int>
    }

    let bytes: [UInt8]
    /// The front matter, when the file begins with a `---` line and has a closing `---` (or
    /// `...`) line: `entries` between them, `closing` the closing line.
    private(set) var entries: [Entry] = []
    private(set) var opening: Range<Int>?
    private(set) var closing: Range<Int>?
    /// From the first begin marker's line to the end of the first end marker's line after it.
    private(set) var region: Range<Int>?
    /// Exactly one begin marker and one end marker after it: anything else is a region the
    /// reader changed (removed a marker, pasted a second region).
    private(set) var regionIntact = false

    var hasFrontMatter: Bool { opening != nil }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        let lines = Self.lines(bytes)
        var bodyStart = 0
        if let first = lines.first, Self.text(bytes, first).trimmingLineEnd == "---" {
            if let closingIndex = lines.dropFirst().firstIndex(where: { ["---", "..."].contains(Self.text(bytes, $0).trimmingLineEnd) }) {
                opening = first
                closing = lines[closingIndex]
                bodyStart = lines[closingIndex].upperBound
                var current: (key: String?, start: Int)?
                for line in lines[1..<closingIndex] {
                    let text = Self.text(bytes, line)
                    if let key = Self.entryKey(text) {
                        if let current { entries.append(Entry(key: current.key, range: current.start..<line.lowerBound)) }
                        current = (key, line.lowerBound)
                    } else if current == nil {
                        current = (nil, line.lowerBound)
                    }
                }
                if let current { entries.append(Entry(key: current.key, range: current.start..<lines[closingIndex].lowerBound)) }
            }
        }
        var begins = 0, ends = 0
        var begin: Int?
        for line in lines where line.lowerBound >= bodyStart {
            let text = Self.text(bytes, line).trimmingLineEnd
            if text.hasPrefix(BookNoteRenderer.beginPrefix) && text.hasSuffix("-->") {
                begins += 1
                if begin == nil { begin = line.lowerBound }
            } else if text == BookNoteRenderer.endMarker {
                ends += 1
                if let begin, region == nil { region = begin..<line.upperBound }
            }
        }
        regionIntact = begins == 1 && ends == 1 && region != nil
    }

    /// The managed region's bytes as they are now (nil when there is none).
    var regionBytes: ArraySlice<UInt8>? { region.map { bytes[$0] } }

    /// The value of each managed property in the file, by key: its items, nil for a key
    /// whose YAML this reader does not take (a block scalar, a mapping) or that appears
    /// twice. Absent keys are absent.
    func managedValues() -> [String: [String]?] {
        var values: [String: [String]?] = [:]
        for entry in entries {
            guard let key = entry.key, BookNoteRenderer.managedKeys.contains(key) else { continue }
            if values[key] != nil {
                values[key] = .some(nil)
                continue
            }
            values[key] = .some(FrontMatterValue.items(Self.text(bytes, entry.range)))
        }
        return values
    }

    /// ``BookNoteRenderer/canonical(_:)`` of the managed properties as they are in the
    /// file; a property this reader cannot take makes bytes no rendering makes.
    func canonicalProperties() -> [UInt8] {
        var readable: [String: [String]] = [:]
        var unreadable: [UInt8] = []
        for (key, items) in managedValues() {
            if let items { readable[key] = items } else { unreadable += Array("\u{0}unreadable \(key)".utf8) }
        }
        return BookNoteRenderer.canonical(readable) + unreadable
    }

    /// The file with bmvault's parts replaced: each managed property whose value changed
    /// gets `properties`' text (one whose value is the same keeps its bytes, however it is
    /// spelled; one no longer given is removed; a new one goes after the last managed one),
    /// and the region is replaced by `region` (removed when nil; added at the end when the
    /// file has none). Everything else stays byte for byte.
    func splice(properties: [NoteProperty], region newRegion: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        let given = Dictionary(properties.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var written = Set<String>()
        var body = 0
        if let opening, let closing {
            var entriesOut: [UInt8] = []
            var insertAt: Int?
            for entry in entries {
                guard let key = entry.key, BookNoteRenderer.managedKeys.contains(key) else {
                    entriesOut += bytes[entry.range]
                    continue
                }
                defer { insertAt = entriesOut.count }
                guard let property = given[key], !written.contains(key) else { continue }
                written.insert(key)
                let current = FrontMatterValue.items(Self.text(bytes, entry.range))
                entriesOut += current == property.values ? Array(bytes[entry.range]) : Array(property.text.utf8)
            }
            if !entriesOut.isEmpty, entriesOut.last != 0x0A { entriesOut.append(0x0A) }
            let missing = properties.filter { !written.contains($0.key) }.flatMap { Array($0.text.utf8) }
            entriesOut.insert(contentsOf: missing, at: insertAt ?? entriesOut.count)
            let onlyBlank = entriesOut.allSatisfy { $0 == 0x0A || $0 == 0x20 || $0 == 0x0D }
            if !onlyBlank {
                out += bytes[opening]
                out += entriesOut
                out += bytes[closing]
            }
            body = closing.upperBound
            if onlyBlank, body < bytes.count, bytes[body] == 0x0A { body += 1 }
        } else if !properties.isEmpty {
            out += Array("---\n".utf8) + properties.flatMap { Array($0.text.utf8) } + Array("---\n".utf8)
            if bytes.first != 0x0A { out.append(0x0A) }
        }
        if let region, region.lowerBound >= body {
            out += bytes[body..<region.lowerBound]
            if let newRegion { out += newRegion }
            var rest = region.upperBound
            // A region removed takes the blank line after it along.
            if newRegion == nil, rest < bytes.count, bytes[rest] == 0x0A { rest += 1 }
            out += bytes[rest...]
        } else {
            out += bytes[body...]
            if let newRegion {
                if !out.isEmpty && out.last != 0x0A { out.append(0x0A) }
                if !out.isEmpty && !out.suffix(2).elementsEqual([0x0A, 0x0A]) { out.append(0x0A) }
                out += newRegion
            }
        }
        return out
    }

    /// A new note: the properties, a blank line, the region.
    static func new(properties: [NoteProperty], region: [UInt8]) -> [UInt8] {
        Array("---\n".utf8) + properties.flatMap { Array($0.text.utf8) } + Array("---\n\n".utf8) + region
    }

    // MARK: - Lines

    /// Each line's range, its line break included (the last may have none).
    static func lines(_ bytes: [UInt8]) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        for index in bytes.indices where bytes[index] == 0x0A {
            lines.append(start..<(index + 1))
            start = index + 1
        }
        if start < bytes.count { lines.append(start..<bytes.count) }
        return lines
    }

    static func text(_ bytes: [UInt8], _ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// The key a line starts an entry with (`title: ...` at the start of the line), or nil
    /// for a line that continues one (indented, a `- ` item, a comment, blank).
    static func entryKey(_ line: String) -> String? {
        guard let first = line.unicodeScalars.first, !" \t-#\r\n".unicodeScalars.contains(first),
              let colon = line.firstIndex(of: ":") else { return nil }
        let after = line.index(after: colon)
        guard after == line.endIndex || line[after] == " " || line[after] == "\t" || line[after] == "\n" || line[after] == "\r" else { return nil }
        var key = String(line[..<colon])
        while key.hasSuffix(" ") { key.removeLast() }
        if key.count >= 2, let quote = key.first, quote == "\"" || quote == "'", key.last == quote { key = String(key.dropFirst().dropLast()) }
        return key
    }
}

extension String {
    /// Without the line break, carriage return and trailing spaces or tabs.
    var trimmingLineEnd: String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == " " || last == "\t" || last == "\r\n" { text.removeLast() }
        return String(text)
    }
}
