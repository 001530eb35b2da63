internal import FileIO
import Foundation
import Journal
import Telemetry
import VaultKit

/// `diagnostics`: a bundle a reader can read before sharing it, with no content in it.
enum DiagnosticsCommand {
    static let recentLogLines = 50

    struct Input: CommandInput {
        var out: String?
        var json = false

        static var parameters: [Parameter<Input>] {
            [.option(\.out, OptionSpec(name: "out", valueName: "file", help: "Write the bundle to a new file (0600) instead of standard output.")),
             .flag(\.json, SharedOptions.json)]
        }
    }

    static func diagnostics(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "diagnostics", abstract: "Show versions, vault health and recent log lines, without content.",
            discussion: "Safe to share: no note, quote, title, author, locator, key or passphrase is in it (Docs/TELEMETRY.md). It changes nothing: no upgrade, no unlock.",
            parameters: Input.parameters
        ) { input in
            let report = Vault.diagnostics(at: context.location, keyStore: context.keyStore())
            let lines = FileSink(directory: context.stateDirectory).recentLines(recentLogLines)
            let document = DiagnosticsDocument(report, location: locationKind(context), recentLog: lines, now: Date())
            let text = input.json ? JSONDocuments.render(document) : document.humanText
            if let path = input.out {
                try writeNewFile(text, to: path)
                context.console.err("Diagnostics written to \(path).\n")
            } else {
                context.console.out(text)
            }
        }
    }

    /// Where the vault location came from, rather than the path (which names the reader).
    private static func locationKind(_ context: CommandContext) -> String {
        if context.vaultOption != nil { return "--vault" }
        if let home = context.environment["BMVAULT_HOME"], !home.isEmpty { return "BMVAULT_HOME" }
        return "default"
    }

    private static func writeNewFile(_ text: String, to path: String) throws(CLIError) {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.create(path, permissions: 0o600) } catch { throw .system(operation: "create \(path)", errno: error.errno.rawValue) }
        defer { try? descriptor.close() }
        do { try descriptor.writeAll(text) } catch { throw .system(error) }
    }
}

/// The diagnostics bundle as JSON (and as text), documented in Docs/TELEMETRY.md.
struct DiagnosticsDocument: Encodable {
    struct Libraries: Encodable { let libsodium: String, sqlite: String }
    struct System: Encodable { let os: String, kernel: String }
    struct Migration: Encodable { let id: String, appliedAt: String, durationMs: Int64, bmvaultVersion: String }
    struct VaultSection: Encodable {
        let location: String
        let problem: String?
        let schemaVersion: Int?
        let newestSchemaVersion: Int?
        let migrations: [Migration]
        let pendingMigrations: [String]
        let counts: JournalCounts?
        let tombstones: Int?
        let rekeyInProgress: Bool?
        let leftoverSnapshots: Int?
        let databaseBytes: Int64?
        let walBytes: Int64?
    }
    struct Outbox: Encodable {
        let byState: [String: Int]
        let byAttempts: [String: Int]
        let oldestWaitingSeconds: Int64?
        let lastErrorClass: String?
    }
    struct SecretService: Encodable { let reachable: Bool, state: String }

    let bmvault: String
    let libraries: Libraries
    let system: System
    let vault: VaultSection
    let outbox: Outbox?
    let secretService: SecretService
    let recentLog: [String]

    init(_ report: DiagnosticsReport, location: String, recentLog: [String], now: Date) {
        bmvault = report.bmvaultVersion
        libraries = Libraries(libsodium: report.libsodiumVersion, sqlite: report.vault?.sqliteVersion ?? "unknown")
        system = System(os: report.operatingSystem, kernel: report.kernel)
        let inspection = report.vault
        vault = VaultSection(
            location: location, problem: report.vaultProblem,
            schemaVersion: inspection?.schema.version, newestSchemaVersion: inspection?.schema.latestVersion,
            migrations: inspection?.schema.history.map {
                Migration(id: $0.id, appliedAt: $0.appliedAt.iso8601, durationMs: $0.durationMilliseconds, bmvaultVersion: $0.bmvaultVersion)
            } ?? [],
            pendingMigrations: inspection?.schema.pending.map(\.id) ?? [],
            counts: inspection.map { $0.counts },
            tombstones: inspection?.tombstones, rekeyInProgress: inspection?.rekeyInProgress,
            leftoverSnapshots: inspection?.snapshots, databaseBytes: inspection?.databaseBytes, walBytes: inspection?.walBytes)
        outbox = inspection.map { inspection in
            var byState: [String: Int] = [:]
            for (state, count) in inspection.outbox.byState { byState[JSONDocuments.outboxKey(state)] = count }
            var byAttempts: [String: Int] = [:]
            for (attempts, count) in inspection.outbox.byAttempts { byAttempts[String(attempts)] = count }
            let age = inspection.outbox.oldestWaiting.map { Int64(now.timeIntervalSince1970) - $0.millisecondsSince1970 / 1000 }
            return Outbox(byState: byState, byAttempts: byAttempts, oldestWaitingSeconds: age, lastErrorClass: inspection.outbox.lastErrorClass)
        }
        secretService = SecretService(reachable: report.secretServiceReachable, state: report.secretService)
        self.recentLog = recentLog
    }

    var humanText: String {
        var text = "bmvault \(bmvault) (libsodium \(libraries.libsodium), SQLite \(libraries.sqlite))\n"
        text += "system: \(system.os); \(system.kernel)\n\n"
        text += "vault (\(vault.location) location):\n"
        if let problem = vault.problem {
            text += "  cannot be inspected: \(problem)\n"
        } else {
            text += "  schema \(vault.schemaVersion ?? 0) of \(vault.newestSchemaVersion ?? 0)"
            text += vault.pendingMigrations.isEmpty ? "\n" : "; pending: \(vault.pendingMigrations.joined(separator: ", "))\n"
            for migration in vault.migrations {
                text += "  migration \(migration.id) applied \(migration.appliedAt) in \(migration.durationMs) ms by bmvault \(migration.bmvaultVersion)\n"
            }
            if let counts = vault.counts {
                text += "  \(counts.books) books, \(counts.sessions) sessions, \(counts.notes) notes, \(counts.quotes) quotes; \(vault.tombstones ?? 0) tombstones\n"
            }
            text += "  database \(vault.databaseBytes ?? 0) bytes (+ \(vault.walBytes ?? 0) in the WAL); leftover snapshots: \(vault.leftoverSnapshots ?? 0)"
            text += vault.rekeyInProgress == true ? "; a rekey is unfinished\n" : "\n"
        }
        if let outbox {
            text += "\noutbox: " + outbox.byState.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + "\n"
            if !outbox.byAttempts.isEmpty {
                text += "  waiting, by attempts: " + outbox.byAttempts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ", ") + "\n"
            }
            if let age = outbox.oldestWaitingSeconds { text += "  oldest waiting: \(age) s\n" }
        }
        text += "\nSecret Service: \(secretService.reachable ? "reachable" : "unreachable"); \(secretService.state)\n"
        text += "\nrecent log lines (\(recentLog.count)):\n" + recentLog.map { "  \($0)\n" }.joined()
        return text
    }
}
