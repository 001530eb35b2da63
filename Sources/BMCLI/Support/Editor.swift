internal import FileIO
import Foundation
import Telemetry
#if canImport(Glibc)
import Glibc
#endif

/// Opens the reader's editor on a note, for `note add` / `quote add` without TEXT and
/// `edit` without TEXT.
///
/// An editor needs a file, and a file is exactly where a note must not linger. So the
/// buffer lives only in `$XDG_RUNTIME_DIR` (a per-user, memory-backed directory, mode 0700,
/// emptied at logout), in a fresh 0700 directory, in a 0600 file; when the editor exits it
/// is overwritten with zeros and removed together with anything the editor left beside it
/// (swap and backup files). With no private runtime directory, bmvault refuses rather than
/// fall back to /tmp.
struct Editor {
    let environment: [String: String]
    /// The config file's `editor`, which wins over `$VISUAL` and `$EDITOR` (git's order).
    let configured: String?
    /// Asks the reader a yes-or-no question (whether to recover a draft).
    let confirm: (String) -> Bool

    /// The editor command: the config file's `editor`, else `$VISUAL`, else `$EDITOR`, else, as git does, `editor` (Debian's
    /// choice of the system's editor) or `vi`, wherever `$PATH` has them.
    var command: String? {
        if let configured, !configured.trimmingCharacters(in: .whitespaces).isEmpty { return configured }
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.trimmingCharacters(in: .whitespaces).isEmpty { return value }
        }
        for fallback in ["editor", "vi"] {
            if let path = ChildProcess.find(fallback, environment: environment) {
                return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
            }
        }
        return nil
    }

    /// Runs the editor on `buffer` (the text and the lines around it) and returns the text
    /// the reader saved, without those lines.
    func edit(_ buffer: EditorBuffer) throws(CLIError) -> String {
        guard let command else { throw .noEditor }
        let runtime = try privateRuntimeDirectory()
        let buffer = recoveringDraft(in: runtime, into: buffer)
        let directory = try makeBufferDirectory(in: runtime)
        // Held while the editor runs, so another bmvault does not take this buffer for a
        // draft left by a killed edit.
        let lock = try? FileDescriptor.create(directory + "/" + Self.lockName)
        _ = try? lock?.lockExclusively(waiting: false)
        defer { try? lock?.close() }
        defer { Self.shred(directory: directory) }
        let path = directory + "/" + buffer.fileName
        CrashReporter.removeOnCrash(path)
        defer { CrashReporter.removeOnCrash(nil) }
        try Self.write(buffer.contents, to: path)

        EditorSignals.arm()
        defer { EditorSignals.disarm() }
        let status = try Self.run(command, on: path)
        if EditorSignals.received != 0 { throw .interrupted(signal: EditorSignals.received) }
        guard status == 0 else { throw .editorFailed(status: status) }
        let bytes = try Self.read(path)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        let saved = buffer.text(from: text)
        guard !saved.allSatisfy(\.isWhitespace) else { throw .emptyBuffer }
        return saved
    }

    // MARK: - The buffer directory

    static let directoryPrefix = "bmvault-edit-"
    static let lockName = ".lock"

    /// `$XDG_RUNTIME_DIR`, when it is an absolute path to a directory that is ours alone.
    private func privateRuntimeDirectory() throws(CLIError) -> String {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else {
            throw .noPrivateRuntimeDirectory
        }
        guard let status = try? FileSystem.status(runtime), status.kind == .directory,
              status.owner == getuid(), status.permissions & 0o077 == 0 else {
            throw .noPrivateRuntimeDirectory
        }
        return runtime
    }

    private func makeBufferDirectory(in runtime: String) throws(CLIError) -> String {
        do { return try FileSystem.makeTemporaryDirectory(prefix: runtime + "/" + Self.directoryPrefix) } catch { throw .system(error) }
    }

    // MARK: - Drafts of killed edits

    /// `buffer`, or, if the reader takes it, the text of a draft an earlier edit left
    /// behind (a bmvault killed with SIGKILL, or a machine that lost power, cannot shred
    /// its buffer). Every such draft is shredded, taken or not; a buffer another bmvault is
    /// editing right now (its lock is held) is left alone.
    private func recoveringDraft(in runtime: String, into buffer: EditorBuffer) -> EditorBuffer {
        var recovered: String?
        for name in (try? FileSystem.entries(of: runtime)) ?? [] where name.hasPrefix(Self.directoryPrefix) {
            let directory = runtime + "/" + name
            guard let status = try? FileSystem.status(directory, followingLinks: false), status.kind == .directory,
                  status.owner == getuid(), !Self.isBeingEdited(directory) else { continue }
            defer { Self.shred(directory: directory) }
            guard recovered == nil, let saved = Self.draftText(in: directory, buffer: buffer) else { continue }
            let text = String(saved.reversed().drop(while: \.isWhitespace).reversed())
            guard !text.isEmpty else { continue }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            if confirm("A draft from an interrupted edit was found (\(lines) line\(lines == 1 ? "" : "s")). Recover it into this buffer? [y/N] ") {
                recovered = text
            }
        }
        guard let recovered else { return buffer }
        return EditorBuffer(text: recovered, kind: buffer.kind, bookTitle: buffer.bookTitle, locator: buffer.locator)
    }

    /// Whether another bmvault holds the lock of `directory`'s buffer.
    private static func isBeingEdited(_ directory: String) -> Bool {
        guard let lock = try? FileDescriptor.open(directory + "/" + lockName, .readWrite) else { return false }
        defer { try? lock.close() }
        return (try? lock.lockExclusively(waiting: false)) == false
    }

    /// The text of the note or quote buffer in `directory`, without bmvault's comment lines.
    private static func draftText(in directory: String, buffer: EditorBuffer) -> String? {
        for name in ["note.md", "quote.md"] {
            let path = directory + "/" + name
            guard (try? FileSystem.status(path, followingLinks: false))?.kind == .regular,
                  let bytes = try? FileSystem.readRegularFile(at: path, limit: 4 << 20),
                  let text = String(validating: bytes, as: UTF8.self) else { continue }
            return buffer.text(from: text)
        }
        return nil
    }

    private static func write(_ text: String, to path: String) throws(CLIError) {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.create(path, permissions: 0o600) } catch { throw .system(operation: "open", errno: error.errno.rawValue) }
        defer { try? descriptor.close() }
        do { try descriptor.writeAll(text) } catch { throw .system(error) }
    }

    private static func read(_ path: String) throws(CLIError) -> [UInt8] {
        do {
            return try FileSystem.readFile(at: path)
        } catch where error.operation == .type {
            throw .editorBufferNotAFile
        } catch {
            throw .system(error)
        }
    }

    /// Overwrites every regular file in `directory` (and below it: an editor may leave a
    /// backup folder) with zeros, then removes them and it. Best effort: whatever fails,
    /// the rest is still shredded and removed.
    private static func shred(directory: String) {
        guard let names = try? FileSystem.entries(of: directory) else { return }
        for name in names {
            let path = directory + "/" + name
            let status = try? FileSystem.status(path, followingLinks: false)
            if status?.kind == .directory {
                shred(directory: path)
                continue
            }
            if let status, status.kind == .regular, let descriptor = try? FileDescriptor.open(path, .writeOnly) {
                let zeros = [UInt8](repeating: 0, count: 1 << 16)
                var remaining = Int(status.size)
                while remaining > 0 {
                    let count = min(remaining, zeros.count)
                    let written = zeros.withUnsafeBytes { raw in
                        (try? descriptor.writeAll(UnsafeRawBufferPointer(rebasing: raw.prefix(count)))) != nil
                    }
                    guard written else { break }
                    remaining -= count
                }
                try? descriptor.sync()
                try? descriptor.close()
            }
            try? FileSystem.unlink(path)
        }
        try? FileSystem.removeDirectory(directory)
    }

    // MARK: - Running the editor

    /// Runs `command` through `/bin/sh`, so `EDITOR="code --wait"` works, with the file as
    /// `$1` (never spliced into the command text). Returns its exit status.
    private static func run(_ command: String, on path: String) throws(CLIError) -> Int32 {
        // bmvault ignores Ctrl-C while it waits; the editor must not inherit that.
        guard let child = ChildProcess.spawn(["/bin/sh", "-c", command + " \"$1\"", "bmvault-editor", path],
                                             defaultSignals: [SIGINT, SIGQUIT, SIGTERM, SIGHUP]) else {
            throw .editorFailed(status: 127)
        }
        EditorSignals.child = child
        return try ChildProcess.waitForExit(child)
    }
}

/// What bmvault does with signals while the editor runs. Ctrl-C and Ctrl-\ belong to the
/// editor and are ignored. A closed terminal (SIGHUP) or a `kill` (SIGTERM) is passed on to
/// the editor and remembered: bmvault then waits for the editor to end, shreds the buffer,
/// and saves nothing. A signal handler may only set flags and call `kill`.
private enum EditorSignals {
    nonisolated(unsafe) static var child: pid_t = 0
    nonisolated(unsafe) static var received: Int32 = 0

    private static let forward: @convention(c) (Int32) -> Void = { signalNumber in
        EditorSignals.received = signalNumber
        if EditorSignals.child > 0 { kill(EditorSignals.child, signalNumber) }
    }

    static func arm() {
        child = 0
        received = 0
        signal(SIGINT, SIG_IGN)
        signal(SIGQUIT, SIG_IGN)
        signal(SIGTERM, forward)
        signal(SIGHUP, forward)
    }

    static func disarm() {
        for signalNumber in [SIGINT, SIGQUIT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
        child = 0
    }
}
