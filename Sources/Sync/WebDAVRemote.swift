import Dispatch
import Foundation
import Synchronization
import FileIO
internal import HTTP
internal import XML

/// A remote that is a folder on a WebDAV server (Nextcloud, ownCloud, lighttpd's mod_webdav,
/// a storage provider), with the folder remote's layout under the URL the reader gave:
///
///     <url>/bmvault-<vault id>/vault.json
///     <url>/bmvault-<vault id>/devices/<device id>/<clock>.<idempotency key>.op
///     <url>/bmvault-<vault id>/devices/<device id>/acknowledgement
///     <url>/bmvault-<vault id>/files/<content id>        a book file's encrypted blob
///
/// An operation file is created once with `PUT` + `If-None-Match: *`: a 412 means it is
/// there already (a retry after a lost answer is a no-op). The small files that change
/// (descriptor, acknowledgement) are replaced with `If-Match: <etag>` of what was last seen,
/// re-read and retried on a 412. Folders are made with `MKCOL`; listings are `PROPFIND
/// Depth: 1`. No LOCK. The server sees sealed files, their names (ids, never titles) and sizes.
///
/// One HTTP connection per remote object, kept alive across the requests of a sync, and
/// ``parallelRequests`` more for the batches of reads and writes of a pull and a push.
public final class WebDAVRemote: Remote {
    public let name: String
    /// The folder the reader named, without a trailing slash.
    public let url: String
    let vaultID: String
    private let settings: HTTPConnection.Settings
    private var connection: HTTPConnection?
    /// The connections of batches of reads and writes, made at the first and kept.
    private var parallel: [Lane] = []
    /// Folders known to exist, so a push of thousands of operations makes each once.
    private var madeFolders = Set<String>()
    /// The ETag of each mutable file as last read or written, for the next `If-Match`.
    private var etags: [String: String] = [:]

    var root: String { url + "/bmvault-" + vaultID }

    /// How many connections this remote opened: one per sync, kept alive (and those of
    /// batches of reads and writes, ``parallelRequests``, made once).
    var connectionsMade: Int { (connection?.connectionsMade ?? 0) + parallel.reduce(0) { $0 + $1.connection.connectionsMade } }

    /// A push larger than this is not bmvault's (see ``FolderRemote/largestFile``).
    static let largestFile = FolderRemote.largestFile
    /// How many entries a listing may name (``WebDAVListing/largestEntryCount``; tests lower it).
    var largestListing = WebDAVListing.largestEntryCount
    /// How often a replaced file is re-read and tried again when another writer came between.
    static let replaceAttempts = 4

    /// `deadlines`: how long its requests may take, the sync's total counted from now
    /// (tests shorten them).
    public init(name: String, url: String, vaultID: String, credentials: WebDAVCredentials, caFile: String? = nil,
                deadlines: Deadlines = .forThisProcess) {
        self.name = name
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.vaultID = vaultID
        var settings = HTTPConnection.Settings()
        deadlines.apply(to: &settings)
        settings.user = credentials.user
        settings.password = credentials.password
        settings.caFile = caFile
        self.settings = settings
    }

    public func checkReachable() throws(RemoteError) {
        let response = try send("PROPFIND", url + "/", headers: [("Depth", "0")])
        switch response.status {
        case 207, 200: return
        case 404: throw .noSuchFolder
        default: throw Self.error(response, operation: "PROPFIND")
        }
    }

    public func readDescriptor() throws(RemoteError) -> [UInt8]? {
        try readMutable(root + "/vault.json")
    }

