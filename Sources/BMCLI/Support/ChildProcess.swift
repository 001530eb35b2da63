internal import FileIO
#if canImport(Glibc)
import Glibc
#endif

/// Starting and waiting for a program bmvault runs (the editor, a passphrase command).
enum ChildProcess {
    /// Starts `arguments` (the first is the program, looked up in `PATH`: `posix_spawnp`,
    /// with no shell unless the program is one), with the signals in `defaultSignals` back
    /// to their default actions and standard input or output replaced where given. Returns
    /// the child's pid, or nil when it could not be started (the caller says what that means).
    /// With `environment`, the child gets it instead of bmvault's own (the program is looked
    /// up in bmvault's own `PATH`).
    static func spawn(_ arguments: [String], defaultSignals: [Int32] = [], standardInput: FileDescriptor? = nil,
                      standardOutput: FileDescriptor? = nil, environment: [String: String]? = nil) -> pid_t? {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = (environment ?? [:]).map { strdup($0.key + "=" + $0.value) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        guard let program = argv.first ?? nil else { return nil }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if !defaultSignals.isEmpty {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signalNumber in defaultSignals { sigaddset(&defaults, signalNumber) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput.rawValue, 0) }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput.rawValue, 1) }
        var child: pid_t = 0
        let started = environment == nil ? posix_spawnp(&child, program, &actions, &attributes, &argv, environ)
            : posix_spawnp(&child, program, &actions, &attributes, &argv, &envp)
        guard started == 0 else { return nil }
        return child
    }

    /// The first regular, executable file called `name` in the directories of `$PATH`
    /// (absolute ones only), as a shell would find it.
    static func find(_ name: String, environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let path = directory + "/" + name
            if (try? FileSystem.status(path))?.kind == .regular, (try? FileSystem.checkAccess(path, .search)) != nil { return path }
        }
        return nil
    }

    /// Waits for `child` to end and returns its exit status, or 128 + the signal that ended it.
    static func waitForExit(_ child: pid_t) throws(CLIError) -> Int32 {
        guard let status = try wait(for: child, options: 0) else { throw .system(operation: "waitpid", errno: ECHILD) }
        return status
    }

    /// `child`'s exit status (as ``waitForExit(_:)``) if it has ended, else nil at once: for
    /// a caller that reads the child's output and must not wait on the pipe once the child
    /// is gone (a process it left behind may hold the pipe open).
    static func exitStatus(of child: pid_t) throws(CLIError) -> Int32? {
        try wait(for: child, options: WNOHANG)
    }

    private static func wait(for child: pid_t, options: Int32) throws(CLIError) -> Int32? {
        var status: Int32 = 0
        let ended: pid_t
        do {
            ended = try systemCall(FileIOError.Operation(rawValue: "waitpid")) { waitpid(child, &status, options) }
        } catch {
            throw .system(error)
        }
        guard ended == child else { return nil }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let signalled = status & 0x7f
        return signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
    }
}
