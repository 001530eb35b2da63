import Foundation
import Synchronization
@testable import Telemetry

/// A sink that keeps what it was given, for assertions.
final class CollectingSink: LogSink {
    private let storage = Mutex<[(line: String, level: LogLevel)]>([])

    func write(_ line: String, level: LogLevel) {
        storage.withLock { $0.append((line, level)) }
    }

    var lines: [String] { storage.withLock { $0.map(\.line) } }
    var levels: [LogLevel] { storage.withLock { $0.map(\.level) } }
}

/// A fresh directory under the temporary directory, removed by the caller.
func temporaryDirectory(_ label: String = "bmv-telemetry") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The permission bits of the file at `path` (as `stat` sees them, not following nothing).
func mode(of path: String) -> Int? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o7777)
}

/// A value nobody would write by chance: it must never appear in a scrubbed line.
func makeCanary(_ label: String = "") -> String {
    "BMV-CANARY-\(label)\(UUID().uuidString)"
}

/// One event at a fixed time, so a rendered line can be compared exactly.
func event(_ name: String, level: LogLevel = .notice, _ fields: KeyValuePairs<String, LogValue> = [:]) -> LogEvent {
    LogEvent(millisecondsSince1970: 0, level: level, name: name, fields: fields.map { (key: $0.key, value: $0.value) })
}

let epoch = "1970-01-01T00:00:00.000Z"
