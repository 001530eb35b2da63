import Foundation
import Testing
import SyncWire

/// The design's load-bearing structure, checked over the source tree and the manifest: the
/// direction of every import, one owner for each C library, SQL written only by the Store,
/// a named policy per kind of data that the one merge uses, and a sync engine that holds
/// no key and sees the journal only through a protocol. Each gate fails the day someone
/// removes what it guards; the behaviour itself is proved elsewhere (see each comment).
@Suite struct StructuralGateTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // SyncTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // the package

    static func source(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Every Swift file under `directory`, as (path relative to the package, text).
    static func swiftFiles(under directory: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(directory)
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [(String, String)] = []
        for case let relative as String in enumerator where relative.hasSuffix(".swift") {
            files.append((directory + "/" + relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Each source target of Package.swift and the targets it depends on.
    static func manifestDependencies() throws -> [String: Set<String>] {
        let manifest = try source("Package.swift")
        let target = try Regex(#"\.(?:target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        var dependencies: [String: Set<String>] = [:]
        for match in manifest.matches(of: target) {
            guard let name = match.output[1].substring else { continue }
            let listed = match.output[2].substring.map { list in
                Set(list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty })
            }
            dependencies[String(name)] = listed ?? []
        }
        return dependencies
    }

    /// Each module's imports of the package's own modules, with the access level written.
    static func importsOfOurModules(_ ours: Set<String>) throws -> [(module: String, path: String, imported: String, line: String)] {
        let statement = try Regex(#"^\s*(?:@testable\s+)?(?:public\s+|internal\s+|package\s+|private\s+|fileprivate\s+)?import\s+(\w+)"#)
        var found: [(String, String, String, String)] = []
        for module in ours {
            for file in try swiftFiles(under: "Sources/" + module) {
                for line in file.text.components(separatedBy: "\n") {
                    guard let match = line.firstMatch(of: statement), let imported = match.output[1].substring,
                          ours.contains(String(imported)) else { continue }
                    found.append((module, file.path, String(imported), line))
                }
            }
        }
        return found
    }

    /// The import graph is Package.swift's: no file imports a module its target does not
    /// depend on, and the layers point one way (the model, logging and crypto depend on
    /// nothing of ours above them; sync never sees the Store; the CLI sees only the facade).
    @Test func everyImportFollowsTheDependenciesOfItsTarget() throws {
        let manifest = try Self.manifestDependencies()
        let ours = Set(manifest.keys)
        #expect(ours.isSuperset(of: ["Journal", "Telemetry", "VaultCrypto", "SyncWire", "Sync", "VaultStore", "Archive", "VaultKit", "BMCLI"]))
        for use in try Self.importsOfOurModules(ours) {
            #expect(manifest[use.module]?.contains(use.imported) == true,
                    "\(use.path) imports \(use.imported), which \(use.module) does not depend on in Package.swift")
        }
        // The direction of the layers, whatever Package.swift says.
        let forbidden: [String: Set<String>] = [
            "Journal": ours.subtracting(["Journal"]),
            "Telemetry": ours.subtracting(["Telemetry", "FileIO", "CFileIO"]),
            "Sync": ["VaultStore", "VaultKit", "BMCLI", "Archive", "Keystore", "SQLiteDatabase", "CSQLite", "CSodium"],
            // Storage below sync: the wire format only, never the engine, the remotes or what they use.
            "VaultStore": ["VaultKit", "BMCLI", "Archive", "Keystore", "Sync", "HTTP", "XML", "CCurl", "CXML"],
            "SyncWire": ["Sync", "VaultStore", "VaultKit", "BMCLI", "HTTP", "XML", "SQLiteDatabase", "CSQLite"],
            // The one applier: above storage, beside the engine, below the facade.
            "Applier": ["Sync", "VaultKit", "BMCLI", "Archive", "Importers", "Keystore", "HTTP", "XML", "SQLiteDatabase", "CSQLite", "CSodium"],
            "Archive": ["VaultStore", "Sync", "VaultKit", "BMCLI", "Keystore", "SQLiteDatabase"],
            "BMCLI": ["VaultStore", "Sync", "Archive", "Keystore", "VaultCrypto", "SQLiteDatabase", "CSQLite", "CSodium"],
            // The SQLite wrapper: above the file-system seam only, knowing nothing of a vault.
            "SQLiteDatabase": ours.subtracting(["SQLiteDatabase", "CSQLite", "FileIO", "CFileIO"]),
        ]
        for (module, banned) in forbidden {
            let illegal = manifest[module, default: []].intersection(banned)
            #expect(illegal.isEmpty, "\(module) must not depend on \(illegal.sorted())")
        }
    }

    /// Each C library is wrapped once: one module imports it, `internal`, so no C type
    /// reaches a public signature.
    @Test func eachCLibraryHasOneImporterThatImportsItInternal() throws {
        let manifest = try Self.manifestDependencies()
        let cModules = manifest.keys.filter { $0.hasPrefix("C") && (manifest[$0]?.isEmpty ?? false) }
        #expect(Set(cModules).isSuperset(of: ["CSodium", "CSQLite"]))
        let uses = try Self.importsOfOurModules(Set(manifest.keys))
        for cModule in cModules {
            let importers = Set(uses.filter { $0.imported == cModule }.map(\.module))
            #expect(importers.count == 1, "\(cModule) is imported by \(importers.sorted())")
            for use in uses where use.imported == cModule {
                #expect(use.line.trimmingCharacters(in: .whitespaces).hasPrefix("internal import"), "\(use.path): \(use.line)")
            }
        }
    }

    /// SQLite reaches the rest through one wrapper (`SQLiteDatabase`, the only importer of
    /// CSQLite), and two modules use it: the Store (the vault's file) and the importers
    /// (another program's database, opened immutable: read, never written). Only the
    /// Store's files open it for writing.
    @Test func onlyTheStoreAndTheImportersUseTheSQLiteWrapper() throws {
        let manifest = try Self.manifestDependencies()
        let users = Set(manifest.filter { $0.value.contains("SQLiteDatabase") }.map(\.key))
        #expect(users == ["VaultStore", "Importers"], "\(users.sorted())")
        let uses = try Self.importsOfOurModules(Set(manifest.keys)).filter { $0.imported == "SQLiteDatabase" }
        #expect(Set(uses.map(\.module)) == ["VaultStore", "Importers"], "\(uses.map(\.path))")
        let writable = try Regex(#"(^|[^A-Za-z])Database\(path:"#)
        for file in try Self.swiftFiles(under: "Sources/Importers") {
            #expect(!file.text.contains(writable), "\(file.path) opens a database other than immutable")
        }
    }

    /// mutations-bypass-store: no SQL that writes outside the Store. (That every write of
    /// the Store puts its outbox operation in the same transaction is proved by
    /// `StoreWriteTransactionTests`, which drives every public write.)
    @Test func noWritingSQLOutsideTheStore() throws {
        let writing = try Regex(#"\b(INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO)\b"#)
        var checked = 0
        for file in try Self.swiftFiles(under: "Sources") where !file.path.hasPrefix("Sources/VaultStore/") {
            checked += 1
            for (number, line) in file.text.components(separatedBy: "\n").enumerated() where line.contains(writing) {
                Issue.record("\(file.path):\(number + 1) writes SQL outside the Store: \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 20)
    }

    /// conflict-unresolved: one named policy per kind of data, and the one merge (which
    /// sync, archive import and every importer go through) decides with each. How each
    /// decides is proved by `JournalMergeTests` and the convergence tests.
    @Test func everyKindOfDataHasANamedPolicyThatTheOneMergeUses() throws {
        let conformance = try Regex(#"struct\s+(\w+)\s*:\s*ConflictPolicy\b"#)
        let declared = try Self.swiftFiles(under: "Sources/Journal/Conflicts")
            .flatMap { $0.text.matches(of: conformance).compactMap { $0.output[1].substring.map(String.init) } }
        #expect(Set(declared) == ["NoteAndQuoteTextPolicy", "BookMetadataPolicy", "ProgressPolicy", "SessionEditPolicy",
                                  "ReadingLogPolicy", "RatingPolicy", "EditionPolicy", "TagPolicy",
                                  "BookFileAttachmentPolicy", "FileLocatorPolicy",
                                  "ImportedPositionPolicy", "ImportedRatingPolicy", "ImportedStatusPolicy", "ReimportedTextPolicy"])
        let merge = try Self.swiftFiles(under: "Sources/Journal/Merge").map(\.text).joined()
        for policy in declared {
            #expect(merge.contains("\(policy)()"), "the merge does not decide with \(policy)")
        }
        // The rules that find which record here an imported one is, too.
        let identity = ["BookIdentityPolicy", "ImportKeyPolicy", "ImportedSessionPolicy"]
        for policy in identity {
            #expect(merge.contains("\(policy)()"), "the merge does not decide with \(policy)")
        }
        // Nothing outside the Journal decides with a policy itself: there is one merge.
        for file in try Self.swiftFiles(under: "Sources") where !file.path.hasPrefix("Sources/Journal/") {
            for policy in declared + identity where file.text.contains("\(policy)()") {
                Issue.record("\(file.path) decides with \(policy) outside the one merge")
            }
        }
    }

    /// One applier: only `Applier` hands records to the one merge, for every incoming path
    /// (a pulled operation, an archive's record, another program's); neither the storage
    /// below it nor the engine beside it calls `JournalMerge`. (What each path does is
    /// proved by the convergence, archive and importer tests.)
    @Test func onlyTheApplierCallsTheOneMerge() throws {
        var applierCalls = false
        for file in try Self.swiftFiles(under: "Sources") where !file.path.hasPrefix("Sources/Journal/") {
            // SyncWire names the vault's merge (its conflict copies' derived ids): a definition, not a call.
            let text = file.path == "Sources/SyncWire/DerivedIDs.swift"
                ? file.text.replacingOccurrences(of: "static let vault = JournalMerge(", with: "") : file.text
            let calls = text.contains("JournalMerge.vault") || text.contains("JournalMerge(")
            if file.path.hasPrefix("Sources/Applier/") {
                applierCalls = applierCalls || calls
            } else {
                #expect(!calls, "\(file.path) calls JournalMerge outside the applier")
            }
        }
        #expect(applierCalls)
    }

    /// Storage knows no other program: which book or note a Kindle's clipping is, is the
    /// applier's and the merge's business. (Shipped migrations are frozen as they were.)
    @Test func storageNamesNoOtherProgram() throws {
        let programs = ["kindle", "koreader", "kobo", "goodreads", "readwise", "calibre", "jrnl"]
        for file in try Self.swiftFiles(under: "Sources/VaultStore") where !file.path.contains("/Migrations/Migration00") {
            let text = file.text.lowercased()
            for program in programs where text.contains(program) {
                Issue.record("\(file.path) names \(program)")
            }
        }
    }

    /// The sync engine holds no key and sees the journal through a protocol: it is generic
    /// over `SyncJournal`, and sealing reaches it as an `OperationCipher` value. (Its
    /// orchestration, reachability first, backoff, failed operations kept and retried, is
    /// proved by `HostileNetworkTests`; a batch applied in one transaction by
    /// `aPulledBatchIsInvisibleToAnotherReaderUntilItCommits`.)
    @Test func theEngineHoldsNoKeyAndSeesTheJournalThroughAProtocol() throws {
        let engine = try Self.source("Sources/Sync/SyncEngine.swift")
        #expect(engine.contains("SyncEngine<Journal: SyncJournal>"))
        for file in try Self.swiftFiles(under: "Sources/Sync") {
            #expect(!file.text.contains("VaultKey"), "\(file.path) handles the vault key")
        }
    }
}
