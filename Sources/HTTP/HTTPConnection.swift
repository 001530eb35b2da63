internal import CCurl
import Glibc

/// HTTP/1.1 through libcurl: one handle for a run of requests, so they share one kept-alive
/// connection (one TLS handshake per sync, not per file). TLS is verified against the
/// system's CA store (or ``Settings/caFile``), the proxy variables are honoured as curl
/// honours them (but for plain HTTP, which goes to this machine only, ``ThisMachine``, and
/// never through a proxy), and every request has a connect timeout, a stall timeout and a
/// deadline that grows with the bytes it moves, within the connection's own deadline.
///
/// Not thread-safe: one connection per thread (a sync uses one).
public final class HTTPConnection {
    /// How a connection behaves; nothing in it is a secret but ``password``.
    public struct Settings: Sendable {
        /// Seconds to wait for a connection (TCP and TLS).
        public var connectTimeout = 15
        /// A transfer slower than ``stallBytesPerSecond`` for this many seconds is abandoned.
        public var stallSeconds = 30
        public var stallBytesPerSecond = 1
        /// Every request ends within this many seconds plus one for each
        /// ``minimumBytesPerSecond`` bytes it has sent or received (or is sending): a server
        /// that keeps answering, but slower than that on average, is abandoned as timed out.
        /// The stall floor alone lets a body trickled at 2 bytes a second run for ever.
        public var requestSeconds = 60
        public var minimumBytesPerSecond = 4096
        /// No request runs past this instant, whatever its own deadline: the bound on a whole
        /// run of requests (a sync's). Nil: none.
        public var deadline: ContinuousClock.Instant?
        /// PEM certificates to trust instead of the system's (a server with its own CA).
        public var caFile: String?
        public var user: String?
        /// Held only while the connection lives; libcurl keeps its own copy until then.
        public var password: String?

        public init() {}
    }

    private let settings: Settings
    private let handle: UnsafeMutableRawPointer