    public func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) {
        try makeFolders(root)
        try replaceMutable(root + "/vault.json", with: bytes)
    }

    public func devices() throws(RemoteError) -> [String] {
        try list(root + "/devices/").filter { $0.isFolder && FolderRemote.isDeviceID($0.name) }.map(\.name).sorted()
    }

    public func operationNames(of device: String) throws(RemoteError) -> [String] {
        try list(root + "/devices/" + device + "/").filter { !$0.isFolder && $0.name.hasSuffix(".op") }.map(\.name).sorted()
    }

    public func readOperation(_ name: String, of device: String) throws(RemoteError) -> [UInt8] {
        try Self.get(root + "/devices/" + device + "/" + name, on: try mainConnection())
    }

    private static func get(_ fileURL: String, on connection: HTTPConnection) throws(RemoteError) -> [UInt8] {
        let response = try send("GET", fileURL, on: connection)
        guard response.status == 200 else { throw error(response, operation: "GET") }
        return response.body
    }

    /// Reads the files several at once (``inParallel(_:_:)``), then cut after the first
    /// failure other than `malformed`, as the protocol asks.
    public func readOperations(_ names: [String], of device: String) -> [Result<[UInt8], RemoteError>] {
        let folder = root + "/devices/" + device + "/"
        let results = inParallel(names.count) { index, connection in
            Result { () throws(RemoteError) in try Self.get(folder + names[index], on: connection) }
        }
        return Self.cut(results) { if case .malformed = $0 { false } else { true } }
    }

    /// Creates the files several at once (``inParallel(_:_:)``), then cut after the first
    /// `unreachable`, as the protocol asks.
    public func writeOperations(_ files: [(name: String, bytes: [UInt8])], of device: String) -> [Result<Bool, RemoteError>] {
        let folder = root + "/devices/" + device
        do throws(RemoteError) { try makeFolders(folder) } catch { return [.failure(error)] }
        let results = inParallel(files.count) { index, connection in
            Result { () throws(RemoteError) in try Self.createOnce(folder + "/" + files[index].name, files[index].bytes, on: connection) }
        }
        return Self.cut(results) { if case .unreachable = $0 { true } else { false } }
    }

    /// The results up to and including the first failure that `stops`.
    private static func cut<Value>(_ results: [Result<Value, RemoteError>], after stops: (RemoteError) -> Bool) -> [Result<Value, RemoteError>] {
        guard let index = results.firstIndex(where: { if case .failure(let error) = $0 { stops(error) } else { false } }) else { return results }
        return Array(results[...index])
    }

    /// How many connections a batch of reads or writes uses at once: their round trips and
    /// the server's work overlap this device's (measured: Docs/PERFORMANCE.md).
    static let parallelRequests = 4

    /// `work` for each of `count` items, over up to ``parallelRequests`` connections at once
    /// (each kept alive for the remote's life, one thread each), every result in its place.
    private func inParallel<Value: Sendable>(_ count: Int,
                                             _ work: @Sendable (Int, HTTPConnection) -> Result<Value, RemoteError>) -> [Result<Value, RemoteError>] {
        let lanes = min(Self.parallelRequests, count)
        guard lanes > 1 else {
            do throws(RemoteError) {
                let connection = try mainConnection()
                return (0..<count).map { work($0, connection) }
            } catch {
                return [.failure(error)]
            }
        }
        while parallel.count < lanes {
            do throws(RemoteError) {
                parallel.append(Lane(connection: try Self.connect(settings)))
            } catch {
                return [.failure(error)]
            }
        }
        let results = Mutex([Result<Value, RemoteError>?](repeating: nil, count: count))
        let parallel = self.parallel
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: count, by: lanes) {
                let result = work(index, parallel[lane].connection)
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { $0 }.map { $0 ?? .failure(.io(operation: "http", errno: EIO)) }
    }

    /// A connection that one thread uses at a time (``inParallel(_:_:)`` gives each thread
    /// its own): that is what makes handing it to the thread safe.
    private struct Lane: @unchecked Sendable {
        let connection: HTTPConnection
    }

    @discardableResult
    public func writeOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) -> Bool {
        let folder = root + "/devices/" + device
        try makeFolders(folder)
        return try Self.createOnce(folder + "/" + name, bytes, on: try mainConnection())
    }

    /// `PUT` with `If-None-Match: *`: whether the file is new (false: there already, and the
    /// name holds the idempotency key).
    private static func createOnce(_ fileURL: String, _ bytes: [UInt8], on connection: HTTPConnection) throws(RemoteError) -> Bool {
        let response = try send("PUT", fileURL, on: connection, headers: [("If-None-Match", "*")], body: bytes)
        switch response.status {
        case 200, 201, 204: return true
        case 412: return false
        default: throw error(response, operation: "PUT")
        }
    }

    public func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) {
        let response = try send("PUT", root + "/devices/" + device + "/" + name, body: bytes)
        guard response.isSuccess else { throw Self.error(response, operation: "PUT") }
    }

    public func removeOperation(_ name: String, of device: String) throws(RemoteError) {
        let response = try send("DELETE", root + "/devices/" + device + "/" + name)
        guard response.isSuccess || response.status == 404 else { throw Self.error(response, operation: "DELETE") }
    }

    // MARK: - Book files

    public func fileBlobNames() throws(RemoteError) -> Set<String> {
        Set(try list(root + "/files/").filter { !$0.isFolder && !$0.name.hasPrefix(".") }.map(\.name))
    }

    /// `PUT` streamed to a temporary name, then `MOVE`d to its own: a transfer cut short
    /// never stands under the blob's name.
    public func writeFileBlob(_ name: String, from source: FileDescriptor) throws(RemoteError) {
        let folder = root + "/files"
        try makeFolders(folder)
        let size: Int64
        do { size = try source.status().size } catch { throw RemoteError(error) }
        let temporary = folder + "/.tmp-" + UUID().uuidString
        var offset: Int64 = 0
        let request = HTTPRequest(method: "PUT", url: temporary, headers: [("Content-Type", "application/octet-stream")])
        let connection = try mainConnection()
        let put: HTTPResponse
        do throws(HTTPError) {
            put = try connection.perform(request, upload: (size, { buffer in
                guard let count = try? source.read(into: buffer, at: offset) else { return nil }
                offset += Int64(count)
                return count
            }))
        } catch {
            _ = try? send("DELETE", temporary)   // what a cut transfer left, if anything
            throw RemoteError(error)
        }
        try Self.refuseLoginAndSpace(put)
        guard put.isSuccess else { throw Self.error(put, operation: "PUT") }
        let move = try send("MOVE", temporary, headers: [("Destination", folder + "/" + name), ("Overwrite", "T")])
        guard move.isSuccess else {
            _ = try? send("DELETE", temporary)
            throw Self.error(move, operation: "MOVE")
        }
    }

    /// `GET`, streamed into `output`.
    public func readFileBlob(_ name: String, into output: FileDescriptor) throws(RemoteError) {
        let request = HTTPRequest(method: "GET", url: root + "/files/" + name)
        let connection = try mainConnection()
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try connection.perform(request, download: { bytes in (try? output.writeAll(bytes)) != nil })
        } catch {
            throw RemoteError(error)
        }
        try Self.refuseLoginAndSpace(response)
        guard response.status == 200 else { throw Self.error(response, operation: "GET") }
    }

    public func removeFileBlob(_ name: String) throws(RemoteError) {
        let response = try send("DELETE", root + "/files/" + name)
        guard response.isSuccess || response.status == 404 else { throw Self.error(response, operation: "DELETE") }
    }

    public func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]? {
        try readMutable(root + "/devices/" + device + "/acknowledgement")
    }

    public func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError) {
        let folder = root + "/devices/" + device
        try makeFolders(folder)
        try replaceMutable(folder + "/acknowledgement", with: bytes)
    }

    /// A 2xx answer to a `PUT` means the server has stored the file: nothing is left to flush.
    public func commitWrites() throws(RemoteError) {}

    /// Tries, in a scratch folder of its own that it removes, what syncing relies on: a file
    /// created once and refused a second time (`If-None-Match: *`), and read back. A server
    /// that lets a name be written twice would let a retry change an operation. Throws what
    /// failed, so that `remote add` names it before the first sync meets it.
    public func probe() throws(RemoteError) {
        let scratch = url + "/.bmvault-probe-" + UUID().uuidString.lowercased()
        try makeFolders(scratch)
        defer {
            _ = try? send("DELETE", scratch + "/")
            madeFolders.remove(scratch)
        }
        let bytes = Array("bmvault checks that this folder can hold its files\n".utf8)
        for (attempt, expected) in [201, 412].enumerated() {
            let response = try send("PUT", scratch + "/created-once", headers: [("If-None-Match", "*")], body: bytes)
            let created = response.status == 200 || response.status == 201 || response.status == 204
            guard created == (expected == 201), created || response.status == 412 else {
                throw attempt == 0 ? Self.error(response, operation: "PUT") : .http(operation: "create-once", status: response.status)
            }
        }
        let readBack = try send("GET", scratch + "/created-once")
        guard readBack.status == 200, readBack.body == bytes else { throw .http(operation: "verify", status: readBack.status) }
    }

    /// The `bmvault-<vault id>` folders at `url`: the vaults a WebDAV folder holds, for
    /// `init --join URL`.
    public static func vaultIDs(at url: String, credentials: WebDAVCredentials, caFile: String?) throws(RemoteError) -> [String] {
        let remote = WebDAVRemote(name: "", url: url, vaultID: "", credentials: credentials, caFile: caFile)
        try remote.checkReachable()
        return try remote.list(remote.url + "/").filter { $0.isFolder && $0.name.hasPrefix("bmvault-") }
            .map { String($0.name.dropFirst("bmvault-".count)) }
    }

    // MARK: - Files that change

    private func readMutable(_ fileURL: String) throws(RemoteError) -> [UInt8]? {
        let response = try send("GET", fileURL)
        switch response.status {
        case 200:
            etags[fileURL] = response.etag
            return response.body
        case 404:
            etags[fileURL] = nil
            return nil
        default:
            throw Self.error(response, operation: "GET")
        }
    }

    /// Replaces the file only if it is still what was last seen (`If-Match`), or absent when
    /// nothing was seen (`If-None-Match: *`); on a 412 it learns the current ETag and tries
    /// again: this device is the only writer of its acknowledgement, and a descriptor is
    /// replaced whole by whoever writes it, as on a folder remote.
    private func replaceMutable(_ fileURL: String, with bytes: [UInt8]) throws(RemoteError) {
        for _ in 0..<Self.replaceAttempts {
            let condition = etags[fileURL].map { ("If-Match", $0) } ?? ("If-None-Match", "*")
            let response = try send("PUT", fileURL, headers: [condition], body: bytes)
            switch response.status {
            case 200, 201, 204:
                etags[fileURL] = response.etag
                return
            case 412:
                etags[fileURL] = try currentETag(fileURL)
            default:
                throw Self.error(response, operation: "PUT")
            }
        }
        throw .http(operation: "PUT", status: 412)
    }

    private static let etagRequest = Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:getetag/></d:prop></d:propfind>
        """.utf8)

    /// The file's ETag as the server has it now (WebDAV's `getetag`, which servers answer even
    /// where a `GET` carries no `ETag` header), or nil when there is no such file.
    private func currentETag(_ fileURL: String) throws(RemoteError) -> String? {
        let response = try send("PROPFIND", fileURL, headers: [("Depth", "0"), ("Content-Type", "application/xml; charset=utf-8")],
                                body: Self.etagRequest)
        switch response.status {
        case 207: break
        case 404: return nil
        default: throw Self.error(response, operation: "PROPFIND")
        }
        let etag = try? XMLElement.parse(response.body).child("DAV:", "response")?.children("DAV:", "propstat")
            .compactMap { $0.child("DAV:", "prop")?.child("DAV:", "getetag")?.text }.first
        guard let etag, !etag.isEmpty else { throw .malformed(what: "a file without an ETag on the server") }
        return etag
    }

    // MARK: - Folders

    /// Makes `folder` and the folders between the remote's URL and it, each once per remote.
    private func makeFolders(_ folder: String) throws(RemoteError) {
        guard !madeFolders.contains(folder) else { return }
        var current = url
        for component in folder.dropFirst(url.count + 1).split(separator: "/") {
            current += "/" + component
            guard !madeFolders.contains(current) else { continue }
            let response = try send("MKCOL", current + "/")
            // 405: it exists (RFC 4918 9.3.1).
            guard response.status == 201 || response.status == 405 else { throw Self.error(response, operation: "MKCOL") }
            madeFolders.insert(current)
        }
    }

    typealias Entry = WebDAVListing.Entry

    private static let listingRequest = Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>
        """.utf8)

    /// The entries of `folder` (which ends in `/`), without the folder itself; none when it
    /// does not exist. The answer is parsed as it arrives (``WebDAVListing``), never held.
    private func list(_ folder: String) throws(RemoteError) -> [Entry] {
        let request = HTTPRequest(method: "PROPFIND", url: folder, headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
                                  body: Self.listingRequest)
        let listing = WebDAVListing(folder: folder, entryLimit: largestListing)
        let connection = try mainConnection()
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try connection.perform(request, download: listing.read, streamedStatus: 207)
        } catch {
            throw listing.failure ?? RemoteError(error)
        }
        try Self.refuseLoginAndSpace(response)
        switch response.status {
        case 207: return try listing.finish()
        case 404: return []
        default: throw Self.error(response, operation: "PROPFIND")
        }
    }

    // MARK: - Requests

    private func send(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil) throws(RemoteError) -> HTTPResponse {
        try Self.send(method, target, on: try mainConnection(), headers: headers, body: body)
    }

    /// The connection of every request but a batch's, opened at the first.
    private func mainConnection() throws(RemoteError) -> HTTPConnection {
        if let connection { return connection }
        let connection = try Self.connect(settings)
        self.connection = connection
        return connection
    }

    /// A new connection. Its CA file is opened first as every file bmvault reads is
    /// (FileIO refuses a FIFO or a device without waiting): libcurl would open a FIFO left
    /// where the file was, and wait for ever, at every sync. Refused as `io.cafile`.
    private static func connect(_ settings: HTTPConnection.Settings) throws(RemoteError) -> HTTPConnection {
        if let caFile = settings.caFile {
            do { try FileDescriptor.open(caFile, .readOnly).close() } catch { throw .io(operation: "cafile", errno: error.errno.rawValue) }
        }
        do throws(HTTPError) { return try HTTPConnection(settings: settings) } catch { throw RemoteError(error) }
    }

    /// One request on `connection`; a refused login and a full server are their own errors.
    private static func send(_ method: String, _ target: String, on connection: HTTPConnection, headers: [(String, String)] = [],
                             body: [UInt8]? = nil) throws(RemoteError) -> HTTPResponse {
        var request = HTTPRequest(method: method, url: target, headers: headers, body: body)
        if body != nil, !headers.contains(where: { $0.0 == "Content-Type" }) {
            request.headers.append(("Content-Type", "application/octet-stream"))
        }
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try connection.perform(request, responseLimit: largestFile)
        } catch {
            throw RemoteError(error)
        }
        try refuseLoginAndSpace(response)
        return response
    }

    /// A refused login and a full server are their own errors, whatever the request.
    private static func refuseLoginAndSpace(_ response: HTTPResponse) throws(RemoteError) {
        if response.status == 401 || response.status == 403 { throw .unauthorized }
        if response.status == 507 { throw .outOfSpace }
    }

    /// What an unexpected status means: the status, for the outbox and the log (never the
    /// server's body, which may say anything).
    private static func error(_ response: HTTPResponse, operation: String) -> RemoteError {
        .http(operation: operation, status: response.status)
    }
}

/// The user name and password (or app token) for a WebDAV server. The password is kept
/// in the Secret Service, never in vault.db, a log or the process's arguments.
public struct WebDAVCredentials: Sendable {
    public let user: String?
    public let password: String?

    public init(user: String?, password: String?) {
        self.user = user
        self.password = password
    }
}

extension RemoteError {
    init(_ error: HTTPError) {
        switch error {
        case .couldNotConnect(let errno): self = .unreachable(errno: errno)
        case .timedOut: self = .timedOut
        case .tls(let reason): self = .tls(reason: reason)
        case .transport: self = .io(operation: "http", errno: EIO)
        case .responseTooLarge: self = .malformed(what: "not a file bmvault writes")
        case .plainHTTPBeyondThisMachine: self = .plainHTTPBeyondThisMachine
        }
    }
}
