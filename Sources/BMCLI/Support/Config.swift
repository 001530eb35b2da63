internal import FileIO
import Foundation

/// Defaults a reader sets once, in `$XDG_CONFIG_HOME/bmvault/config` (else
/// `~/.config/bmvault/config`): lines of `key = value`, blank lines, and comment lines
/// starting with `#`.
///
/// Nothing secret belongs there, and only these keys are read: a passphrase or a recovery
/// key cannot be put in it by mistake and then be used. The command line and the
/// environment still win, except for the editor and the pager, where (as with git's
/// `core.editor` and `core.pager`) the file wins over `$VISUAL`, `$EDITOR` and `$PAGER`.
struct Config: Equatable {
    /// The vault directory, when neither `--vault` nor `$BMVAULT_HOME` says.
    var vault: String?
    /// How long `unlock` keeps the key without `--timeout` (`30m`, `8h`, `2d`), in seconds.
    var unlockTimeoutSeconds: Int64?
    /// The editor command, run as `$VISUAL` is.
    var editor: String?
    /// The pager command, run as `$PAGER` is.
    var pager: String?
    /// `--color`'s default.
    var color: ColorChoice?

    static let keys = ["vault", "unlock-timeout", "editor", "pager", "color"]
    /// The most the file is read: a few lines of settings need far less.
    static let largestFile = 64 << 10

    /// Where the file is read from.
    static func path(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/bmvault/config" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.config/bmvault/config"
    }

    /// The file's settings; none when it does not exist. A line that is not `key = value`
    /// with a known key and a valid value is exit 64, naming the line (and the key, when it
    /// looks like one), never the value; so is a file bmvault will not read (over
    /// ``largestFile``, or a FIFO, a device or a folder where the file belongs), which is
    /// the reader's to fix as much as a bad line.
    static func load(environment: [String: String]) throws(CLIError) -> Config {
        guard let path = path(environment: environment), FileSystem.exists(path) else { return Config() }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readRegularFile(at: path, limit: largestFile)
        } catch where error.operation == .type {
            throw .configInvalid(path: path, line: 0, reason: "it is not a file (a FIFO, a device or a folder)")
        } catch where error.errno == .fileTooLarge {
            throw .configInvalid(path: path, line: 0, reason: "it is larger than \(largestFile >> 10) KiB, far more than its five settings need")
        } catch {
            throw .system(error)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .configInvalid(path: path, line: 0, reason: "it is not UTF-8") }
        var config = Config()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let number = index + 1
            guard let equals = line.firstIndex(of: "=") else { throw .configInvalid(path: path, line: number, reason: "not key = value") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else {
                let named = UsageError.isOptionName("--" + key) ? " '\(key)'" : ""
                throw .configInvalid(path: path, line: number, reason: "unknown key\(named) (known: \(keys.joined(separator: ", ")))")
            }
            guard !value.isEmpty else { throw .configInvalid(path: path, line: number, reason: "\(key) has no value") }
            switch key {
            case "vault": config.vault = value
            case "unlock-timeout":
                guard let seconds = try? ValueParsing.duration(value) else {
                    throw .configInvalid(path: path, line: number, reason: "unlock-timeout takes a duration such as 30m, 8h or 2d")
                }
                config.unlockTimeoutSeconds = seconds
            case "editor": config.editor = value
            case "pager": config.pager = value
            default:
                guard let color = ColorChoice(rawValue: value) else { throw .configInvalid(path: path, line: number, reason: "color takes auto, always or never") }
                config.color = color
            }
        }
        return config
    }
}
