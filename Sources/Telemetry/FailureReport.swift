import Foundation
#if canImport(Glibc)
import Glibc
#endif
internal import FileIO

/// Reports of failures that deserve a file of their own (a failed migration, an unexpected
/// error, a crash), in `$XDG_STATE_HOME/bmvault/reports/`, apart from the vault.
///
/// A report carries only what the diagnostics bundle may: versions, the command, the error
/// case, and the most recent (already scrubbed) log lines. Never content, never key material.
public enum FailureReport {
    public static let directoryName = "reports"
    /// Reports kept; older ones are deleted when a new one is written.
    static let keptReports = 20

    /// Writes a report and returns its path (nil only means it could not be written; a
    /// report is a courtesy and never turns one failure into two).
    @discardableResult
    public static func write(stateDirectory: String, event: String, fields: KeyValuePairs<String, LogValue>,
                             recentLines: [String], scrubber: Scrubber = Scrubber()) -> String? {
        let directory = stateDirectory + "/" + directoryName
        guard FileSink.makePrivateDirectory(directory) else { return nil }
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let stamp = Scrubber.iso8601(now).replacingAll(":", with: "-")
        // The pid and a random suffix: two reports in one millisecond never share a name.
        let path = "\(directory)/\(stamp)-\(Scrubber.safeName(event))-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).txt"
        var text = "bmvault failure report\n"
        text += scrubber.line(for: LogEvent(millisecondsSince1970: now, level: .error, name: event,
                                            fields: fields.map { (key: $0.key, value: $0.value) })) + "\n"
        text += "\nrecent log lines:\n" + recentLines.map { "  " + $0 + "\n" }.joined()
        guard let descriptor = try? FileDescriptor.create(path, permissions: 0o600) else { return nil }
        let written = (try? descriptor.writeAll(text)) != nil
        try? descriptor.close()
        guard written else { return nil }
        removeOldReports(in: directory)
        return path
    }

    /// Keeps the newest ``keptReports`` reports (their names start with a UTC timestamp).
    private static func removeOldReports(in directory: String) {
        guard let names = try? FileSystem.entries(of: directory) else { return }
        for name in names.filter({ $0.hasSuffix(".txt") }).sorted().dropLast(keptReports) {
            try? FileSystem.unlink(directory + "/" + name)
        }
    }
}

/// On a fatal signal (a crash, a Swift runtime trap), writes a short report with the signal
/// and the command, then lets the process die as it would have.
///
/// A signal handler may only call async-signal-safe functions, so everything it writes is
/// prepared at ``install(stateDirectory:command:)`` as C strings, and it makes its system
/// calls itself rather than through FileIO, whose Swift code may allocate.
public enum CrashReporter {
    nonisolated(unsafe) private static var stateDirectory: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var reportsDirectory: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var reportPath: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var header: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var headerLength = 0
    nonisolated(unsafe) private static var removeOnCrashPath: UnsafeMutablePointer<CChar>?

    /// Arms the handler for this process, and turns core dumps off: a core file would hold
    /// whatever journal text the process had decrypted.
    public static func install(stateDirectory: String, command: String, version: String) {
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
        let directory = stateDirectory + "/" + FailureReport.directoryName
        let stamp = Scrubber.iso8601(Int64((Date().timeIntervalSince1970 * 1000).rounded())).replacingAll(":", with: "-")
        free(Self.stateDirectory)
        free(reportsDirectory)
        free(reportPath)
        free(header)
        // The directories are made only if a crash happens (mkdir is async-signal-safe).
        Self.stateDirectory = strdup(stateDirectory)
        reportsDirectory = strdup(directory)
        reportPath = strdup("\(directory)/\(stamp)-crash-\(getpid()).txt")
        let text = "bmvault crash report\nversion=\(version) command=\(Scrubber.quoted(command))\nsignal="
        header = strdup(text)
        headerLength = text.utf8.count
        for signalNumber in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = crashHandler
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// A file to delete if the process crashes (the editor buffer), or nil for none.
    public static func removeOnCrash(_ path: String?) {
        let previous = removeOnCrashPath
        removeOnCrashPath = path.map { strdup($0) }
        free(previous)
    }

    private static let crashHandler: @convention(c) (Int32) -> Void = { signalNumber in
        if let path = CrashReporter.removeOnCrashPath { unlink(path) }
        if let directory = CrashReporter.stateDirectory { mkdir(directory, 0o700) }
        if let directory = CrashReporter.reportsDirectory { mkdir(directory, 0o700) }
        if let path = CrashReporter.reportPath, let header = CrashReporter.header {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                _ = Glibc.write(descriptor, header, CrashReporter.headerLength)
                // The signal number, in decimal, without allocating.
                var digits: (CChar, CChar, CChar, CChar) = (0, 0, 0, 10)
                var value = signalNumber
                withUnsafeMutableBytes(of: &digits) { buffer in
                    var index = 2
                    repeat {
                        buffer[index] = UInt8(48 + value % 10)
                        value /= 10
                        index -= 1
                    } while value > 0 && index >= 0
                    let start = index + 1
                    _ = Glibc.write(descriptor, buffer.baseAddress! + start, 4 - start)
                }
                close(descriptor)
            }
        }
        raise(signalNumber)
    }
}

extension String {
    /// This text with every `target` replaced: for file names made from timestamps.
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
