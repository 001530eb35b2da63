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
///
/// Its output is read to its end, whatever its length (a first line over
/// ``SecretInput/maximumBytes`` is refused, the rest read and dropped), so the command never
/// blocks writing to a full pipe while bmvault waits for it; and once the command has exited,
/// for ``grace`` more at most, so a process it left running with its output open (a daemon,
/// `sleep &`) cannot hold bmvault.
enum PassphraseCommand {
    static let variable = "BMVAULT_PASSPHRASE_COMMAND"
    /// How long the output is still read after the command exited. What it wrote is in the
    /// pipe by then; this covers only reading it.
    static let grace = Duration.milliseconds(500)
    /// How often the command is checked for its exit while its output stays silent.
    private static let exitCheckMilliseconds: Int32 = 100

    /// Runs `command` and returns the first line it printed, without the line ending. With
    /// `environment`, the command gets that environment instead of bmvault's.
    static func run(_ command: String, environment: [String: String]? = nil) throws(CLIError) -> SecretBytes {
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
            guard let started = ChildProcess.spawn(arguments, standardInput: nothing, standardOutput: output.write,
                                                   environment: environment) else {
                throw .passphraseCommandFailed(status: 127)
            }
            child = started
        }
        let (line, status) = try firstLine(from: output.read, of: child)
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

    /// Reads the command's output (see the type's comment) and returns its first line, in
    /// secure memory, or why it is refused, with the command's exit status. The command is
    /// always waited for, whatever the reading did, so no child is left behind.
    private static func firstLine(from pipe: FileDescriptor, of child: pid_t) throws(CLIError) -> (Result<SecretBytes, CLIError>, Int32) {
        let line: SecretBytes, chunk: SecretBytes
        // The rest (`pass` puts a login or a one-time-code seed there) passes through secure
        // memory too, and is wiped.
        do {
            line = try SecretBytes(count: SecretInput.maximumBytes)
            chunk = try SecretBytes(count: 4096)
        } catch {
            throw .system(operation: "sodium_malloc", errno: ENOMEM)
        }
        var length = 0
        var lineEnded = false, tooLong = false
        var status: Int32?
        var deadline: ContinuousClock.Instant?
        var failure: FileIOError?
        while true {
            if status == nil, let ended = try ChildProcess.exitStatus(of: child) {
                status = ended
                deadline = .now + grace
            }
            var wait = exitCheckMilliseconds
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { break }
                wait = Int32(min(Double(wait), (left / .milliseconds(1)).rounded(.up)))
            }
            let count: Int
            do throws(FileIOError) {
                guard try pipe.waitUntilReadable(milliseconds: wait) else { continue }
                count = try chunk.withUnsafeMutableBytes { (buffer) throws(FileIOError) in try pipe.read(into: buffer) }
            } catch {
                failure = error
                break
            }
            if count == 0 { break }
            guard !lineEnded else { continue }
            line.withUnsafeMutableBytes { kept in
                chunk.withUnsafeBytes { read in
                    for byte in read[0..<count] {
                        if byte == UInt8(ascii: "\n") { lineEnded = true; break }
                        // Never cut a secret silently: a longer one is refused.
                        guard length < kept.count else { tooLong = true; lineEnded = true; break }
                        kept[length] = byte
                        length += 1
                    }
                }
            }
        }
        let exit: Int32
        if let status { exit = status } else { exit = try ChildProcess.waitForExit(child) }
        if let failure { return (.failure(.system(failure)), exit) }
        if tooLong { return (.failure(.secretTooLong(limit: SecretInput.maximumBytes)), exit) }
        if length > 0, line.withUnsafeBytes({ $0[length - 1] }) == UInt8(ascii: "\r") { length -= 1 }
        line.truncate(to: length)
        return (.success(line), exit)
    }
}
