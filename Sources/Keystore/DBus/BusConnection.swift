#if canImport(Glibc)
import Glibc
#endif

/// One authenticated connection to the session bus, for the length of one keystore
/// operation.
///
/// Calls are pipelined: ``send(_:)`` only queues a message, and the first ``reply(to:)``
/// writes everything queued at once (the authentication, `Hello`, and the calls), then
/// reads until the wanted reply arrives, keeping any other reply for later. A lookup thus
/// costs three round trips to the bus (``SecretServiceClient`` explains the first) instead
/// of one per call.
///
/// The connection hangs up only once every call it sent has been answered (or its
/// deadline has passed): gnome-keyring 42 can abort when a client leaves with a session
/// still being opened, and every application's unlocked secrets go with it.
final class BusConnection {
    let deadline: Deadline
    private let socket: BusSocket
    private let outgoing: SecureByteBuffer
    private let incoming: SecureByteBuffer
    private var nextSerial: UInt32 = 1
    private var authenticated = false
    private var helloSerial: UInt32 = 0
    private var replies: [UInt32: Message] = [:]
    /// Calls queued in `outgoing`, not yet written.
    private var queued: [UInt32] = []
    /// Calls written whose answer has not been read yet.
    private var unanswered: Set<UInt32> = []

    /// Connects to the session bus and queues the authentication and `Hello`.
    init(deadline: Deadline) throws(KeystoreError) {
        self.deadline = deadline
        socket = try BusSocket(address: try BusAddress.session(), deadline: deadline)
        outgoing = try SecureByteBuffer()
        incoming = try SecureByteBuffer()
        // SASL EXTERNAL: the bus checks our uid against the socket's credentials. BEGIN is
        // sent without waiting for OK (as sd-bus does): messages may follow it at once.
        let uid = String(getuid()).utf8.map { digit in String(digit, radix: 16) }.joined()
        try outgoing.append(utf8: "\0AUTH EXTERNAL " + uid + "\r\nBEGIN\r\n")
        helloSerial = try send(MethodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          interface: "org.freedesktop.DBus", member: "Hello"))
    }

    deinit {
        // Read the answers nobody waited for (a lookup that found nothing leaves the
        // session's); a failure or the deadline ends the wait.
        while !unanswered.isEmpty {
            do { try readMessage() } catch { break }
        }
    }

    /// Queues `call` and returns its serial, to wait for with ``reply(to:)``.
    @discardableResult
    func send(_ call: MethodCall) throws(KeystoreError) -> UInt32 {
        let serial = nextSerial
        nextSerial += 1
        try call.encode(serial: serial, into: outgoing)
        queued.append(serial)
        return serial
    }

    /// The reply to the call with `serial`. An error reply is thrown, mapped by its name.
    func reply(to serial: UInt32) throws(KeystoreError) -> Message {
        try flush()
        while true {
            if let message = replies.removeValue(forKey: serial) {
                if message.kind == .error { throw Self.error(named: message.errorName, timeoutMilliseconds: deadline.timeoutMilliseconds) }
                return message
            }
            try readMessage()
        }
    }

    // MARK: - Private

    private func flush() throws(KeystoreError) {
        guard outgoing.count > 0 else { return }
        try outgoing.withUnsafeBytes { (raw) throws(KeystoreError) in try socket.send(raw, deadline: deadline) }
        outgoing.removeAll()
        unanswered.formUnion(queued)
        queued.removeAll()
    }

    /// Reads until one more whole message is in, and files it if it is a reply.
    private func readMessage() throws(KeystoreError) {
        if !authenticated { try readAuthenticationReply() }
        while true {
            let length = try incoming.withUnsafeBytes { (raw) throws(KeystoreError) in try Message.length(ofFirstIn: raw) }
            if let length, incoming.count >= length {
                let bytes = try SecureByteBuffer(capacity: length)
                try incoming.withUnsafeBytes { (raw) throws(KeystoreError) in
                    try bytes.append(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
                }
                incoming.removeFirst(length)
                let message = try Message(taking: bytes)
                guard message.kind == .methodReturn || message.kind == .error, let replySerial = message.replySerial else {
                    return  // a signal (NameAcquired after Hello) or a call: not ours to answer
                }
                unanswered.remove(replySerial)
                if replySerial == helloSerial {
                    if message.kind == .error { throw Self.error(named: message.errorName, timeoutMilliseconds: deadline.timeoutMilliseconds) }
                    return
                }
                replies[replySerial] = message
                return
            }
            try socket.receive(into: incoming, deadline: deadline)
        }
    }

    /// The bus's answer to AUTH: `OK <guid>` or a rejection.
    private func readAuthenticationReply() throws(KeystoreError) {
        while true {
            let lineEnd = incoming.withUnsafeBytes { raw -> Int? in
                guard raw.count >= 2 else { return nil }
                return (0..<(raw.count - 1)).first { raw[$0] == 13 && raw[$0 + 1] == 10 }
            }
            if let lineEnd {
                let accepted = incoming.withUnsafeBytes { $0.starts(with: "OK ".utf8) }
                incoming.removeFirst(lineEnd + 2)
                guard accepted else { throw BusProtocolFailure.authenticationRejected.error }
                authenticated = true
                return
            }
            guard incoming.count < 512 else { throw BusProtocolFailure.authenticationRejected.error }
            try socket.receive(into: incoming, deadline: deadline)
        }
    }

    /// Maps a D-Bus error name to what it means for bmvault. Names are kept (they are
    /// protocol identifiers, never content), unless one does not look like a name.
    static func error(named name: String?, timeoutMilliseconds: Int) -> KeystoreError {
        guard let name, !name.isEmpty, name.utf8.count <= 255,
              name.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
        else { return BusProtocolFailure.malformedMessage.error }
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            // Nobody owns org.freedesktop.secrets and the bus could not start anyone.
            return .noProvider
        case _ where name.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            return .noProvider
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut":
            // The bus's own reply timeout fired first: only when our budget is longer.
            return .timedOut(milliseconds: timeoutMilliseconds)
        case "org.freedesktop.Secret.Error.IsLocked":
            return .keyringLocked
        default:
            return .failure(domain: name, code: 0)
        }
    }
}
