internal import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for a program bmvault started (the editor, a passphrase command).
enum ChildProcess {
    /// Waits for `child` to end and returns its exit status, or 128 + the signal that ended it.
    static func waitForExit(_ child: pid_t) throws(CLIError) -> Int32 {
        var status: Int32 = 0
        do {
            _ = try systemCall(FileIOError.Operation(rawValue: "waitpid")) { waitpid(child, &status, 0) }
        } catch {
            throw .system(error)
        }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let signalled = status & 0x7f
        return signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
    }
}
