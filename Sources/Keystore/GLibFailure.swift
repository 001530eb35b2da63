internal import CSecret

/// Turns a `GError` from libsecret, GIO or GDBus into a ``KeystoreError``, and frees it.
///
/// Only the error's domain, its code and (for a remote error) its D-Bus error name are read,
/// never its message: a message may quote anything, including attribute values or paths,
/// and would end up in logs and terminal output.
enum GLibFailure {
    /// The D-Bus names that mean nobody owns `org.freedesktop.secrets` and it cannot be activated.
    static let noProviderNames: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Spawn.ExecFailed", "org.freedesktop.DBus.Error.Spawn.ChildExited",
        "org.freedesktop.DBus.Error.Spawn.ServiceNotFound", "org.freedesktop.DBus.Error.Spawn.ChildSignaled",
        "org.freedesktop.DBus.Error.Spawn.Failed", "org.freedesktop.DBus.Error.Spawn.FileInvalid",
    ]
    /// The D-Bus names that mean the bus itself gave up waiting.
    static let timeoutNames: Set<String> = [
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut",
    ]

    /// Consumes `error` (frees it) and returns what it means for the keystore. A call that
    /// failed after the deadline ran out timed out, whatever libsecret reports.
    static func consume(_ error: UnsafeMutablePointer<GError>, deadline: Deadline) -> KeystoreError {
        defer { g_error_free(error) }
        if deadline.hasExpired { return .timedOut(milliseconds: deadline.timeoutMilliseconds) }
        let domain = error.pointee.domain
        let code = error.pointee.code
        if domain == bmvault_io_error_quark() && code == Int32(G_IO_ERROR_CANCELLED.rawValue) {
            return .timedOut(milliseconds: deadline.timeoutMilliseconds)
        }
        if let remoteName = g_dbus_error_get_remote_error(error) {
            defer { g_free(remoteName) }
            return classify(remoteName: String(cString: remoteName), timeoutMilliseconds: deadline.timeoutMilliseconds)
        }
        let domainName = g_quark_to_string(domain).map { String(cString: $0) } ?? "unknown"
        return .failure(domain: domainName, code: code)
    }

    /// What a D-Bus error name means. A name that is not a well-formed D-Bus name is not
    /// repeated: a hostile provider must not get arbitrary text into our error messages.
    static func classify(remoteName name: String, timeoutMilliseconds: Int) -> KeystoreError {
        if noProviderNames.contains(name) { return .noProvider }
        if timeoutNames.contains(name) { return .timedOut(milliseconds: timeoutMilliseconds) }
        if name == "org.freedesktop.Secret.Error.IsLocked" { return .keyringLocked }
        guard isWellFormedErrorName(name) else { return .failure(domain: "bmvault-malformed-error-name", code: 0) }
        return .failure(domain: name, code: 0)
    }

    /// A D-Bus error name: at most 255 bytes of ASCII letters, digits, `_` and `.`, with a dot.
    private static func isWellFormedErrorName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255, bytes.contains(UInt8(ascii: ".")) else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}
