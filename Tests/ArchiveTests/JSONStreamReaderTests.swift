import Foundation
import Testing
import Journal
@testable import Archive
import TestSupport

/// The streaming JSON reader: strict, line-numbered, bounded, and never quoting the text.
@Suite struct JSONStreamReaderTests {
    private func reader(_ text: String) throws -> (JSONStreamReader, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        try directory.write(text, to: "doc.json")
        return (try JSONStreamReader(path: directory.file("doc.json"), displayName: "doc.json"), directory)
    }

    private func readAll(_ text: String) throws -> JSONValue {
        let (reader, directory) = try reader(text)
        defer { directory.remove() }
        let value = try reader.readValue()
        try reader.finish()
        return value
    }

    private func failure(_ text: String) -> ArchiveError? {
        archiveError { _ = try readAll(text) }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try readAll(#"{"s":"a\"b\\c\/\n\t\u00e9\ud83d\udcda","n":-12.5e+2,"i":42,"t":true,"f":false,"z":null,"a":[1,[]],"o":{}}"#)
        #expect(value["s"] == .string("a\"b\\c/\n\té📚"))
        #expect(value["n"]?.doubleValue == -1250)
        #expect(value["i"]?.integerValue == 42)
        #expect(value["t"] == .bool(true) && value["f"] == .bool(false) && value["z"] == .null)
        #expect(value["a"] == .array([.number("1"), .array([])]))
        #expect(value["o"] == .object([:]))
    }

    @Test func walksContainersOneRecordAtATime() throws {
        let (reader, directory) = try reader("{\n  \"skip\" : {\"deep\": [1, 2]},\n  \"list\" : [\n    {\"a\": 1},\n    {\"a\": 2}\n  ]\n}\n")
        defer { directory.remove() }
        try reader.beginObject()
        #expect(try reader.nextKey() == "skip")
        try reader.skipValue()
        #expect(try reader.nextKey() == "list")
        try reader.beginArray()
        var lines: [Int] = []
        var values: [Int64] = []
        while try reader.nextElement() {
            lines.append(try reader.lineOfNextValue())
            values.append(try reader.readValue()["a"]?.integerValue ?? 0)
        }
        #expect(try reader.nextKey() == nil)
        try reader.finish()
        #expect(lines == [4, 5])
        #expect(values == [1, 2])
    }

    @Test func malformedInputNamesTheFileAndLine() {
        #expect(failure("{\n\"a\": 1,\n}") == .malformed(file: "doc.json", line: 3, reason: "expected a string key"))
        #expect(failure("{\"a\": 1 \"b\": 2}") == .malformed(file: "doc.json", line: 1, reason: "expected ',' or '}'"))
        #expect(failure("{\"a\": 1, \"a\": 2}") == .malformed(file: "doc.json", line: 1, reason: "a key appears twice in one object"))
        #expect(failure("[\n\"line\nbreak\"]") == .malformed(file: "doc.json", line: 2, reason: "a control character inside a string (it must be escaped)"))
        #expect(failure("{} {}") == .malformed(file: "doc.json", line: 1, reason: "unexpected data after the end of the document"))
        #expect(failure("[01]") == .malformed(file: "doc.json", line: 1, reason: "expected ',' or ']'"))
        #expect(failure("[\"\\x\"]") == .malformed(file: "doc.json", line: 1, reason: "an invalid escape in a string"))
        #expect(failure("[\"\\ud800\"]") == .malformed(file: "doc.json", line: 1, reason: "an unpaired surrogate in a \\u escape"))
        #expect(failure(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))
                == .malformed(file: "doc.json", line: 1, reason: "values nested too deeply"))
    }

    @Test func aTruncatedFileIsReportedAsSuch() {
        #expect(failure("{\n\"books\": [\n{\"id\": \"x") == .truncated(file: "doc.json", line: 3))
        #expect(failure("") == .truncated(file: "doc.json", line: 1))
        #expect(failure("[tru") == .truncated(file: "doc.json", line: 1))
    }

    @Test func invalidUTF8IsReportedWithItsLine() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(Array("[\n\"ok\",\n\"bad ".utf8) + [0xC3, 0x28] + Array("\"]".utf8)).write(to: URL(fileURLWithPath: directory.file("doc.json")))
        let error = archiveError {
            let reader = try JSONStreamReader(path: directory.file("doc.json"), displayName: "doc.json")
            _ = try reader.readValue()
        }
        #expect(error == .invalidUTF8(file: "doc.json", line: 3))
    }

    @Test func aByteOrderMarkIsAllowed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8)).write(to: URL(fileURLWithPath: directory.file("doc.json")))
        let reader = try JSONStreamReader(path: directory.file("doc.json"), displayName: "doc.json")
        #expect(try reader.readValue()["a"]?.integerValue == 1)
    }

    @Test func writtenStringsReadBackExactly() throws {
        for text in SampleJournal.tricky + ["\u{0}\u{1F}\u{7F}\u{80}\u{9F}\u{A0}\u{2027}\u{2028}\u{2029}\u{202A}\"\\/"] {
            var out: [UInt8] = []
            JSONString.append(text, to: &out)
            let json = String(decoding: out, as: UTF8.self)
            #expect(!json.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" })
            #expect(try readAll("[\(json)]") == .array([.string(text)]))
            #expect(try JSONSerialization.jsonObject(with: Data(("[" + json + "]").utf8)) as? [String] == [text])
        }
    }

    @Test func numbersAreWrittenShortAndExact() {
        #expect(JSONText.number(42) == "42")
        #expect(JSONText.number(0) == "0")
        #expect(JSONText.number(42.5) == "42.5")
        #expect(JSONText.number(63.25) == "63.25")
        #expect(Double(JSONText.number(0.1 + 0.2)) == 0.1 + 0.2)
    }
}
