/// One HTTP request: a method (`GET`, `PUT`, `PROPFIND`, ...), an absolute URL, headers, and
/// a body for the methods that send one.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A response, whatever its status: the caller decides what a 404 or a 412 means.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// The `ETag` header, quotes included, as the next `If-Match` needs it.
    public let etag: String?
    public let body: [UInt8]

    public var isSuccess: Bool { (200...299).contains(status) }
}
