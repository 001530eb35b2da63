// bmvault-bench-journal: writes a large, seeded reading journal into a new vault for
// Scripts/bench (not shipped). See Docs/PERFORMANCE.md.
//
//   bmvault-bench-journal --vault DIR --annotations N [--seed S] [--synced-remote] --passphrase-stdin
//   bmvault-bench-journal --jrnl FILE --annotations N [--seed S]
//
// The first form creates a vault at DIR (Argon2id "interactive", the passphrase from the
// first line of standard input), then writes N/50 books, 0.4·N sessions and N annotations
// through JournalBatch.insert in write transactions of about 5,000 records. Their outbox operations are
// compacted after each transaction as bmvault compacts them: with no remote they go (a
// journal kept on one device), with --synced-remote only the names of their files stay (a
// journal synced long ago through one remote).
// The second form writes the same live annotations, with the same seed, as a plain-text
// jrnl journal (for --compare).
#if canImport(Glibc)
import Glibc
#endif
import Journal
import Keystore
import VaultCrypto
import VaultKit
import VaultStore

struct Options {
    var vault: String?
    var jrnl: String?
    var annotations: Int?
    var seed: UInt64 = 1
    var passphraseFromStdin = false
    var syncedRemote = false

    static let usage = """
        usage: bmvault-bench-journal --vault DIR --annotations N [--seed S] [--synced-remote] --passphrase-stdin
               bmvault-bench-journal --jrnl FILE --annotations N [--seed S]
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var index = 0
        func value() -> String {
            index += 1
            guard index < arguments.count else { fail("missing value for \(arguments[index - 1])\n\(usage)") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--vault": options.vault = value()
            case "--jrnl": options.jrnl = value()
            case "--annotations":
                guard let n = Int(value()), n > 0 else { fail("--annotations needs a positive whole number") }
                options.annotations = n
            case "--seed":
                guard let s = UInt64(value()) else { fail("--seed needs a whole number") }
                options.seed = s
            case "--passphrase-stdin": options.passphraseFromStdin = true
            case "--synced-remote": options.syncedRemote = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument \(arguments[index])\n\(usage)")
            }
            index += 1
        }
        guard options.annotations != nil, (options.vault == nil) != (options.jrnl == nil) else { fail(usage) }
        if options.vault != nil && !options.passphraseFromStdin { fail("--vault needs --passphrase-stdin\n\(usage)") }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandleErr.write("bmvault-bench-journal: \(message)\n")
    exit(1)
}

enum FileHandleErr {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer in _ = Glibc.write(2, buffer.baseAddress, buffer.count) }
    }
}

func monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// About 5,000 records per transaction: 3,500 annotations bring ~1,400 sessions and ~70 books.
let annotationsPerChunk = 3_500

func writeVault(at directory: String, annotations: Int, seed: UInt64, syncedRemote: Bool) {
    guard let line = readLine(strippingNewline: true), !line.isEmpty else { fail("no passphrase on standard input") }
    let started = monotonicSeconds()
    let location = VaultLocation(directory: directory)
    let passphrase: SecretBytes
    do {
        passphrase = try Array(line.utf8).withUnsafeBytes { (bytes) throws(CryptoError) in try SecretBytes(copying: bytes) }
    } catch { fail("secure memory: \(error)") }

    // Create (the facade: same keyslots as `bmvault init --kdf interactive`), then drop it.
    do {
        _ = try Vault.create(at: location, passphrase: passphrase, kdf: KDFParameters(strength: .interactive),
                             keyStore: MemoryKeyStore())
    } catch { fail("cannot create the vault at \(directory): \(error)") }

    var generator = JournalGenerator(annotations: annotations, seed: seed)
    var counts = (books: 0, sessions: 0, annotations: 0, tombstones: 0, edited: 0)
    do {
        let store = try Store.open(at: location.databasePath, generatorVersion: BuildInfo.version)
        guard let slot = try store.read { tables throws(StoreError) in try tables.keys.slots() }.first(where: { $0.kind == .passphrase }) else { fail("no passphrase keyslot") }
        let key: VaultKey
        do { key = try slot.unwrap(passphrase: passphrase, vaultID: store.metadata.vaultID) } catch { fail("unwrap: \(error)") }
        try store.attach(key)
        // Added while the vault is empty, so no snapshot is owed; the folder is never used.
        if syncedRemote { try store.write { tables throws(StoreError) in try tables.remotes.add(name: "nas", kind: .folder, location: directory + "/never-used-remote") } }
        while !generator.isFinished {
            let chunk = generator.nextChunk(annotationsPerChunk: annotationsPerChunk)
            counts.books += chunk.books.count
            counts.sessions += chunk.sessions.count
            counts.annotations += chunk.annotations.count
            for annotation in chunk.annotations {
                if annotation.deletedAt != nil { counts.tombstones += 1 } else if annotation.version > 1 { counts.edited += 1 }
            }
            let batch = JournalBatch(books: chunk.books, sessions: chunk.sessions, annotations: chunk.annotations)
            try store.write { tables throws(StoreError) in try batch.insert(into: tables, outboxState: .done) }
            try store.write { tables throws(StoreError) in try tables.outbox.compact(limit: Int.max) }
        }
    } catch { fail("cannot write the journal: \(error)") }
    // The Store is released here: its connection closes and SQLite folds the WAL back in.
    let seconds = monotonicSeconds() - started
    FileHandleErr.write("""
        bmvault-bench-journal: \(directory): \(counts.books) books, \(counts.sessions) sessions, \
        \(counts.annotations) annotations (\(counts.edited) edited, \(counts.tombstones) tombstones), \
        outbox \(syncedRemote ? "synced through one remote" : "no remote"), seed \(seed), \(format2(seconds)) s

