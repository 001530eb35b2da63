import VaultCrypto

/// Reads a Kindle's `My Clippings.txt`: records separated by `==========` lines, each a title
/// line, a metadata line (`- Your Highlight on page 41 | location 737-739 | Added on ...`, in
/// the device's UI language), a blank line and the text.
///
/// What real files do, and this reader takes: a byte order mark at the start of many
/// records (stripped from every line), CRLF framing with bare LF inside typed notes, a file
/// that begins with a blank line or with `==========`, the title's author as its last
/// balanced parenthesised group (titles hold parentheses too) or after ` - `, metadata in
/// English (2011–2013 firmware and today's), German, French, Spanish, Italian, Portuguese,
/// Japanese and Chinese, abbreviated location ranges (`1386-87`), a date never parsed.
public enum KindleClippingsParser {
    /// The line between two records.
    static let separator = "=========="

    /// Every record of the file, in file order. Throws for a record that is not a Kindle
    /// clipping (no metadata line, a kind in no language known here), or whose title or
    /// author the journal would refuse (a control character), naming its line.
    public static func parse(_ bytes: [UInt8]) throws(ImportError) -> [KindleClipping] {
        var clippings: [KindleClipping] = []
        var record: [(line: Int, text: Substring)] = []
        var number = 0
        // Split on the line-feed bytes: as a String, CR LF is one character and would not split.
        for rawLine in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            guard let decoded = String(validating: rawLine.last == 0x0D ? rawLine.dropLast() : rawLine, as: UTF8.self) else {
                throw .invalidUTF8
            }
            var line = Substring(decoded)
            while line.first == "\u{FEFF}" { line = line.dropFirst() }
            if line.trimmingTrailingSpaces() == Substring(separator) {
                if let clipping = try clipping(record, index: clippings.count) { clippings.append(clipping) }
                record.removeAll()
            } else {
                record.append((number, line))
            }
        }
        if let clipping = try clipping(record, index: clippings.count) { clippings.append(clipping) }
        return clippings
    }

    /// One record's clipping; nil for a record of blank lines only (a file's start or end).
    private static func clipping(_ lines: [(line: Int, text: Substring)], index: Int) throws(ImportError) -> KindleClipping? {
        guard let start = lines.firstIndex(where: { !$0.text.allSatisfy(\.isWhitespace) }) else { return nil }
        let titleLine = lines[start]
        guard start + 1 < lines.count, lines[start + 1].text.hasPrefix("-") else {
            throw .malformed(line: titleLine.line, reason: "a clipping without its metadata line (`- Your Highlight ...`)")
        }
        let metadataLine = lines[start + 1]
        let metadata = metadataLine.text.dropFirst().trimmingCharacters(in: " ")
        // Split by bytes (`|` is ASCII): a split by characters cost a third of the parse.
        var segments = metadata.utf8.split(separator: UInt8(ascii: "|")).map { Substring($0).trimmingCharacters(in: " ") }
        let rawDate = segments.count > 1 ? segments.removeLast() : nil
        let description = segments.joined(separator: " | ")
        guard let kind = kind(of: description) else {
            throw .malformed(line: metadataLine.line, reason: "a clipping of a kind bmvault does not know (another language?)")
        }
        var position = KindleClipping.Position()
        for segment in segments {
            let lowered = segment.lowercased()
            if position.location == nil, let range = range(after: locationWords, in: lowered) { position.location = range }
            if position.page == nil, let range = range(after: pageWords, in: lowered) { position.page = range }
        }
        // The text: after the blank line that follows the metadata.
        var bodyLines = lines[(start + 2)...].map { String($0.text.trimmingTrailingSpaces()) }
        if bodyLines.first?.isEmpty == true { bodyLines.removeFirst() }
        while bodyLines.last?.isEmpty == true { bodyLines.removeLast() }
        let body = bodyLines.joined(separator: "\n")
        // `Title - Author` is the Kindle 3's form; its English metadata says `Page` and `Loc.`
        // with capitals. A later device's `Author 1996 - Title` (a PDF's name) is a title.
        let olderFirmware = metadata.containsBytes("on Page") || metadata.containsBytes("Loc. ")
        let titleText = titleLine.text.trimmingCharacters(in: " ")
        let (title, author) = titleAndAuthor(titleText, dashSeparatesAuthor: olderFirmware)
        try ImportError.checkLine(title, field: "title", line: titleLine.line)
        if let author { try ImportError.checkLine(author, field: "author", line: titleLine.line) }
        var material = "kindle\n" + titleText + "\n" + metadata + "\n"
        material += body
        return KindleClipping(title: title, author: author, kind: kind, position: position, rawDate: rawDate,
                              body: body, isClippingLimitPlaceholder: isClippingLimitPlaceholder(body), index: index,
                              naturalKey: SHA256.hex(of: Array(material.utf8)))
    }

    // MARK: - The title line

    /// `Title (Author)`: the last balanced parenthesised group at the end is the author, so
    /// `Le Petit Prince (Édition illustrée) (Saint-Exupéry, Antoine de)` keeps its own
    /// parentheses. Else, with `dashSeparatesAuthor`, `Title - Author` (Kindle 3). Else the
    /// whole line is the title.
    static func titleAndAuthor(_ line: String, dashSeparatesAuthor: Bool) -> (String, String?) {
        if line.hasSuffix(")") {
            var depth = 0
            var index = line.endIndex
            while index > line.startIndex {
                index = line.index(before: index)
                if line[index] == ")" { depth += 1 }
                if line[index] == "(" {
                    depth -= 1
                    if depth == 0 {
                        let title = line[..<index].trimmingCharacters(in: " ")
                        let author = line[line.index(after: index)..<line.index(before: line.endIndex)].trimmingCharacters(in: " ")
                        if !title.isEmpty, !author.isEmpty { return (title, author) }
                        break
                    }
                }
            }
        }
        if dashSeparatesAuthor, let dash = line.ranges(of: " - ").last {
            let title = line[..<dash.lowerBound].trimmingCharacters(in: " ")
            let author = line[dash.upperBound...].trimmingCharacters(in: " ")
            if !title.isEmpty, !author.isEmpty { return (title, author) }
        }
        return (line, nil)
    }

    // MARK: - The metadata line

    /// Words of each kind, lowercased, in every UI language known here; looked for in this
    /// order (a bookmark's line names no highlight, a highlight's no note).
    static let kindWords: [(KindleClipping.Kind, [String])] = [
        (.bookmark, ["bookmark", "lesezeichen", "signet", "marcador", "segnalibro", "ブックマーク", "书签"]),
        (.highlight, ["highlight", "markierung", "surlignement", "subrayado", "evidenziazione", "destaque", "ハイライト", "标注"]),
        (.note, ["note", "notiz", "nota", "メモ", "笔记"]),
        (.clip, ["clip", "ausschnitt", "extrait", "recorte", "ritaglio", "クリップ", "剪贴"]),
    ]
    static let locationWords = ["location", "loc.", "position", "emplacement", "posición", "posizione", "posição", "位置"]
    static let pageWords = ["page", "seite", "página", "pagina", "ページ", "页"]

    static func kind(of description: String) -> KindleClipping.Kind? {
        let lowered = description.lowercased()
        return kindWords.first { _, words in words.contains { lowered.containsBytes($0) } }?.0
    }

    /// Words written after their number (`第 5 页`, `5 ページ`).
    static let wordsAfterTheirNumber: Set<String> = ["页", "ページ"]

    /// The number or range after one of `words` in `text` (`location 737-739`, `位置 #2543-2544`,
    /// `Loc. 1386-87`), or, for a word written after its number (`第 5 页`), before it.
    static func range(after words: [String], in text: String) -> ClosedRange<Int>? {
        for word in words {
            guard let found = text.firstByteRange(of: word) else { continue }
            if wordsAfterTheirNumber.contains(word) {
                let before = text[..<found.lowerBound].split(whereSeparator: { !$0.isASCII || !$0.isNumber }).last
                if let before, let value = Int(before) { return value...value }
            }
            if let range = firstRange(in: text[found.upperBound...].prefix(12)) { return range }
        }
        return nil
    }

    /// The first `N` or `N-M` in `text`; an abbreviated end (`1386-87`) takes the start's
    /// leading digits.
    private static func firstRange(in text: Substring) -> ClosedRange<Int>? {
        guard let digitsStart = text.firstIndex(where: { $0.isASCII && $0.isNumber }) else { return nil }
        let startDigits = text[digitsStart...].prefix { $0.isASCII && $0.isNumber }
        guard let start = Int(startDigits) else { return nil }
        let rest = text[startDigits.endIndex...]
        guard rest.first == "-" else { return start...start }
        let endDigits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
        guard !endDigits.isEmpty else { return start...start }
        var end = Int(endDigits) ?? start
        if end < start, endDigits.count < startDigits.count {
            end = Int(startDigits.dropLast(endDigits.count) + endDigits) ?? start
        }
        return end >= start ? start...end : start...start
    }

    /// `<You have reached the clipping limit for this item>` and its translations: one line
    /// in angle brackets that speaks of a limit.
    static func isClippingLimitPlaceholder(_ body: String) -> Bool {
        guard body.hasPrefix("<"), body.hasSuffix(">"), !body.containsBytes("\n") else { return false }
        let lowered = body.lowercased()
        return ["clipping", "limit", "límite", "limite", "grenze", "上限"].contains { lowered.containsBytes($0) }
    }
}

private extension StringProtocol {
    func trimmingTrailingSpaces() -> SubSequence {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == " " || self[index(before: end)] == "\t" { end = index(before: end) }
        return self[startIndex..<end]
    }
}
