#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// `bytes` as text, or nil when they are not UTF-8: what `String(validating:as:)` gives,
    /// without its generic path. `String(decoding:as:)` is specialized and fast, and
    /// replaces what is not UTF-8; a replacement makes the text differ from the bytes.
    /// Every field read back from a vault or an archive goes through this.
    public init?(utf8Bytes bytes: [UInt8]) {
        var text = String(decoding: bytes, as: UTF8.self)
        let unchanged = text.withUTF8 { utf8 in
            bytes.withUnsafeBufferPointer { original in
                utf8.count == original.count && (original.isEmpty || memcmp(utf8.baseAddress!, original.baseAddress!, original.count) == 0)
            }
        }
        guard unchanged else { return nil }
        self = text
    }
}