        """)
}

func format2(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

/// The live annotations as a jrnl journal: `[YYYY-MM-DD HH:MM] text`, one blank line between
/// entries, in time order (config `timeformat: "%Y-%m-%d %H:%M"`, times in UTC).
func writeJrnl(to path: String, annotations: Int, seed: UInt64) {
    let started = monotonicSeconds()
    guard let file = fopen(path, "w") else { fail("cannot write \(path)") }
    var generator = JournalGenerator(annotations: annotations, seed: seed)
    var titles: [EntityID: String] = [:]
    var written = 0
    while !generator.isFinished {
        let chunk = generator.nextChunk(annotationsPerChunk: annotationsPerChunk)
        for book in chunk.books { titles[book.id] = book.title }
        var text = ""
        for annotation in chunk.annotations where annotation.deletedAt == nil {
            let stamp = annotation.createdAt.iso8601
            let minute = stamp.prefix(10) + " " + stamp.dropFirst(11).prefix(5)
            // The book as plain text, not an @tag: jrnl counts tags with list.count for every
            // distinct tag, so one tag per book makes every jrnl command quadratic (see
            // Docs/PERFORMANCE.md); plain entries match the journals jrnl is usually timed on.
            let book = titles[annotation.bookID].map { String($0.prefix(10)) } ?? "a book"
            let place = annotation.locator.map { "\(book), \($0.text)" } ?? book
            text += "[\(minute)] \(annotation.body) (\(place))\n\n"
            written += 1
        }
        fputs(text, file)
    }
    fclose(file)
    FileHandleErr.write("bmvault-bench-journal: \(path): \(written) jrnl entries, seed \(seed), \(format2(monotonicSeconds() - started)) s\n")
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if let vault = options.vault {
    writeVault(at: vault, annotations: options.annotations!, seed: options.seed, syncedRemote: options.syncedRemote)
} else if let jrnl = options.jrnl {
    writeJrnl(to: jrnl, annotations: options.annotations!, seed: options.seed)
}
