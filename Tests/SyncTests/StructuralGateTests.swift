import Foundation
import Testing

/// Seed 000's five failures as structural gates over the source tree: a gate proves the
/// mechanism is present (not that it is right; the behaviour tests do that), and fails the
/// day someone removes it.
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

    /// The body of the function whose declaration contains `signature`: from there to the
    /// next line that closes at the declaration's indentation.
    static func body(of signature: String, in text: String) -> String? {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.contains(signature) }) else { return nil }
        let indent = lines[start].prefix { $0 == " " }
        var end = start + 1
        while end < lines.count, lines[end] != indent + "}" { end += 1 }
        return lines[start...min(end, lines.count - 1)].joined(separator: "\n")
    }

    // cold-start-stale: reads state their freshness.
    @Test func readsStateTheirFreshness() throws {
        let context = try Self.source("Sources/BMCLI/Support/CommandContext.swift")
        #expect(context.contains("func openVaultForReading(fresh: Bool)"))
        let read = try Self.source("Sources/BMCLI/Commands/ReadCommands.swift")
        for command in ["list", "search", "show"] {
            let body = try #require(Self.body(of: "static func \(command)(_ context: CommandContext)", in: read), "\(command)")
            #expect(body.contains("SharedOptions.fresh"), "\(command) takes --fresh")
            #expect(body.contains("openVaultForReading(fresh: invocation.flag(\"fresh\"))"), "\(command) says which read it wants")
            #expect(!body.contains("context.openVault()"), "\(command) reads only through the freshness-stating path")
        }
        let shared = try Self.source("Sources/BMCLI/Commands/SharedOptions.swift")
        #expect(shared.contains("static let fresh = OptionSpec(name: \"fresh\""))
    }

    // mutations-bypass-store: no SQL that writes outside the Store.
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
        // And SQLite itself is imported only by the Store.
        for file in try Self.swiftFiles(under: "Sources") where file.text.contains("import CSQLite") {
            #expect(file.path.hasPrefix("Sources/VaultStore/SQLite/"), "\(file.path) imports SQLite")
        }
        let package = try Self.source("Package.swift")
        let sqliteUsers = package.components(separatedBy: "\n").filter { $0.contains("\"CSQLite\"") && $0.contains(".target(") }
        #expect(sqliteUsers.count == 1 && sqliteUsers[0].contains("name: \"VaultStore\""), "\(sqliteUsers)")
    }

    // conflict-unresolved: a named policy per mutable kind, and the pull uses each.
    @Test func everyMutableKindHasANamedConflictPolicyThatThePullUses() throws {
        let policies = ["NoteAndQuoteTextPolicy": "notes and quotes", "BookMetadataPolicy": "book metadata",
                        "ProgressPolicy": "progress", "SessionUnionPolicy": "sessions"]
        let declared = try Self.swiftFiles(under: "Sources/Journal/Conflicts").map(\.text).joined()
        #expect(declared.contains("public protocol ConflictPolicy"))
        for (policy, kind) in policies {
            #expect(declared.contains("public struct \(policy): ConflictPolicy"), "\(kind): \(policy) is declared")
        }
        let pull = try Self.source("Sources/VaultStore/Sync/Store+Pull.swift")
        for (policy, kind) in policies {
            #expect(pull.contains("\(policy)().resolve("), "\(kind): Store+Pull applies \(policy)")
        }
        // Every entity the outbox knows has an apply path.
        for entity in ["applyBook(", "applySession(", "applyAnnotation("] {
            #expect(pull.contains(entity))
        }
    }

    // sync-unorchestrated: reachability, failed-operation enumeration, backoff.
    @Test func theWorkerChecksReachabilityEnumeratesFailuresAndBacksOff() throws {
        let engine = try Self.source("Sources/Sync/SyncEngine.swift")
        let run = try #require(Self.body(of: "public func run(allowMassDelete: Bool", in: engine))
        let reach = try #require(run.range(of: "checkReachable()"))
        let push = try #require(run.range(of: "try push(to:"))
        #expect(reach.lowerBound < push.lowerBound, "reachability is checked before pushing")
        #expect(run.contains("for remote in reachable"), "only reachable remotes are drained")
        let pushBody = try #require(Self.body(of: "private func push(to remote: any Remote", in: engine))
        #expect(pushBody.contains("recordFailure(of:"), "every failed upload is recorded")
        let recordBody = try #require(Self.body(of: "private func recordFailure(of operation: OutgoingOperation", in: engine))
        #expect(recordBody.contains("backoff.delay(afterAttempt:"), "failures back off")
        #expect(recordBody.contains("recordPushFailure("), "failures are recorded")
        #expect(recordBody.contains("error.isTemporary ?"), "permanent failures are told apart")
        #expect(engine.contains("let backoff: Backoff"))

        let store = try Self.source("Sources/VaultStore/Sync/Store+Push.swift")
        let toPush = try #require(Self.body(of: "public func operationsToPush(to remote: String", in: store))
        #expect(toPush.contains("o.state IN ('pending', 'in_flight')"), "failed operations are not pushed")
        #expect(toPush.contains("next_attempt_at"), "operations in backoff wait")
        let retry = try #require(Self.body(of: "public func retryFailedOperations()", in: store))
        #expect(retry.contains("WHERE state = 'failed'"), "failed operations are enumerated and put back")
        let vault = try Self.source("Sources/VaultKit/Vault+Sync.swift")
        #expect(vault.contains("if retryFailed {") && vault.contains("retryFailedOperations()"))
        let backoff = try Self.source("Sources/Sync/Backoff.swift")
        #expect(backoff.contains("Int64.random(in: 0..."), "full jitter")
    }

    // page-not-atomic: a pulled batch is applied in one transaction.
    @Test func aPulledBatchIsAppliedInOneTransaction() throws {
        let pull = try Self.source("Sources/VaultStore/Sync/Store+Pull.swift")
        let apply = try #require(Self.body(of: "public func apply(_ operations: [IncomingOperation])", in: pull))
        let lines = apply.components(separatedBy: "\n")
        // The transaction opens within three lines of the declaration and covers the loop.
        let transaction = try #require(lines.firstIndex { $0.contains("database.writeTransaction") })
        #expect(transaction <= 3)
        let loop = try #require(lines.firstIndex { $0.contains("for operation in operations") })
        let mark = try #require(lines.firstIndex { $0.contains("INSERT INTO applied_operation") })
        #expect(transaction < loop && loop < mark, "the records and their applied marks commit together")
        let engine = try Self.source("Sources/Sync/SyncEngine.swift")
        #expect(engine.contains("try store.apply(batch)"), "the engine applies whole batches")
        #expect(!engine.contains("apply([operation])"), "never one operation at a time")
    }
}