    public init(settings: Settings) throws(HTTPError) {
        _ = Self.globalInitialisation
        guard let handle = curl_easy_init() else { throw .transport(reason: "libcurl could not start") }
        self.settings = settings
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// libcurl's global state, made once per process before the first handle.
    private static let globalInitialisation: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// How many connections this handle opened so far: a run of requests should open one.
    public private(set) var connectionsMade = 0

    /// Sends `request` and returns the response, whatever its status; throws only when no
    /// response came (or one larger than `responseLimit` bytes).
    public func perform(_ request: HTTPRequest, responseLimit: Int = 16 << 20) throws(HTTPError) -> HTTPResponse {
        try perform(request, transfer: Transfer(upload: request.body.map(Transfer.Upload.init(bytes:)), responseLimit: responseLimit))
    }

    /// Sends `request` streaming: its body (`request.body` is not sent) is `count` bytes that
    /// `read` gives chunk by chunk (the bytes it wrote into the buffer, 0 at the end, nil to
    /// abandon the request), and a response of status `streamedStatus` (a file's 200, a
    /// listing's 207) goes to `receive` (false: stop) instead of into memory; any other
    /// response's body is kept, up to `responseLimit`. Memory stays at libcurl's buffers
    /// whatever the size of the body either way.
    public func perform(_ request: HTTPRequest, upload: (count: Int64, read: (UnsafeMutableRawBufferPointer) -> Int?)? = nil,
                        download receive: ((UnsafeRawBufferPointer) -> Bool)? = nil, streamedStatus: Int = 200,
                        responseLimit: Int = 16 << 20) throws(HTTPError) -> HTTPResponse {
        let transfer = Transfer(upload: upload.map { Transfer.Upload(count: $0.count, read: $0.read) }, responseLimit: responseLimit)
        transfer.sink = receive
        transfer.streamedStatus = streamedStatus
        return try perform(request, transfer: transfer)
    }

    private func perform(_ request: HTTPRequest, transfer: Transfer) throws(HTTPError) -> HTTPResponse {
        // Plain HTTP only to this machine, and never through a proxy (libcurl honours
        // `http_proxy` even for localhost unless `NO_PROXY` covers it).
        guard let target = ThisMachine.schemeAndHost(of: request.url),
              target.scheme == "https" || (target.scheme == "http" && ThisMachine.isLoopback(host: target.host)) else {
            throw .plainHTTPBeyondThisMachine
        }
        // What is left of the connection's deadline bounds the whole request, connecting
        // included; libcurl enforces it (CURLOPT_TIMEOUT_MS).
        var timeLeft: Int?
        if let deadline = settings.deadline {
            let left = ContinuousClock.now.duration(to: deadline).components
            let milliseconds = Int(left.seconds) * 1000 + Int(left.attoseconds / 1_000_000_000_000_000)
            guard milliseconds > 0 else { throw .timedOut }
            timeLeft = milliseconds
        }
        transfer.deadline = (started: .now, base: settings.requestSeconds, bytesPerSecond: max(1, settings.minimumBytesPerSecond))
        // A reset keeps the live connection, the DNS cache and TLS sessions; only options go.
        curl_easy_reset(handle)
        transfer.handle = handle
        let responseLimit = transfer.responseLimit
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        // No `Expect: 100-continue` round trip before a body.
        headers = curl_slist_append(headers, "Expect:")

        let code: CURLcode = withExtendedLifetime(transfer) {
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                let context = Unmanaged.passUnretained(transfer).toOpaque()
                var setup = [
                    bmvault_curl_set_string(handle, CURLOPT_URL, request.url),
                    bmvault_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method),
                    bmvault_curl_set_list(handle, CURLOPT_HTTPHEADER, headers),
                    bmvault_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress),
                    bmvault_curl_set_long(handle, CURLOPT_NOSIGNAL, 1),
                    bmvault_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0),
                    bmvault_curl_set_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1),
                    bmvault_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1),
                    bmvault_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2),
                    bmvault_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
                    bmvault_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, settings.connectTimeout),
                    bmvault_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, settings.stallSeconds),
                    bmvault_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, settings.stallBytesPerSecond),
                    bmvault_curl_set_long(handle, CURLOPT_NOPROGRESS, 0),
                    bmvault_curl_set_progress(handle, { context, _, received, _, sent in
                        guard let context else { return 0 }
                        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                        return transfer.isPastDeadline(moved: Int64(received) + Int64(sent)) ? 1 : 0
                    }),
                    bmvault_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context),
                    bmvault_curl_set_callback(handle, CURLOPT_WRITEFUNCTION, { data, size, count, context in
                        guard let context, let data else { return 0 }
                        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                        return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
                    }),
                    bmvault_curl_set_pointer(handle, CURLOPT_WRITEDATA, context),
                ]
                if let upload = transfer.upload {
                    setup += [
                        bmvault_curl_set_long(handle, CURLOPT_UPLOAD, 1),
                        bmvault_curl_set_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.count)),
                        bmvault_curl_set_callback(handle, CURLOPT_READFUNCTION, { data, size, count, context in
                            guard let context, let data else { return 0 }
                            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                            return transfer.send(into: UnsafeMutableRawBufferPointer(start: data, count: size * count)) ?? bmvault_curl_read_abort()
                        }),
                        bmvault_curl_set_pointer(handle, CURLOPT_READDATA, context),
                    ]
                }
                if let timeLeft { setup.append(bmvault_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeLeft)) }
                if target.scheme == "http" { setup.append(bmvault_curl_set_string(handle, CURLOPT_NOPROXY, "*")) }
                if let caFile = settings.caFile { setup.append(bmvault_curl_set_string(handle, CURLOPT_CAINFO, caFile)) }
                if let user = settings.user {
                    setup += [
                        bmvault_curl_set_long(handle, CURLOPT_HTTPAUTH, bmvault_curl_auth_basic()),
                        bmvault_curl_set_string(handle, CURLOPT_USERNAME, user),
                        bmvault_curl_set_string(handle, CURLOPT_PASSWORD, settings.password ?? ""),
                    ]
                }
                if let failed = setup.first(where: { $0 != CURLE_OK }) { return failed }
                let code = curl_easy_perform(handle)
                // The buffer and the transfer die with this call: libcurl must not keep them.
                _ = bmvault_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                _ = bmvault_curl_set_pointer(handle, CURLOPT_WRITEDATA, nil)
                _ = bmvault_curl_set_pointer(handle, CURLOPT_READDATA, nil)
                _ = bmvault_curl_set_pointer(handle, CURLOPT_XFERINFODATA, nil)
                return code
            }
        }
        transfer.handle = nil
        guard code == CURLE_OK else {
            if code == CURLE_ABORTED_BY_CALLBACK, transfer.pastDeadline { throw .timedOut }
            if code == CURLE_WRITE_ERROR, transfer.exceededLimit { throw .responseTooLarge(limit: responseLimit) }
            if code == CURLE_WRITE_ERROR, transfer.sinkRefused { throw .transport(reason: "the response could not be written") }
            if code == CURLE_ABORTED_BY_CALLBACK, transfer.upload != nil { throw .transport(reason: "the body could not be read") }
            throw HTTPError(code, detail: String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                            osErrno: osErrno)
        }
        var status = 0
        _ = bmvault_curl_response_code(handle, &status)
        var connections = 0
        _ = bmvault_curl_connections_made(handle, &connections)
        connectionsMade += connections
        return HTTPResponse(status: status, etag: header("ETag"), body: transfer.received)
    }

    /// The errno of the last failed connect, if any (`ECONNREFUSED` ...).
    private var osErrno: Int32 {
        var value = 0
        _ = bmvault_curl_os_errno(handle, &value)
        return Int32(truncatingIfNeeded: value)
    }

    /// The value of a response header of the last request.
    private func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(handle, name, 0, UInt32(CURLH_HEADER), -1, &found) == CURLHE_OK,
              let value = found?.pointee.value else { return nil }
        return String(cString: value)
    }
}

