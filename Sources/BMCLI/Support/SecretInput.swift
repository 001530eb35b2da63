internal import FileIO
#if canImport(Glibc)
import Glibc
#endif
import VaultKit

/// Reads passphrases and recovery keys straight into secure memory, never into a Swift
/// string: from standard input (`--passphrase-stdin`) or from the terminal with echo off.
enum SecretInput {
    /// Longest secret accepted, in bytes.
    static let maximumBytes = 4096

    /// One line from standard input, without its line ending.
    static func readLine() throws(CLIError) -> SecretBytes {
        try readLine(from: .standardInput)
    }

    /// Asks on the controlling terminal with echo off. Ctrl-C restores the terminal.
    static func prompt(_ message: String) throws(CLIError) -> SecretBytes {
        guard let terminal = try? FileDescriptor.open("/dev/tty", .readWrite) else { throw .noTerminal }
        defer { try? terminal.close() }
        var original = termios()
        guard tcgetattr(terminal.rawValue, &original) == 0 else { throw .noTerminal }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        TerminalRestorer.arm(terminal: terminal.rawValue, settings: original)
        defer { TerminalRestorer.disarm() }
        // Echo off before the prompt shows: what is typed after seeing it is never echoed,
        // nor discarded by TCSAFLUSH (which drops only what was typed before the prompt).
        guard tcsetattr(terminal.rawValue, TCSAFLUSH, &silent) == 0 else { throw .system(operation: "tcsetattr", errno: errno) }
        defer { tcsetattr(terminal.rawValue, TCSAFLUSH, &original) }
        try? terminal.writeAll(message)
        return try readLine(from: terminal)
    }

    /// One line from `descriptor`, a byte at a time so nothing after the line ending is taken.
    static func readLine(from descriptor: FileDescriptor) throws(CLIError) -> SecretBytes {
        let secret: SecretBytes
        do { secret = try SecretBytes(count: maximumBytes) } catch { throw .system(operation: "sodium_malloc", errno: ENOMEM) }
        var length = 0
        var failure: Int32 = 0
        var tooLong = false
        secret.withUnsafeMutableBytes { buffer in
            var byte: UInt8 = 0
            while true {
                // One byte at a time: nothing after the line ending may be taken from the stream.
                let count: Int
                do throws(FileIOError) {
                    count = try withUnsafeMutableBytes(of: &byte) { raw in Result { () throws(FileIOError) in try descriptor.read(into: raw) } }.get()
                } catch {
                    failure = error.errno.rawValue
                    break
                }
                if count == 0 || byte == UInt8(ascii: "\n") { break }
                // Never cut a secret silently: a longer one is refused.
                guard length < buffer.count else { tooLong = true; break }
                buffer[length] = byte
                length += 1
            }
            byte = 0
            if length > 0 && buffer[length - 1] == UInt8(ascii: "\r") { length -= 1 }
        }
        guard failure == 0 else { throw .system(operation: "read", errno: failure) }
        guard !tooLong else { throw .secretTooLong(limit: maximumBytes) }
        secret.truncate(to: length)
        return secret
    }
}

/// Puts the terminal back if the reader presses Ctrl-C at a silent prompt; a signal
/// handler cannot capture context, so the saved settings live in process globals.
private enum TerminalRestorer {
    nonisolated(unsafe) static var terminal: Int32 = -1
    nonisolated(unsafe) static var settings = termios()

    static func arm(terminal: Int32, settings: termios) {
        Self.terminal = terminal
        Self.settings = settings
        signal(SIGINT) { _ in
            if TerminalRestorer.terminal >= 0 { tcsetattr(TerminalRestorer.terminal, TCSANOW, &TerminalRestorer.settings) }
            _exit(130)
        }
    }

    static func disarm() {
        signal(SIGINT, SIG_DFL)
        terminal = -1
    }
}
