import Foundation

/// A fresh directory under the system temporary directory, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// `label` names the suite in the directory's name, so a leftover says whose it is.
    public init(_ label: String = "tests") throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bmvault-\(label)-\(UUID().uuidString)", isDirectory: true).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public var databasePath: String { path + "/vault.db" }

    public func file(_ name: String) -> String { path + "/" + name }

    /// Every entry of the directory (a database, its -wal and -shm, ...), as paths, by name.
    public func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
    }

    public func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
