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

    @Test func theSchemaFileIsTheOneArchivesCarry() throws {
        let path = Self.root.appendingPathComponent("Schemas/archive/v1.schema.json").path
        #expect(try String(contentsOfFile: path, encoding: .utf8) == ArchiveSchema.v1)
        #expect(try JSONSerialization.jsonObject(with: Data(ArchiveSchema.v1.utf8)) is [String: Any])
    }
}