/// The bytes going out and coming back during one request, reached from libcurl's
/// callbacks through an unretained pointer (the request keeps it alive).
private final class Transfer {
    /// What is sent: `count` bytes that `read` gives chunk by chunk.
    struct Upload {
        let count: Int64
        let read: (UnsafeMutableRawBufferPointer) -> Int?

        /// Bytes held in memory.
        init(bytes: [UInt8]) {
            let source = Source(bytes)
            self.init(count: Int64(bytes.count)) { buffer in source.send(into: buffer) }
        }

        init(count: Int64, read: @escaping (UnsafeMutableRawBufferPointer) -> Int?) {
            self.count = count
            self.read = read
        }
    }

    /// Bytes in memory, given out in order.
    private final class Source {
        let bytes: [UInt8]
        var sent = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func send(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(buffer.count, bytes.count - sent)
            guard count > 0 else { return 0 }
            bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[sent..<(sent + count)]))
            }
            sent += count
            return count
        }
    }

    let upload: Upload?
    var received: [UInt8] = []
    let responseLimit: Int
    var exceededLimit = false
    /// Where a response of ``streamedStatus`` puts its body instead of ``received``, and
    /// whether it refused.
    var sink: ((UnsafeRawBufferPointer) -> Bool)?
    var streamedStatus = 200
    var sinkRefused = false
    /// The request's own deadline, set when it starts: `base` seconds plus one for each
    /// `bytesPerSecond` bytes moved, counted from `started`; whether the request ran past it.
    var deadline: (started: ContinuousClock.Instant, base: Int, bytesPerSecond: Int)?
    var pastDeadline = false
    /// The handle, while the request runs: a status is known by the first body byte.
    var handle: UnsafeMutableRawPointer?

    init(upload: Upload?, responseLimit: Int) {
        self.upload = upload
        self.responseLimit = responseLimit
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink, let handle {
            var status = 0
            _ = bmvault_curl_response_code(handle, &status)
            if status == streamedStatus {
                guard sink(bytes) else {
                    sinkRefused = true
                    return false
                }
                return true
            }
        }
        guard received.count + bytes.count <= responseLimit else {
            exceededLimit = true
            return false
        }
        received.append(contentsOf: bytes)
        return true
    }

    /// Whether the request has taken longer than its deadline allows for the bytes it has
    /// moved, or is to send (an upload's whole size counts from the start).
    func isPastDeadline(moved: Int64) -> Bool {
        guard let deadline else { return false }
        let bytes = max(moved, upload?.count ?? 0)
        let allowed = Duration.seconds(deadline.base) + .seconds(Double(bytes) / Double(deadline.bytesPerSecond))
        if deadline.started.duration(to: .now) > allowed { pastDeadline = true }
        return pastDeadline
    }

    func send(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        upload?.read(buffer) ?? 0
    }
}
