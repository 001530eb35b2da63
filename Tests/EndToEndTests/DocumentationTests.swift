import Foundation
import Testing

/// Docs that cannot drift silently (issue 39): a document that says which bmvault it
/// describes names the one `bmvault --version` prints, and every source file a document
/// names exists.
///
/// A document says which bmvault it describes in its opening (the text before its first
/// `##` heading), in a `Status (bmvault X.Y.Z ...)` line, and where it quotes what
/// `--version` prints. Every other mention of a version is history (a migration's release, a
/// fixture's maker, "since bmvault 0.16") and is left alone.
@Suite struct DocumentationTests {
    /// README.md and every document in Docs/, by path relative to the repository.
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("Docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    }()

    static func text(of document: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent(document), encoding: .utf8)
    }

    @Test func thereAreDocumentsToCheck() {
        #expect(Self.documents.count >= 10, "\(Self.documents)")
    }

    @Test(arguments: documents)
    func aDocumentDescribesTheVersionThatIsBuilt(document: String) throws {
        let version = String(try Binary.run(Binary.path, ["--version"], environment: [:]).line.dropFirst("bmvault ".count))
        try #require(version.split(separator: ".").count == 3, "bmvault --version printed \(version)")
        for claim in try Self.versionClaims(in: Self.text(of: document)) {
            #expect(claim.version == version, "\(document) line \(claim.line) describes bmvault \(claim.version); this is \(version)")
        }
    }

    @Test(arguments: documents)
    func everySourceFileADocumentNamesExists(document: String) throws {
        let files = Self.repositoryFiles()
        try #require(files.contains("Package.swift"), "the repository was not found at \(Repository.root.path)")
        for (line, path) in try Self.namedFiles(in: Self.text(of: document)) {
            let found = path.contains("/") ? files.contains { $0 == path || $0.hasSuffix("/" + path) }
                                           : files.contains { $0.hasSuffix("/" + path) || $0 == path }
            #expect(found, "\(document) line \(line) names \(path), which does not exist")
        }
    }

    /// The rules can fail: a stale opening and a file that is gone are both found.
    @Test func theRulesFindAStaleClaimAndAMissingFile() throws {
        let stale = "# Doc\n\nThis is the reference for bmvault 0.1.0.\n\n## Later\n\nSince bmvault 0.2.0 it works.\nStatus (bmvault 0.3.0): done.\n"
        #expect(try Self.versionClaims(in: stale).map(\.version) == ["0.1.0", "0.3.0"])
        let named = try Self.namedFiles(in: "See `Sources/VaultStore/Gone.swift`, `Store.swift` and Schemas/sqlite/vN.sql.")
        #expect(named.map(\.path) == ["Sources/VaultStore/Gone.swift", "Store.swift"])
        #expect(!(Self.repositoryFiles()).contains { $0.hasSuffix("/Gone.swift") })
    }

    /// Three-part versions a document claims to describe, with their line numbers.
    static func versionClaims(in text: String) throws -> [(line: Int, version: String)] {
        let version = try Regex(#"bmvault (\d+\.\d+\.\d+)"#)
        var claims: [(Int, String)] = []
        var inOpening = true
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("## ") { inOpening = false }
            let isClaim = inOpening || line.hasPrefix("Status (") || line.contains("print `bmvault ")
            guard isClaim else { continue }
            for match in line.matches(of: version) {
                if let found = match.output[1].substring { claims.append((index + 1, String(found))) }
            }
        }
        return claims
    }

    /// Source files a document names: paths under Sources/, Tests/, Scripts/ and Schemas/,
    /// and `*.swift` names. Templates (`MigrationNNNNName.swift`, `vN.sql`) are not files.
    static func namedFiles(in text: String) throws -> [(line: Int, path: String)] {
        let path = try Regex(#"(?:(?:Sources|Tests|Scripts|Schemas)/[A-Za-z0-9_+./-]*[A-Za-z0-9_]|[A-Za-z0-9_+/.-]+\.swift)"#)
        var named: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for match in line.matches(of: path) {
                let name = String(line[match.range])
                guard !name.contains("NNNN"), !name.hasSuffix("/vN.sql"), !name.hasSuffix("/vN"), !name.hasSuffix("/v") else { continue }
                named.append((index + 1, name))
            }
        }
        return named
    }

    /// Every file in the repository but the build's and git's, relative to its root.
    static func repositoryFiles() -> [String] { files }

    private static let files: [String] = {
        let root = Repository.root
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [String] = []
        for case let url as URL in enumerator {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if relative == ".build" || relative == ".git" {
                enumerator.skipDescendants()
            } else {
                files.append(relative)
            }
        }
        return files
    }()
}
