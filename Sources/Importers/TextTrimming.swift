extension StringProtocol {
    /// The text without any of `characters` at either end (Foundation's, without Foundation).
    func trimmingCharacters(in characters: String) -> String {
        // Most cells have nothing to trim: an end byte that is no white space of `characters`
        // begins or ends no character of it (white space has no other spelling), so the text
        // is kept without walking its characters.
        if characters.utf8.allSatisfy(Self.isASCIIWhiteSpace), let first = first?.utf8.first, let last = last?.utf8.last,
           !characters.utf8.contains(first), !characters.utf8.contains(last) {
            return String(self)
        }
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }

    private static func isASCIIWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Where `needle` first occurs, found by its UTF-8 bytes: a plain byte search, many times
    /// cheaper than a search by characters (Foundation's, or the standard library's generic
    /// one), which the importers run for every record of files of tens of thousands. The
    /// needles are words and phrases that begin with a whole character, so a match begins on
    /// one too.
    func firstByteRange(of needle: some StringProtocol) -> Range<Index>? {
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty else { return startIndex..<startIndex }
        // A native string's bytes are contiguous: searched in place, the offset then made an index.
        if let offset = utf8.withContiguousStorageIfAvailable({ Self.offset(of: pattern, in: $0) }) {
            guard let offset else { return nil }
            let start = utf8.index(utf8.startIndex, offsetBy: offset)
            return start..<utf8.index(start, offsetBy: pattern.count)
        }
        guard let offset = Self.offset(of: pattern, in: Array(utf8)) else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: offset)
        return start..<utf8.index(start, offsetBy: pattern.count)
    }

    private static func offset(of pattern: [UInt8], in bytes: some RandomAccessCollection<UInt8>) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        let first = pattern[0]
        var base = bytes.startIndex
        for candidate in 0...(bytes.count - pattern.count) {
            defer { base = bytes.index(after: base) }
            guard bytes[base] == first else { continue }
            var matched = true
            var position = base
            for expected in pattern.dropFirst() {
                position = bytes.index(after: position)
                if bytes[position] != expected { matched = false; break }
            }
            if matched { return candidate }
        }
        return nil
    }

    /// Whether `needle` occurs, by ``firstByteRange(of:)``.
    func containsBytes(_ needle: some StringProtocol) -> Bool {
        firstByteRange(of: needle) != nil
    }
}
