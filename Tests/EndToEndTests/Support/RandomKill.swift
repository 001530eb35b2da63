import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Killing a bmvault with SIGKILL at a moment drawn from a seed (the kill -9 matrix, issue 23).
enum RandomKill {
    static let runsPerCommand = 6

    /// `runsPerCommand` delays in microseconds below `maximum`, the same for the same seed.
    static func delays(seed: UInt64, upTo maximum: UInt32) -> [UInt32] {
        var generator = SeededGenerator(seed: seed)
        return (0..<runsPerCommand).map { _ in UInt32(generator.next() % UInt64(maximum)) }
    }
}

/// How a command the matrix tried to kill ended: killed, or finished on its own first, with
/// its exit status and what it said on standard error (so a test can tell a write that was
/// lost from a command that failed, say a keyring that did not answer on a loaded machine).
enum KillOutcome: Equatable {
    case killed
    case exited(status: Int32, stderr: String)
}

extension TestVault {
    /// Starts `bmvault arguments` for this vault and kills it with SIGKILL after
    /// `microseconds` (it may have finished by then); returns whether the kill landed.
    @discardableResult
    func runKilled(_ arguments: [String], stdin: String? = nil, after microseconds: UInt32) throws -> Bool {
        try runKilledOutcome(arguments, stdin: stdin, after: microseconds) == .killed
    }

    /// ``runKilled(_:stdin:after:)``, saying how the command ended.
    func runKilledOutcome(_ arguments: [String], stdin: String? = nil, after microseconds: UInt32) throws -> KillOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        usleep(microseconds)
        let landed = kill(process.processIdentifier, SIGKILL) == 0 && process.isRunning
        // A command's standard error is a line or two: read to its end, then reaped.
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if landed && process.terminationReason == .uncaughtSignal { return .killed }
        return .exited(status: process.terminationStatus, stderr: said)
    }
}
