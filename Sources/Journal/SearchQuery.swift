/// What `search` looks for: words and `"quoted phrases"`, each of which must appear
/// (anywhere, in any order), compared folded (``TextFolding``: no case, no accents).
///
/// Matching runs on the decrypted UTF-8 bytes of every note in the vault, so it is built to
/// be cheap (``SearchMatcher``): a folded term is nearly always ASCII, and is first looked
/// for in the raw bytes, folding ASCII case byte by byte; only a text with non-ASCII bytes
/// that did not already match is folded. (UTF-8 never hides an ASCII byte inside a
/// multi-byte character, so byte folding cannot match across characters.)
public struct SearchQuery: Sendable {
    /// At most this many words and phrases, one bit each in a term mask.
    public static let maximumTerms = 32

    /// A folded word or phrase, ready for the byte search.
    struct Term: Sendable, Equatable {
        let bytes: [UInt8]
        /// Per byte of `bytes`: 0x20 for an ASCII letter (compared as `byte | 0x20`, which
        /// is the lowercase letter for either case and nothing else), 0 for any other byte.
        let caseBits: [UInt8]
        let isASCII: Bool

        init(folded: [UInt8]) {
            bytes = folded
            caseBits = folded.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? 0x20 : 0 }
            isASCII = folded.allSatisfy { $0 < 0x80 }
        }
    }

    let terms: [Term]
    /// Every word of the query in order, folded: a result that holds them as one phrase
    /// ranks first. Nil when the query is a single term (every result holds it).
    let phrase: Term?

    /// The mask with one bit for each term: what a matching note must cover.
    public var allTerms: UInt64 { (1 << UInt64(terms.count)) - 1 }

    /// Splits `text` into words and double-quoted phrases (an unclosed quote runs to the
    /// end). Refuses a query with nothing to look for, or more than ``maximumTerms``.
    public init(_ text: String) throws(JournalError) {
        var folder = TextFolding.Folder()
        var pieces: [[UInt8]] = []
        var words: [[UInt8]] = []
        var current: [UInt8] = []
        var inPhrase = false
        func endPiece() {
            let piece = Array(current.split(separator: UInt8(ascii: " ")).joined(separator: [UInt8(ascii: " ")]))
            if !piece.isEmpty && !pieces.contains(piece) { pieces.append(piece) }
            current.removeAll()
        }
        for scalar in text.unicodeScalars {
            if scalar == "\"" {
                endPiece()
                inPhrase.toggle()
            } else if scalar.properties.isWhitespace {
                if inPhrase { current.append(UInt8(ascii: " ")) } else { endPiece() }
            } else {
                folder.append(scalar, to: &current)
            }
        }
        endPiece()
        guard !pieces.isEmpty else { throw .emptyText(field: "query") }
        guard pieces.count <= Self.maximumTerms else { throw .tooManySearchTerms(limit: Self.maximumTerms) }
        for piece in pieces { words += piece.split(separator: UInt8(ascii: " ")).map(Array.init) }
        terms = pieces.map(Term.init(folded:))
        let whole = words.joined(separator: [UInt8(ascii: " ")])
        phrase = pieces.count > 1 ? Term(folded: Array(whole)) : nil
    }
}

/// One thread's matcher for a ``SearchQuery``: it keeps a buffer for folded text and the
/// folded form of every non-ASCII letter it has met, so it is not `Sendable`.
public final class SearchMatcher {
    public let query: SearchQuery
    private var folder = TextFolding.Folder()
    private var folded: [UInt8] = []

    public init(_ query: SearchQuery) {
        self.query = query
    }

