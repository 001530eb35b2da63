import Foundation
import Testing
@testable import Importers

/// `import` tells formats apart by content, not by name.
@Suite struct ImportFormatTests {
    @Test func everyKindleFixtureIsKindle() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("kindle").path)
            .filter { $0.hasSuffix(".txt") }
        #expect(names.count == 11)
        for name in names {
            #expect(ImportFormat.detect(prefix: Array(try Fixtures.kindle(name).prefix(64 << 10))) == .kindle, "\(name)")
        }
    }

    @Test func everyKOReaderFixtureIsKOReader() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.root.appendingPathComponent("koreader").path)
            .filter { $0.contains(".lua") }
        #expect(names.count == 7)
        for name in names {
            #expect(ImportFormat.detect(prefix: Array(try Fixtures.koreader(name).prefix(64 << 10))) == .koreader, "\(name)")
        }
    }

    @Test func otherContentIsToldApart() {
        let journal = "{\n  \"archive\" : { \"format\" : \"bmvault-archive\", \"formatVersion\" : 2 },\n  \"books\" : ["
        #expect(ImportFormat.detect(prefix: Array(journal.utf8)) == .bmvault)
        #expect(ImportFormat.detect(prefix: Array("-- a sidecar\nreturn {\n  [\"doc_props\"] = {}\n}".utf8)) == .koreader)
        for text in ["", "hello\nworld\n", "Book Id,Title,Author\n1,Dune,Frank Herbert\n", "return {\n  x = 1\n}",
                     "- a list\n- of things\n", "{\"entries\": []}", "Title\n- not a clipping without a separator\n"] {
            #expect(ImportFormat.detect(prefix: Array(text.utf8)) == nil, "\(text)")
        }
    }
}
