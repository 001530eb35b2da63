import Foundation

/// Text as search and BOOK arguments compare it: without case and without diacritics, so
/// that `miserables` finds *Les Misérables* and `zurich` finds *Zürich*.
///
/// Folding is one scalar at a time, so that a query and a text are folded exactly alike
/// whatever their normalization: ASCII letters are lowercased, a nonspacing mark (the
/// accent of a decomposed `e` + U+0301) is dropped, and any other scalar is folded by
/// Foundation (`é` to `e`, `ß` to `ss`, `İ` to `i`). Scalars Foundation keeps (`ø`, `æ`,
/// CJK, emoji) stay as they are.
public enum TextFolding {
    /// `text` folded.
    public static func fold(_ text: String) -> String {
        var folder = Folder()
        var bytes: [UInt8] = []
        for scalar in text.unicodeScalars { folder.append(scalar, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Folds scalars into UTF-8 bytes, remembering every non-ASCII scalar it has folded:
    /// the same few accented letters come back in every note. One per thread.
    public struct Folder {
        private var folded: [UInt32: [UInt8]] = [:]

        public init() {}

        /// Appends `scalar` folded to `bytes`.
        public mutating func append(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                bytes.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
                return
            }
            if let known = folded[scalar.value] {
                bytes.append(contentsOf: known)
                return
            }
            let result: [UInt8]
            if scalar.properties.generalCategory == .nonspacingMark {
                result = []
            } else {
                result = Array(String(Character(scalar)).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
            }
            folded[scalar.value] = result
            bytes.append(contentsOf: result)
        }

        /// `bytes` (UTF-8) folded into `output`, which is emptied first. A byte that is not
        /// UTF-8 becomes 0xFF, which no folded query contains.
        public mutating func fold(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
            output.removeAll(keepingCapacity: true)
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): append(scalar, to: &output)
                case .emptyInput: return
                case .error: output.append(0xFF)
                }
            }
        }
    }
}
