import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP proxy in front of a test server that breaks HTTP exchanges on purpose, as
/// a hostile network would. Every exchange is one connection (the proxy asks both sides to
/// close after the response), so a fault hits exactly the request it was chosen for.
public final class FaultProxy: Sendable {
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)" }
    private let core: Core

    /// Listens on a free loopback port and forwards to `upstreamPort`; `choose` picks the
    /// fault for each request (numbered from 0).
    public init(upstreamPort: Int, choose: @escaping @Sendable (_ index: Int, _ method: String, _ path: String) -> Fault) throws {
        core = try Core(upstreamPort: upstreamPort, choose: choose)
        port = core.port
    }

    /// The faults chosen, one per request that arrived, in order.
    public var faultsChosen: [Fault] { core.faultsChosen }

    deinit {
        core.stop()
    }

    /// What happens to one request.
    public enum Fault: Sendable, Equatable {
        /// Passed through untouched.
        case pass
        /// The connection is accepted and closed at once, nothing read: as if refused.
        case refuse
        /// Part of the request is read, then the connection is reset.
        case resetMidRequest
        /// The request reaches the server, which carries it out; its answer is never passed
        /// on (a timeout after the server applied it).
        case dropResponse
        /// Answered with this status by the proxy; the server never sees the request.
        case status(Int)
        /// The server's answer is held back this many seconds before it is passed on.
        case stall(seconds: Int)
        /// The server's answer is passed on one byte at a time, this many a second: never
        /// silent long enough for a stall timeout, as a hostile server would answer.
        case trickle(bytesPerSecond: Int)
    }

}

/// The proxy's sockets and threads; its threads hold it, never the ``FaultProxy``, so
/// releasing the proxy stops it.
private final class Core: Sendable {
    typealias Fault = FaultProxy.Fault
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let choose: @Sendable (_ index: Int, _ method: String, _ path: String) -> Fault
    private let state = Mutex(State())

    private struct State {
        var requests = 0
        var faults: [Fault] = []
        var stopped = false
    }

    var faultsChosen: [Fault] { state.withLock { $0.faults } }

    init(upstreamPort: Int, choose: @escaping @Sendable (_ index: Int, _ method: String, _ path: String) -> Fault) throws {
        self.upstreamPort = upstreamPort
        self.choose = choose
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw WebDAVServer.ServerFailure(message: "no socket for the proxy") }
        var reuse: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound, listen(socket, 64) == 0 else {
            close(socket)
            throw WebDAVServer.ServerFailure(message: "the proxy could not listen")
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            Thread { [self] in handle(client) }.start()
        }
    }

    private func handle(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let (head, body) = Self.readRequest(client) else { return }
        let requestLine = head.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ")
        let method = requestLine.first.map(String.init) ?? ""
        let path = requestLine.dropFirst().first.map(String.init) ?? ""
        let fault = state.withLock { state -> Fault in
            let fault = choose(state.requests, method, path)
            state.requests += 1
            state.faults.append(fault)
            return fault
        }
        switch fault {
        case .refuse:
            return
        case .resetMidRequest:
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return
        case .status(let status):
            Self.send(client, Array("HTTP/1.1 \(status) Injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        case .pass, .dropResponse, .stall, .trickle:
            break
        }
        guard let response = forward(head: head, body: body) else { return }
        switch fault {
        case .dropResponse:
            return
        case .stall(let seconds):
            sleep(UInt32(seconds))
        case .trickle(let rate):
            // Until the whole answer is out, or the client gave up and closed.
            for byte in response {
                guard Self.send(client, [byte]) else { return }
                usleep(UInt32(1_000_000 / max(1, rate)))
            }
            return
        default:
            break
        }
        Self.send(client, response)
    }

    /// The request to the server on a connection of its own, and the server's whole answer.
    private func forward(head: String, body: [UInt8]) -> [UInt8]? {
        let upstream = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return nil }
        // One exchange per connection: the server is asked to close after answering.
        var lines = head.components(separatedBy: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") && !$0.isEmpty }
        lines.append("Connection: close")
        Self.send(upstream, Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(upstream, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        return response.isEmpty ? nil : response
    }

    /// The request's head (through the blank line, as text) and its body (by Content-Length).
    private static func readRequest(_ socket: Int32) -> (String, [UInt8])? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
            if received.count >= 4 {
                headEnd = (0...(received.count - 4)).first { Array(received[$0..<($0 + 4)]) == separator }
            }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: received[0..<headEnd], as: UTF8.self)
        let length = head.components(separatedBy: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = Array(received[(headEnd + 4)...])
        while body.count < length {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        return (head, body)
    }

    /// Whether every byte went out (false: the other side closed).
    @discardableResult
    private static func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
