import Foundation

/// A D-Bus session bus of one test's own, with nothing activatable on it: a Secret
/// Service exists on it only if the test starts one (gnome-keyring, or a provider that
/// never answers). Stopped, with whatever runs on it, when the object goes away.
final class PrivateBus {
    let home: URL
    let address: String
    private let busProcess: Process
    private var children: [Process] = []

    /// A session bus whose configuration has no service directories.
    init() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("bmv-bus-\(UUID().uuidString)")
        for name in ["run", "data"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(name), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let config = home.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:tmpdir=\(home.path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        // Not --fork: a daemonizing child confuses Foundation's Process; run it in the
        // foreground and read the address it prints from a file.
        let addressFile = home.appendingPathComponent("address")
        _ = FileManager.default.createFile(atPath: addressFile.path, contents: nil)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address"]
        daemon.standardOutput = try FileHandle(forWritingTo: addressFile)
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        busProcess = daemon
        var printed = ""
        for _ in 0..<250 where !printed.hasSuffix("\n") {
            usleep(20_000)
            printed = (try? String(contentsOf: addressFile, encoding: .utf8)) ?? ""
        }
        guard printed.hasSuffix("\n") else {
            kill(daemon.processIdentifier, SIGKILL)
            throw PrivateBusError.couldNotStart("dbus-daemon printed no address")
        }
        address = printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// why SIGKILL, not `terminate()`: a process started from a test inherits the test
    /// thread's blocked signals, SIGTERM among them, and would outlive the test.
    deinit {
        for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL) }
        stopKeyringDaemons()
        kill(busProcess.processIdentifier, SIGKILL)
        busProcess.waitUntilExit()
        try? FileManager.default.removeItem(at: home)
    }

    /// gnome-keyring-daemon daemonizes, so it is not one of `children`: find the ones
    /// started on this bus by the private runtime directory in their environment.
    private func stopKeyringDaemons() {
        let marker = Data("XDG_RUNTIME_DIR=\(home.appendingPathComponent("run").path)\u{0}".utf8)
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for name in processes {
            guard let pid = Int32(name),
                  let command = try? String(contentsOfFile: "/proc/\(name)/comm", encoding: .utf8),
                  command.hasPrefix("gnome-keyring-d"),
                  let environ = FileManager.default.contents(atPath: "/proc/\(name)/environ"),
                  environ.range(of: marker) != nil else { continue }
            kill(pid, SIGKILL)
        }
    }

    /// The environment of a process on this bus, with a private runtime and data home.
    func environment(_ base: [String: String]) -> [String: String] {
        var environment = base
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["XDG_RUNTIME_DIR"] = home.appendingPathComponent("run").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        return environment
    }

    /// Starts gnome-keyring's Secret Service on this bus, with an unlocked login keyring.
    func startKeyring() throws {
        let result = try Binary.run("/bin/sh", ["-c", "echo -n bus-test | gnome-keyring-daemon --unlock --components=secrets"],
                                    environment: environment(ProcessInfo.processInfo.environment))
        guard result.status == 0 else { throw PrivateBusError.couldNotStart(result.description) }
        try waitForSecretService()
    }

    /// Starts a process that owns `org.freedesktop.secrets` and never answers a call.
    func startSilentProvider() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-test-tool")
        process.arguments = ["black-hole", "--session", "--name=org.freedesktop.secrets"]
        process.environment = environment(ProcessInfo.processInfo.environment)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        children.append(process)
        try waitForSecretService()
    }

    /// Calls a method on the bus with dbus-send (used to lock a keyring collection).
    func send(_ arguments: [String]) throws -> CommandResult {
        try Binary.run("/usr/bin/dbus-send", ["--session", "--print-reply"] + arguments,
                       environment: environment(ProcessInfo.processInfo.environment))
    }

    private func waitForSecretService() throws {
        for _ in 0..<100 {
            let reply = try send(["--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                                  "string:org.freedesktop.secrets"])
            if reply.stdout.contains("boolean true") { return }
            usleep(20_000)
        }
        throw PrivateBusError.couldNotStart("org.freedesktop.secrets never appeared")
    }
}

enum PrivateBusError: Error {
    case couldNotStart(String)
}
