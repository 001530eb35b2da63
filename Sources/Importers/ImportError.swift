/// Why a file from another program could not be read. Cases name a line, never its text.
public enum ImportError: Error, Equatable, Sendable {
    /// The file is not UTF-8.
    case invalidUTF8
    /// Line `line` is not what the format has there.
    case malformed(line: Int, reason: String)
}
