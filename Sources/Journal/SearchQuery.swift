/// What `search` looks for: text, ignoring case, inside a note's body, locator or book title.
///
/// Matching runs on the decrypted UTF-8 bytes of every note in the vault, so it is built to
/// be cheap: an ASCII query (the common case) folds ASCII letters byte by byte and never
/// makes a `String`; any other query compares lowercased text. (UTF-8 never hides an ASCII
/// byte inside a multi-byte character, so byte folding cannot match across characters.)
public struct SearchQuery: Sendable {
    private let folded: [UInt8]
    /// Per byte of `folded`: 0x20 for a letter (compared as `byte | 0x20`, which is the
    /// lowercase letter for either case and nothing else), 0 for any other byte.
    private let caseBits: [UInt8]
    private let loweredText: String
    private let isASCII: Bool

    /// Refuses an empty or blank query.
    public init(_ text: String) throws(JournalError) {
        guard text.contains(where: { !$0.isWhitespace }) else { throw .emptyText(field: "query") }
        loweredText = text.lowercased()
        folded = Array(loweredText.utf8)
        caseBits = folded.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? 0x20 : 0 }
        isASCII = folded.allSatisfy { $0 < 0x80 }
    }

    /// Whether `bytes` (UTF-8) contain the query, ignoring case.
    public func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isASCII else {
            return String(decoding: bytes, as: UTF8.self).lowercased().contains(loweredText)
        }
        return folded.withUnsafeBufferPointer { needle in
            caseBits.withUnsafeBufferPointer { caseBits in
                Self.contains(needle, caseBits: caseBits, in: bytes)
            }
        }
    }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    /// why sixteen bytes at a time: this runs over the whole text of every note in the vault,
    /// and most of it is skipped by looking for the query's first byte in a SIMD vector.
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
