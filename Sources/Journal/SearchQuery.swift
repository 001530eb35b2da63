/// What `search` looks for: text, ignoring case, inside a note's body, locator or book title.
///
/// Matching runs on the decrypted UTF-8 bytes of every note in the vault, so it is built to
/// be cheap: an ASCII query (the common case) folds ASCII letters byte by byte and never
/// makes a `String`; any other query compares lowercased text. (UTF-8 never hides an ASCII
/// byte inside a multi-byte character, so byte folding cannot match across characters.)
public struct SearchQuery: Sendable {
    private let folded: [UInt8]
    private let loweredText: String
    private let isASCII: Bool

    /// Refuses an empty or blank query.
    public init(_ text: String) throws(JournalError) {
        guard text.contains(where: { !$0.isWhitespace }) else { throw .emptyText(field: "query") }
        loweredText = text.lowercased()
        folded = Array(loweredText.utf8)
        isASCII = folded.allSatisfy { $0 < 0x80 }
    }

    /// Whether `bytes` (UTF-8) contain the query, ignoring case.
    public func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isASCII else {
            return String(decoding: bytes, as: UTF8.self).lowercased().contains(loweredText)
        }
        return folded.withUnsafeBufferPointer { needle in
            guard needle.count <= bytes.count, let first = needle.first else { return needle.isEmpty }
            var start = 0
            let last = bytes.count - needle.count
            while start <= last {
                if Self.fold(bytes[start]) == first {
                    var offset = 1
                    while offset < needle.count && Self.fold(bytes[start + offset]) == needle[offset] { offset += 1 }
                    if offset == needle.count { return true }
                }
                start += 1
            }
            return false
        }
    }

    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }
}
