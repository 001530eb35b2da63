import Foundation
import Testing
@testable import BookFiles
import TestSupport

extension TemporaryDirectory {
    /// A fresh directory for one test's book files.
    static func books() throws -> TemporaryDirectory { try TemporaryDirectory("bookfiles") }

    /// Writes `bytes` to `name` in the directory, making its folders, and returns its path.
    @discardableResult
    func put(_ bytes: [UInt8], at name: String) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try writeFile(bytes, to: target)
        return target
    }

    @discardableResult
    func put(_ text: String, at name: String) throws -> String {
        try put(Array(text.utf8), at: name)
    }
}

/// A tool a test runs failed.
struct ToolFailed: Error, CustomStringConvertible {
    let tool: String
    let status: Int32
    let output: String
    var description: String { "\(tool) exited \(status): \(output)" }
}

/// Where `tool` is on the PATH, nil when it is not installed.
func toolPath(_ tool: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs `tool` with `arguments` in `directory` and returns its output; a non-zero exit throws.
@discardableResult
func run(_ tool: String, _ arguments: [String], in directory: String? = nil) throws -> String {
    guard let executable = toolPath(tool) else { throw ToolFailed(tool: tool, status: -1, output: "not installed (Scripts/install installs it)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ToolFailed(tool: tool, status: process.terminationStatus, output: output) }
    return output
}

/// The error `inspect` throws for `path`, nil when it reads the file.
func inspectionError(_ path: String) -> BookFileError? {
    do {
        _ = try BookFileInspector.inspect(path: path)
        return nil
    } catch {
        return error
    }
}

/// Every string the inspection holds, so a test can say a file's text is in none of them.
func allText(_ inspection: BookFileInspection) throws -> String {
    String(decoding: try JSONEncoder().encode(inspection.metadata), as: UTF8.self)
}

/// A sentence no metadata field holds: put in a chapter, a damaged file, a name, it must never
/// come out of the inspector (in metadata or in an error's description).
let canary = "The heron counts seventeen silver umbrellas at dawn"
