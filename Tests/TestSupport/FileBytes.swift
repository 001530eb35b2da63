import Foundation

/// A file a test expected to read and could not.
public struct UnreadableFile: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot read \(path)" }
}

public func fileBytes(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw UnreadableFile(path: path) }
    return Array(data)
}

public func writeFile(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// A database file's bytes, but for the two header fields in which SQLite counts the
/// transactions written with a rollback journal (the file change counter at offset 24 and
/// the version-valid-for number at 92). A failed import that wrote with a rollback journal
/// leaves every other byte as it was once SQLite has rolled it back.
public func databaseBytesIgnoringChangeCounter(_ path: String) throws -> [UInt8] {
    var bytes = try fileBytes(path)
    for offset in [24, 92] where bytes.count >= offset + 4 {
        bytes.replaceSubrange(offset..<(offset + 4), with: [0, 0, 0, 0])
    }
    return bytes
}
