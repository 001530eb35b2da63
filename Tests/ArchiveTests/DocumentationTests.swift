import Foundation
import Testing
@testable import Archive

/// The archive's README and schema have one source each, in this module: the copies in
/// Docs/ and Schemas/ must be the same text. `BMVAULT_UPDATE_DOCS=1` rewrites them.
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let exportFormatPreamble = """
        <!-- Generated from Sources/Archive/ArchiveReadme.swift, the text every archive's README.md
             holds: edit it there (Tests/ArchiveTests/DocumentationTests.swift keeps the two equal). -->

        """

    @Test func exportFormatDocIsTheArchiveReadme() throws {
        let path = Self.root.appendingPathComponent("Docs/EXPORT-FORMAT.md").path
        let expected = Self.exportFormatPreamble + ArchiveReadme.text + "\n"
        if ProcessInfo.processInfo.environment["BMVAULT_UPDATE_DOCS"] == "1" { try expected.write(toFile: path, atomically: true, encoding: .utf8) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
    }

    @Test(arguments: [(1, ArchiveSchema.v1), (2, ArchiveSchema.v2)])
    func theSchemaFilesAreTheOnesArchivesCarry(version: Int, schema: String) throws {
        let path = Self.root.appendingPathComponent("Schemas/archive/v\(version).schema.json").path
        if version == ArchiveFormat.currentVersion, ProcessInfo.processInfo.environment["BMVAULT_UPDATE_DOCS"] == "1" {
            try schema.write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == schema)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any])
        let archive = (object["properties"] as? [String: Any])?["archive"] as? [String: Any]
        let formatVersion = (archive?["properties"] as? [String: Any])?["formatVersion"] as? [String: Any]
        #expect(formatVersion?["const"] as? Int == version)
        #expect(ArchiveSchema.current == ArchiveSchema.v2 && ArchiveFormat.currentVersion == 2)
    }
}
