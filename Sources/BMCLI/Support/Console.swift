internal import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// Standard output and error. Output is buffered (a listing of 100,000 notes is one
/// write per 64 KiB, not one per line) and flushed before any prompt and at exit.
final class Console {
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16

    /// Data for the reader or a script: ids, listings, JSON.
    func out(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Raw bytes to standard output, bypassing Swift strings (a recovery key); throws when
    /// they did not all get there (a full disk, a closed pipe), since some are shown once.
    func out(bytes: UnsafeRawBufferPointer) throws(CLIError) {
        flush()
        do { try FileDescriptor.standardOutput.writeAll(bytes) } catch { throw .system(error) }
    }

    /// Bytes to standard output at once, throwing when they did not all get there.
    func out(bytes: [UInt8]) throws(CLIError) {
        flush()
        do { try FileDescriptor.standardOutput.writeAll(bytes) } catch { throw .system(error) }
    }

    /// `--quiet`: confirmations (``note(_:)``) are not written.
    var quiet = false

    /// A confirmation of what a command did (`Added ...`, `Saved ...`, `Deleted ...`),
    /// which `--quiet` leaves out; errors, warnings and questions use ``err(_:)``.
    func note(_ text: String) {
        if !quiet { err(text) }
    }

    /// Messages, progress and prompts for the person at the terminal.
    func err(_ text: String) {
        flush()
        try? FileDescriptor.standardError.writeAll(text)
    }

    /// A progress line ("Unlocking..."), shown only to a person watching a terminal, so
    /// that a script reading standard error sees exactly one line on failure.
    func progress(_ text: String) {
        if stderrIsTerminal { err(text) }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        let output = pager?.input ?? FileDescriptor.standardOutput
        buffer.withUnsafeBytes { _ = try? output.writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: - The pager

    /// The pager standard output goes through while it runs, and the pipe to it.
    private var pager: (child: pid_t, input: FileDescriptor)?

    /// Sends what follows on standard output through `command` (run by `/bin/sh`, as git
    /// runs `$PAGER`), until ``finishPaging()``. Quitting the pager early ends the listing's
    /// output, not bmvault: SIGPIPE is ignored and the writes that follow fail quietly.
    func startPager(_ command: String) {
        guard pager == nil, let pipe = try? FileDescriptor.pipe() else { return }
        flush()
        guard let child = ChildProcess.spawn(["/bin/sh", "-c", command], standardInput: pipe.read) else {
            try? pipe.read.close()
            try? pipe.write.close()
            return
        }
        try? pipe.read.close()
        signal(SIGPIPE, SIG_IGN)
        pager = (child, pipe.write)
    }

    /// Flushes standard output and, if a pager runs, closes its input and waits for the
    /// reader to leave it.
    func finishPaging() {
        flush()
        guard let running = pager else { return }
        pager = nil
        try? running.input.close()
        _ = try? ChildProcess.waitForExit(running.child)
    }

    var stdoutIsTerminal: Bool { isatty(1) == 1 }

    var stdinIsTerminal: Bool { isatty(0) == 1 }
    /// Whether standard output is a terminal that takes bold and underline: not when
    /// `NO_COLOR` is set (no-color.org) or `TERM` is `dumb`.
    var stdoutShowsStyle: Bool {
        guard isatty(1) == 1, getenv("NO_COLOR").map({ $0.pointee == 0 }) ?? true else { return false }
        return getenv("TERM").map { String(cString: $0) != "dumb" } ?? true
    }
    var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// `--color`: auto (the default) colours only where ``stdoutShowsStyle``.
    var colorChoice = ColorChoice.auto

    /// Whether human output is coloured (and search matches shown in bold).
    var showsColor: Bool {
        switch colorChoice {
        case .never: false
        case .always: true
        case .auto: stdoutShowsStyle
        }
    }

    var style: TerminalStyle { TerminalStyle(enabled: showsColor) }
}
