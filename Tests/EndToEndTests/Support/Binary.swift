import Foundation

/// Runs the built `bmvault` binary (and helper programs) as a reader would: a real
/// process, real arguments, real standard streams.
enum Binary {
    /// The `bmvault` built beside this test bundle (`swift build` puts both in one
    /// directory), or `$BMVAULT_BINARY`.
    static let path: String = {
        if let explicit = ProcessInfo.processInfo.environment["BMVAULT_BINARY"] { return explicit }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("bmvault")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bmvault").path
    }()

    /// Runs `executable` with `arguments`; `stdin` is fed to it (nil: /dev/null).
    /// Output goes through temporary files, so a large listing cannot deadlock a pipe.
    ///
    /// Spawned with posix_spawn and reaped with waitpid rather than Foundation's Process,
    /// which waits for every inheritor of its private pipe: a command that starts a
    /// daemon (gnome-keyring-daemon) would never be seen to finish.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil,
                    environment: [String: String]) throws -> CommandResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inPath = scratch.appendingPathComponent("in").path
        let outPath = scratch.appendingPathComponent("out").path
        let errPath = scratch.appendingPathComponent("err").path
        try Data((stdin ?? "").utf8).write(to: URL(fileURLWithPath: inPath))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin == nil ? "/dev/null" : inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        // A clean signal state: the test runner's threads block most signals, and a child
        // would inherit that mask, so a signal test would pass without testing anything.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnError(executable: executable, code: spawned) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = status & 0x7f == 0
        return CommandResult(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f),
                             stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                             stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }
}

struct SpawnError: Error {
    let executable: String
    let code: Int32
}
