import Foundation
import Testing
@testable import Telemetry

/// The log file: private directory and file, appended line by line, rotated at 1 MiB into
/// `.1` and `.2`, never more.
@Suite struct FileSinkTests {
    @Test func createsThePrivateDirectoryAndFile() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("state/deeper/bmvault").path
        let sink = FileSink(directory: directory)
        #expect(sink.path == directory + "/bmvault.log")
        sink.write("first", level: .notice)
        #expect(mode(of: root.appendingPathComponent("state").path) == 0o700)
        #expect(mode(of: directory) == 0o700)
        #expect(mode(of: sink.path) == 0o600)
    }

    @Test func aFileThatWasReadableByOthersIsMadePrivateOnTheNextWrite() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let sink = FileSink(directory: root.path)
        _ = FileManager.default.createFile(atPath: sink.path, contents: Data("old\n".utf8), attributes: [.posixPermissions: 0o644])
        #expect(mode(of: sink.path) == 0o644)
        sink.write("new", level: .notice)
        #expect(mode(of: sink.path) == 0o600)
        #expect(try String(contentsOfFile: sink.path, encoding: .utf8) == "old\nnew\n")
    }

    @Test func appendsOneLinePerWriteAndReadsTheRecentOnes() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let sink = FileSink(directory: root.path)
        #expect(sink.recentLines(10) == [])
        for index in 1...7 { sink.write("line \(index)", level: .info) }
        #expect(try String(contentsOfFile: sink.path, encoding: .utf8) == (1...7).map { "line \($0)\n" }.joined())
        #expect(sink.recentLines(3) == ["line 5", "line 6", "line 7"])
        #expect(sink.recentLines(100).count == 7)
        // A second sink on the same directory appends, it does not truncate.
        FileSink(directory: root.path).write("line 8", level: .info)
        #expect(sink.recentLines(2) == ["line 7", "line 8"])
    }

    @Test func rotatesAtOneMebibyteKeepingTwoOlderFilesAndNoMore() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let sink = FileSink(directory: root.path)
        #expect(FileSink.rotationBytes == 1 << 20)
        let filler = String(repeating: "x", count: 1000)
        let lineBytes = 7 + filler.utf8.count + 1
        let lines = (Int(3.5 * Double(1 << 20)) / lineBytes) + 1   // more than 3.5 MiB in all
        for index in 0..<lines { sink.write(String(format: "%06d ", index) + filler, level: .info) }

        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        #expect(names == ["bmvault.log", "bmvault.log.1", "bmvault.log.2"])
        var total = 0
        var numbers: [[Int]] = []
        for name in ["bmvault.log.2", "bmvault.log.1", "bmvault.log"] {
            let path = root.appendingPathComponent(name).path
            #expect(mode(of: path) == 0o600, "\(name)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let size = text.utf8.count
            total += size
            if name != "bmvault.log" {
                #expect(size >= 1 << 20 && size < (1 << 20) + lineBytes, "\(name) has \(size) bytes")
            } else {
                #expect(size <= (1 << 20) + lineBytes - 1, "\(name) has \(size) bytes")
            }
            numbers.append(text.split(separator: "\n").map { Int($0.prefix(6))! })
        }
        #expect(total <= 3 * (1 << 20) + 3 * lineBytes)
        // Oldest first across .2, .1 and the log, without gap, ending with the last line written;
        // the first lines were rotated away.
        let all = numbers.flatMap { $0 }
        #expect(all == Array(all.first!..<lines))
        #expect(all.first! > 0)
        #expect(sink.recentLines(1) == [String(format: "%06d ", lines - 1) + filler])
    }

    @Test func anExistingDirectoryKeepsItsMode() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: root.path)
        FileSink(directory: root.path).write("x", level: .notice)
        #expect(mode(of: root.path) == 0o750)
        #expect(mode(of: root.appendingPathComponent("bmvault.log").path) == 0o600)
    }
}
