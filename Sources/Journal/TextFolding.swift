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
        /// A non-ASCII scalar folded, and whether that gave ASCII bytes or nothing (`é` to
        /// `e`, a dropped accent): only such a scalar can make an ASCII word match.
        private var folded: [UInt32: (bytes: [UInt8], touchesASCII: Bool)] = [:]

        public init() {}

        /// Appends `scalar` folded to `bytes`; returns whether it is a non-ASCII scalar that
        /// folded to ASCII bytes or to nothing.
        @discardableResult
        public mutating func append(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) -> Bool {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                bytes.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
                return false
            }
            if let known = folded[scalar.value] {
                bytes.append(contentsOf: known.bytes)
                return known.touchesASCII
            }
            let result: [UInt8]
            if scalar.properties.generalCategory == .nonspacingMark {
                result = []
            } else {
                result = Array(String(Character(scalar)).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).utf8)
            }
            let touchesASCII = result.isEmpty || result.contains { $0 < 0x80 }
            folded[scalar.value] = (result, touchesASCII)
            bytes.append(contentsOf: result)
            return touchesASCII
        }

        /// `bytes` (UTF-8) folded into `output`, which is emptied first; returns whether any
        /// non-ASCII scalar folded to ASCII bytes or to nothing (if not, an ASCII word found
        /// in `output` was already in `bytes`). A byte that is not UTF-8 becomes 0xFF, which
        /// no folded query contains.
        ///
        /// why ASCII bytes are copied here, not decoded: most of a note is ASCII even when it
        /// has an accent, and this runs over every such note a search does not find at once.
        @discardableResult
        public mutating func fold(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
            output.removeAll(keepingCapacity: true)
            var touchesASCII = false
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x80 {
                    output.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
                    index += 1
                    continue
                }
                var iterator = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
                var decoder = UTF8()
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    if append(scalar, to: &output) { touchesASCII = true }
                    index += UTF8.width(scalar)
                case .error, .emptyInput:
                    output.append(0xFF)
                    index += 1
                }
            }
            return touchesASCII
        }
    }
}
