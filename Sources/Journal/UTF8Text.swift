#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// `bytes` as text, or nil when they are not UTF-8: what `String(validating:as:)` gives,
    /// without its generic path. `String(decoding:as:)` is specialized and fast, and
    /// replaces what is not UTF-8; a replacement makes the text differ from the bytes.
    /// Every field read back from a vault or an archive goes through this.
    public init?(utf8Bytes bytes: [UInt8]) {
        guard let text = bytes.withUnsafeBufferPointer({ String(utf8Bytes: $0) }) else { return nil }
        self = text
    }

    /// `bytes` as text, or nil when they are not UTF-8 (as ``init(utf8Bytes:)-([UInt8])``),
    /// for text inside a larger buffer.
    public init?(utf8Bytes bytes: UnsafeBufferPointer<UInt8>) {
        var text = String(decoding: bytes, as: UTF8.self)
        let unchanged = text.withUTF8 { utf8 in
            utf8.count == bytes.count && (bytes.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        guard unchanged else { return nil }
        self = text
    }
}
