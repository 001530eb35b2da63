internal import FileIO
import Synchronization

/// The log file, `$XDG_STATE_HOME/bmvault/bmvault.log`: directory 0700, file 0600, one
/// scrubbed line per event. At ``rotationBytes`` it becomes `bmvault.log.1` (the previous
/// `.1` becomes `.2`, and older ones go), so the log never holds more than three files.
public final class FileSink: LogSink {
    public static let fileName = "bmvault.log"
    public static let rotationBytes: Int64 = 1 << 20
    static let keptFiles = 2

    public let directory: String
    public var path: String { directory + "/" + Self.fileName }
    private let lock = Mutex(())

    public init(directory: String) {
        self.directory = directory
    }

    public func write(_ line: String, level: LogLevel) {
        lock.withLock { _ in
            guard Self.makePrivateDirectory(directory) else { return }
            rotateIfNeeded()
            guard let descriptor = try? FileDescriptor.open(path, .writeOnly, options: [.append, .create], permissions: 0o600) else { return }
            defer { try? descriptor.close() }
            try? descriptor.setPermissions(0o600)
            try? descriptor.writeAll(line + "\n")
        }
    }

    /// The last `count` lines of the current log file, for diagnostics.
    public func recentLines(_ count: Int) -> [String] {
        lock.withLock { _ in
            guard let bytes = try? FileSystem.readFile(at: path) else { return [] }
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
            return Array(lines.suffix(count))
        }
    }

    private func rotateIfNeeded() {
        guard let size = try? FileSystem.status(path).size, size >= Self.rotationBytes else { return }
        for index in stride(from: Self.keptFiles, to: 0, by: -1) {
            let older = "\(path).\(index)"
            let newer = index == 1 ? path : "\(path).\(index - 1)"
            try? FileSystem.rename(newer, to: older)
        }
    }

    /// Creates the state directory (and parents) owner-only; an existing one keeps its mode.
    static func makePrivateDirectory(_ path: String) -> Bool {
        (try? FileSystem.makeDirectories(path, permissions: 0o700)) != nil
    }
}

/// Log lines on standard error, for `--verbose` and `--debug`.
public struct StandardErrorSink: LogSink {
    public init() {}

    /// `bmvault[info] 2026-12-05T21:24:11.262Z cli.command.started ...`: the file's line,
    /// with its level said once, in the prefix.
    public func write(_ line: String, level: LogLevel) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let shown = parts.count == 3 && parts[1] == "\(level)" ? parts[0] + " " + parts[2] : Substring(line)
        try? FileDescriptor.standardError.writeAll("bmvault[\(level)] " + shown + "\n")
    }
}
