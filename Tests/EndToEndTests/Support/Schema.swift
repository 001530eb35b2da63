import Foundation

/// The schema versions this build knows, read from the frozen files in Schemas/sqlite, so
/// tests do not hard-code "the newest version is 2" and break with every new migration.
enum Schema {
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Schemas/sqlite")
    }

    /// The migration ids, in order: `["0001_initial", "0002_...", ...]`.
    static let migrationIDs: [String] = {
        var ids: [String] = []
        var version = 1
        while let text = try? String(contentsOf: directory.appendingPathComponent("v\(version).sql"), encoding: .utf8),
              let match = text.firstMatch(of: /generated from migration ([0-9a-z_]+);/) {
            ids.append(String(match.1))
            version += 1
        }
        return ids
    }()

    static var latest: Int { migrationIDs.count }

    /// Rewrites the vault database at `path` as schema v1 with the same data.
    static func downgradeToVersionOne(_ path: String, environment: [String: String]) throws {
        let script = directory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Fixtures/downgrade-to-v1").path
        let result = try Binary.run(script, [path], environment: environment)
        guard result.status == 0 else { throw DowngradeFailed(output: result.description) }
    }

    struct DowngradeFailed: Error {
        let output: String
    }
}
