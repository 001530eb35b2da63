import Foundation
import Testing

/// FileIO as the one seam, as a gate over the source tree (like SyncTests'
/// StructuralGateTests): it fails the day a module calls the file system on its own again.
@Suite struct SeamGateTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // FileIOTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // the package

    /// Every Swift file under Sources, as (path relative to the package, text).
    static func sources() throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent("Sources")
        guard let enumerator = FileManager.default.enumerator(atPath: base.path) else { return [] }
        var files: [(String, String)] = []
        for case let relative as String in enumerator where relative.hasSuffix(".swift") {
            files.append(("Sources/" + relative, try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    @Test func onlyFileIOImportsCFileIOAndInternally() throws {
        var importers: [String] = []
        for file in try Self.sources() where file.text.contains("import CFileIO") {
            importers.append(file.path)
            #expect(file.path.hasPrefix("Sources/FileIO/"), "\(file.path) imports CFileIO")
            #expect(file.text.contains("internal import CFileIO"), "\(file.path) imports CFileIO without `internal`")
        }
        #expect(!importers.isEmpty)
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let users = package.components(separatedBy: "\n").filter { $0.contains("\"CFileIO\"") && $0.contains(".target(") }
        #expect(users.count == 1 && users[0].contains("name: \"FileIO\""), "\(users)")
    }

    /// Marks of a file-system call made directly: open flags, directory streams, flushes,
    /// locks, Foundation's file APIs, glibc symbols reached by name.
    @Test func noOtherModuleCallsTheFileSystemItself() throws {
        let direct = try Regex(#"\bO_(CREAT|RDONLY|WRONLY|RDWR|CLOEXEC)\b|\b(opendir|readdir|fsync|syncfs|flock|lstat|statvfs|mkdtemp)\(|Glibc\.(open|read|write|close|rename|link|unlink|mkdir)\(|\bFileManager\.|\bFileHandle\.|@_silgen_name|= stat\(\)"#)
        // The benchmark tool is not shipped.
        let outside = ["Sources/FileIO/", "Sources/bmvault-bench-journal/"]
        var checked = 0
        for file in try Self.sources() where !outside.contains(where: file.path.hasPrefix) {
            checked += 1
            var text = file.text
            // A signal handler may call only async-signal-safe functions, not FileIO's Swift.
            if file.path == "Sources/Telemetry/FailureReport.swift", let start = text.range(of: "private static let crashHandler"),
               let end = text.range(of: "\n    }\n", range: start.upperBound..<text.endIndex) {
                text.removeSubrange(start.lowerBound..<end.upperBound)
            }
            for (number, line) in text.components(separatedBy: "\n").enumerated() where line.contains(direct) {
                Issue.record("\(file.path):\(number + 1) calls the file system without FileIO: \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 100)
    }
}
