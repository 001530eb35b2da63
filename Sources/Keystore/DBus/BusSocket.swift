#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking Unix stream socket to the bus, whose every wait is bounded by a
/// ``Deadline``. The one place the keystore makes system calls, so a fault (a bus that
/// went away, a peer that stopped reading) surfaces here as a typed error.
final class BusSocket {
    private let descriptor: Int32

    /// Connects to `address`. A socket that is missing or refuses us means there is no
    /// session bus to talk to.
    init(address: BusAddress, deadline: Deadline) throws(KeystoreError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw Self.systemError(errno) }
        self.descriptor = descriptor
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let name: [UInt8]
        switch address {
        case .path(let path): name = Array(path.utf8) + [0]
        case .abstract(let abstractName): name = [0] + Array(abstractName.utf8)
        }
        let capacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        guard name.count <= capacity else { throw .noSessionBus }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { path in
            path.copyBytes(from: name)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count)
        while true {
            let status = withUnsafePointer(to: &socketAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
            }
            if status == 0 { return }
            switch errno {
            case EINTR:
                continue
            case EAGAIN:
                // The listener's backlog is full: try again shortly, within the budget.
                try wait(for: 0, deadline: deadline, pauseMilliseconds: 5)
            case EINPROGRESS:
                try wait(for: Int16(POLLOUT), deadline: deadline)
                var failure: Int32 = 0
                var size = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &size)
                guard failure == 0 else { throw Self.connectError(failure) }
                return
            case let code:
                throw Self.connectError(code)
            }
        }
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes`, waiting while the socket's buffer is full.
    func send(_ bytes: UnsafeRawBufferPointer, deadline: Deadline) throws(KeystoreError) {
        var offset = 0
        while offset < bytes.count {
            // why MSG_NOSIGNAL: a bus that went away must be an error, not a SIGPIPE that kills bmvault.
            let written = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written > 0 {
                offset += written
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLOUT), deadline: deadline)
            case EPIPE, ECONNRESET: throw BusProtocolFailure.connectionClosed.error
            case let code: throw Self.systemError(code)
            }
        }
    }

    /// Waits for bytes and appends what arrives (at least one byte) to `buffer`.
    func receive(into buffer: SecureByteBuffer, deadline: Deadline) throws(KeystoreError) {
        try buffer.reserve(4096)
        while true {
            let received = buffer.fill(upTo: buffer.capacity - buffer.count) { space in
                recv(descriptor, space.baseAddress, space.count, 0)
            }
            if received > 0 { return }
            if received == 0 { throw BusProtocolFailure.connectionClosed.error }
            switch errno {
            case EINTR: continue
            case EAGAIN: try wait(for: Int16(POLLIN), deadline: deadline)
            case ECONNRESET: throw BusProtocolFailure.connectionClosed.error
            case let code: throw Self.systemError(code)
            }
        }
    }

    /// Waits until the socket is ready for `events`, or only pauses when `events` is 0.
    private func wait(for events: Int16, deadline: Deadline, pauseMilliseconds: Int32? = nil) throws(KeystoreError) {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        let timeout = min(try deadline.remainingMilliseconds(), pauseMilliseconds ?? .max)
        let ready = events == 0 ? poll(nil, 0, timeout) : poll(&request, 1, timeout)
        if ready < 0, errno != EINTR { throw Self.systemError(errno) }
        if ready == 0, pauseMilliseconds == nil { throw .timedOut(milliseconds: deadline.timeoutMilliseconds) }
    }

    private static func connectError(_ code: Int32) -> KeystoreError {
        switch code {
        case ENOENT, ECONNREFUSED, ENOTDIR, EACCES, EPERM, ENAMETOOLONG: .noSessionBus
        default: systemError(code)
        }
    }

    private static func systemError(_ code: Int32) -> KeystoreError {
        .failure(domain: "errno", code: code)
    }
}
