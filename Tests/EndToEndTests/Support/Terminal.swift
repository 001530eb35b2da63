import Foundation

/// Runs bmvault on a pseudo-terminal of its own (its controlling terminal, so `/dev/tty`
/// prompts work) and answers prompts as a person would: each reply is typed only after its
/// prompt has appeared. Python's `pty` module does the terminal work; standard output and
/// error arrive together as `stdout`.
enum Terminal {
    private static let driver = #"""
        import json, os, pty, select, sys, time
        argv, answers = json.loads(sys.argv[1]), json.loads(sys.argv[2])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(argv[0], argv)
        out, seen, deadline = b"", 0, time.time() + 60
        while time.time() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                out += data
            if answers:
                found = out.find(answers[0][0].encode(), seen)
                if found >= 0:
                    seen = found + len(answers[0][0])
                    os.write(fd, (answers[0][1] + "\n").encode())
                    answers.pop(0)
        else:
            os.kill(pid, 9)
            out += b"\n[terminal driver: timed out]"
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(out.decode("utf-8", "replace").replace("\r\n", "\n"))
        sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """#

    /// Runs `bmvault ARGUMENTS` on a terminal, typing `answers` (prompt, reply) in order.
    static func run(_ arguments: [String], answers: [(prompt: String, reply: String)],
                    environment: [String: String]) throws -> CommandResult {
        let argv = try JSONSerialization.data(withJSONObject: [Binary.path] + arguments)
        let replies = try JSONSerialization.data(withJSONObject: answers.map { [$0.prompt, $0.reply] })
        return try Binary.run("/usr/bin/python3", ["-c", driver, String(decoding: argv, as: UTF8.self), String(decoding: replies, as: UTF8.self)],
                              environment: environment)
    }
}
