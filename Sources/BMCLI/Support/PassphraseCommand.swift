internal import FileIO
#if canImport(Glibc)
import Glibc
#endif
import VaultKit

/// `BMVAULT_PASSPHRASE_COMMAND`: a program whose first line of output is the passphrase, for
/// the headless path without a terminal (as restic's `--password-command` and borg's
/// `BORG_PASSCOMMAND`). It runs without a shell: the value is split into words with shell
/// quoting rules (`'...'`, `"..."`, `\`), and the first word is looked up in `PATH`.
///
/// Its standard input is `/dev/null` (it must not eat a note piped to bmvault) and its
/// standard error is bmvault's, so `pass` or `secret-tool` can say what went wrong. Its output
/// goes straight into secure memory; the value itself is never repeated in a message, since
/// it may hold the passphrase (`echo ...`).
enum PassphraseCommand {
    static let variable = "BMVAULT_PASSPHRASE_COMMAND"

    /// Runs `command` and returns the first line it printed, without the line ending.
    static func run(_ command: String) throws(CLIError) -> SecretBytes {
        let arguments = try words(command)
        guard !arguments.isEmpty else { throw .passphraseCommandInvalid }
        let output: (read: FileDescriptor, write: FileDescriptor)
        let nothing: FileDescriptor
        do {
            output = try FileDescriptor.pipe()
            nothing = try FileDescriptor.nullDevice()
        } catch {
            throw .system(error)
        }
        defer { try? output.read.close() }
        let child: pid_t
        do {
            defer {
                try? output.write.close()
                try? nothing.close()
            }
            // posix_spawnp: the first word is looked up in PATH, as a shell would, with no shell.
            guard let started = ChildProcess.spawn(arguments, standardInput: nothing, standardOutput: output.write) else {
                throw .passphraseCommandFailed(status: 127)
            }
            child = started
        }
        // Waited for whatever the reading did, so no child is left behind.
        let line = Result { () throws(CLIError) in try firstLine(from: output.read) }
        let status = try ChildProcess.waitForExit(child)
        guard status == 0 else { throw .passphraseCommandFailed(status: status) }
        return try line.get()
    }

    /// Splits the command into words as a POSIX shell would, without expanding anything.
    static func words(_ command: String) throws(CLIError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in command {
            if escaped {
                if quote == "\"" && !"$`\"\\\n".contains(character) { current.append("\\") }
                current.append(character)
                escaped = false
                continue
            }
            switch (quote, character) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                current.append(character)
            case (nil, "\\"):
                escaped = true
                inWord = true
            case ("\"", "\\"):
                // Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a
                // line break (POSIX); before anything else it is itself.
                escaped = true
            case ("\"", _):
                current.append(character)
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case (nil, " "), (nil, "\t"), (nil, "\n"):
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { throw .passphraseCommandInvalid }
        if inWord { words.append(current) }
        return words
    }

    // MARK: - Private

    /// Reads the first line into secure memory, then drains the rest (not kept), so the
    /// command never blocks on a full pipe.
    private static func firstLine(from descriptor: FileDescriptor) throws(CLIError) -> SecretBytes {
        let line = try SecretInput.readLine(from: descriptor)
        // The rest (`pass` puts a login or a one-time-code seed there) passes through secure
        // memory too, and is wiped.
        let rest: SecretBytes
        do { rest = try SecretBytes(count: 512) } catch { throw .system(operation: "sodium_malloc", errno: ENOMEM) }
        do {
            while try rest.withUnsafeMutableBytes({ (buffer) throws(FileIOError) in try descriptor.read(into: buffer) }) > 0 {}
        } catch {
            throw .system(error)
        }
        return line
    }
}