    deinit {
        // The last folded note; the scan's openers wipe their plaintext the same way.
        folded.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Which of the `wanted` terms (a mask of ``SearchQuery/allTerms``) appear in `bytes` (UTF-8).
    public func terms(_ wanted: UInt64, foundIn bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var found: UInt64 = 0
        for (index, term) in query.terms.enumerated() where wanted & (1 << UInt64(index)) != 0 && term.isASCII {
            if Self.contains(term, in: bytes) { found |= 1 << UInt64(index) }
        }
        guard found != wanted, Self.hasNonASCII(bytes) else { return found }
        let touchesASCII = folder.fold(bytes, into: &folded)
        // An ASCII term not in the raw bytes is in the folded ones only if some letter folded to ASCII.
        let missing = wanted & ~found
        guard touchesASCII || query.terms.indices.contains(where: { missing & (1 << UInt64($0)) != 0 && !query.terms[$0].isASCII }) else {
            return found
        }
        folded.withUnsafeBufferPointer { folded in
            for (index, term) in query.terms.enumerated() where (wanted & ~found) & (1 << UInt64(index)) != 0 {
                if Self.contains(term, in: folded) { found |= 1 << UInt64(index) }
            }
        }
        return found
    }

    /// Which of the `wanted` terms appear in `text`.
    public func terms(_ wanted: UInt64, foundIn text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { terms(wanted, foundIn: $0) }
    }

    /// Whether `text` holds every term.
    public func matches(_ text: String) -> Bool {
        terms(query.allTerms, foundIn: text) == query.allTerms
    }

    /// Whether `text` holds the query's words as one phrase, in order; always true for a
    /// query of one term (the ranking then has nothing to tell apart).
    public func containsPhrase(_ text: String) -> Bool {
        guard let phrase = query.phrase else { return true }
        return Array(TextFolding.fold(text).utf8).withUnsafeBufferPointer { Self.contains(phrase, in: $0) }
    }

    /// Where the terms appear in `text`, as ranges of whole characters, in order and
    /// without overlaps: what a terminal shows highlighted.
    public func highlights(in text: String) -> [Range<String.Index>] {
        // Each folded byte, and the character it came from.
        var bytes: [UInt8] = []
        var owners: [String.Index] = []
        for index in text.indices {
            let before = bytes.count
            for scalar in text[index].unicodeScalars { folder.append(scalar, to: &bytes) }
            owners += repeatElement(index, count: bytes.count - before)
        }
        var ranges: [Range<String.Index>] = []
        for term in query.terms where !term.bytes.isEmpty && term.bytes.count <= bytes.count {
            for start in 0...(bytes.count - term.bytes.count)
            where bytes[start..<(start + term.bytes.count)].elementsEqual(term.bytes) {
                let last = owners[start + term.bytes.count - 1]
                ranges.append(owners[start]..<text.index(after: last))
            }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<String.Index>] = []
        for range in ranges {
            if let previous = merged.last, range.lowerBound <= previous.upperBound {
                merged[merged.count - 1] = previous.lowerBound..<max(previous.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// why eight bytes at a time, as one word: this runs over every note a search does not
    /// find in its raw bytes (a SIMD vector's `any` was a third of a whole search's time).
    private static func hasNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var start = 0
        while start + 8 <= bytes.count {
            if UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
            start += 8
        }
        while start < bytes.count {
            if base[start] >= 0x80 { return true }
            start += 1
        }
        return false
    }

    /// why sixteen bytes at a time: this runs over the whole text of every note in the vault,
    /// and most of it is skipped by looking for the term's first byte in a SIMD vector.
    static func contains(_ term: SearchQuery.Term, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        term.bytes.withUnsafeBufferPointer { needle in
            term.caseBits.withUnsafeBufferPointer { caseBits in
                contains(needle, caseBits: caseBits, in: haystack)
            }
        }
    }

    private static func contains(_ needle: UnsafeBufferPointer<UInt8>, caseBits: UnsafeBufferPointer<UInt8>,
                                 in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first, needle.count <= haystack.count, let base = haystack.baseAddress else { return needle.isEmpty }
        let firstBits = caseBits[0]
        func matches(at start: Int) -> Bool {
            var offset = 1
            while offset < needle.count {
                guard base[start + offset] | caseBits[offset] == needle[offset] else { return false }
                offset += 1
            }
            return true
        }
        let last = haystack.count - needle.count
        var start = 0
        let wantedFirst = SIMD16<UInt8>(repeating: first), firstCase = SIMD16<UInt8>(repeating: firstBits)
        while start + 15 <= last {
            let lanes = UnsafeRawPointer(base + start).loadUnaligned(as: SIMD16<UInt8>.self)
            let hits = (lanes | firstCase) .== wantedFirst
            if any(hits) {
                for lane in 0..<16 where hits[lane] && matches(at: start + lane) { return true }
            }
            start += 16
        }
        while start <= last {
            if base[start] | firstBits == first && matches(at: start) { return true }
            start += 1
        }
        return false
    }
}
