import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

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
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            fchmod(descriptor, 0o600)
            var text = line + "\n"
            text.withUTF8 { utf8 in _ = Glibc.write(descriptor, utf8.baseAddress, utf8.count) }
        }
    }

    /// The last `count` lines of the current log file, for diagnostics.
    public func recentLines(_ count: Int) -> [String] {
        lock.withLock { _ in
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            return Array(lines.suffix(count))
        }
    }

    private func rotateIfNeeded() {
        var info = stat()
        guard stat(path, &info) == 0, Int64(info.st_size) >= Self.rotationBytes else { return }
        for index in stride(from: Self.keptFiles, to: 0, by: -1) {
            let older = "\(path).\(index)"
            let newer = index == 1 ? path : "\(path).\(index - 1)"
            rename(newer, older)
        }
    }

    /// Creates the state directory (and parents) owner-only; an existing one keeps its mode.
    static func makePrivateDirectory(_ path: String) -> Bool {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}

/// Log lines on standard error, for `--verbose` and `--debug`.
public struct StandardErrorSink: LogSink {
    public init() {}

    public func write(_ line: String, level: LogLevel) {
        var text = "bmvault[\(level)] " + line + "\n"
        text.withUTF8 { utf8 in _ = Glibc.write(2, utf8.baseAddress, utf8.count) }
    }
}
