import Foundation

/// The real files in ../shared/fixtures/importers (never edited), found from this file's path.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/importers")

    static func kindle(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("kindle/" + name)))
    }
}

extension Fixtures {
    static func koreader(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("koreader/" + name)))
    }
}

extension Fixtures {
    static func goodreads() throws -> [UInt8] {
        Array(try Data(contentsOf: root.appendingPathComponent("goodreads/aaronj1335__goodreads_library_export.csv")))
    }
}
