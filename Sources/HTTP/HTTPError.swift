internal import CCurl

/// Why no response came. Cases carry what libcurl says of the connection (never a
/// response body, which a server may fill with anything).
public enum HTTPError: Error, Equatable, Sendable {
    /// No connection: refused, no route, a name that does not resolve (`errno` when the
    /// system gave one, else 0).
    case couldNotConnect(errno: Int32)
    /// The connection, a transfer that stalled, or a request that ran past its deadline (or
    /// the connection's) took longer than the settings allow; a request may have been
    /// carried out without its answer arriving.
    case timedOut
    /// TLS failed: the certificate is not trusted, the host name differs, ... in libcurl's words.
    case tls(reason: String)
    /// The connection broke during the request (reset, closed mid-body, a malformed answer).
    case transport(reason: String)
    /// The response body was larger than the caller allows.
    case responseTooLarge(limit: Int)
    /// A plain `http://` URL whose host is not this machine (``ThisMachine``), or a URL
    /// libcurl cannot read: nothing was sent.
    case plainHTTPBeyondThisMachine

    init(_ code: CURLcode, detail: String, osErrno: Int32) {
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .couldNotConnect(errno: osErrno)
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            self = .tls(reason: reason)
        default:
            self = .transport(reason: reason)
        }
    }
}
