import Foundation
import Testing
@testable import Journal

/// The one JSON string writer, against a plain scalar-by-scalar statement of its rules, on
/// texts that put every kind of character at every offset of its eight-byte fast path.
@Suite struct JSONStringTests {
    static func written(_ text: String) -> String {
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The rules as documented on ``JSONString/append(_:to:)``, one scalar at a time.
    static func expected(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0x0D: result += "\\r"
            case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    @Test func everyCharacterIsWrittenByTheRulesAtAnyOffset() {
        let alphabet: [String] = ["a", "Z", " ", "~", "\"", "\\", "\n", "\t", "\r", "\u{0}", "\u{1F}", "\u{7F}",
                                  "\u{80}", "\u{85}", "\u{9F}", "\u{A0}", "é", "\u{2028}", "\u{2029}", "\u{2027}", "語", "📚"]
        var random = SplitMix64(seed: 2026)
        for _ in 0..<2_000 {
            let length = Int(random.next() % 40)
            let text = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            #expect(Self.written(text) == Self.expected(text), "\(Array(text.unicodeScalars.map(\.value)))")
        }
    }

    @Test func longPlainRunsAndAnEscapeAtTheirEndsAreWrittenWhole() {
        for length in 0..<20 {
            for special in ["\"", "\u{7F}", "é", "\u{1}"] {
                let text = String(repeating: "p", count: length) + special + String(repeating: "q", count: 19 - length)
                #expect(Self.written(text) == Self.expected(text))
            }
        }
    }

    /// A book's authors are written as a JSON array of such strings, and `JSONDecoder` (what
    /// reads them back) gives back each name as it was, escapes and all.
    @Test func anArrayOfStringsReadsBackAsItWasWritten() throws {
        let authors = ["Herbert, Frank", "Tolstoï \"Leo\"", "a/b\\c", "tab\there", "\u{2028}", ""]
        let json = JSONString.array(authors)
        #expect(json.hasPrefix("[\"Herbert, Frank\",") && json.hasSuffix("\"\"]"))
        #expect(try JSONDecoder().decode([String].self, from: Data(json.utf8)) == authors)
        #expect(JSONString.array([]) == "[]")
    }
}
