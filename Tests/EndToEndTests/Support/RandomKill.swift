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

extension TestVault {
    /// Starts `bmvault arguments` for this vault and kills it with SIGKILL after
    /// `microseconds` (it may have finished by then); returns whether the kill landed.
    @discardableResult
    func runKilled(_ arguments: [String], stdin: String? = nil, after microseconds: UInt32) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        usleep(microseconds)
        let landed = kill(process.processIdentifier, SIGKILL) == 0 && process.isRunning
        process.waitUntilExit()
        return landed && process.terminationReason == .uncaughtSignal
    }
}
