public import FileIO

/// A place where devices leave sealed operations for each other. The engine never
/// depends on what kind of place it is, so an HTTP or WebDAV remote can follow the folder
/// one without changing it.
///
/// A remote only ever holds ciphertext: operation files sealed with the vault key, and a
/// descriptor with the vault id and the (already wrapped) keyslots a new device needs.
public protocol Remote: AnyObject {
    /// The reader's name for it.
    var name: String { get }
    /// Fails unless the remote can be read and written now: checked before any draining.
    func checkReachable() throws(RemoteError)
    /// The descriptor, or nil when the remote holds no vault yet.
    func readDescriptor() throws(RemoteError) -> [UInt8]?
    func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError)
    /// The ids of the devices that have left operations.
    func devices() throws(RemoteError) -> [String]
    /// The names of `device`'s operation files, in name order (which is clock order).
    func operationNames(of device: String) throws(RemoteError) -> [String]
    func readOperation(_ name: String, of device: String) throws(RemoteError) -> [UInt8]
    /// Creates the file atomically; if one with this name exists it is the same operation
    /// (names hold the idempotency key), so it is left alone. Returns whether it was new.
    /// Not yet durable: see ``commitWrites()``.
    @discardableResult
    func writeOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) -> Bool
    /// Replaces a file under this name that does not hold the operation (damaged, or a
    /// partial copy), atomically. The only time a file on a remote is ever changed.
    /// Not yet durable: see ``commitWrites()``.
    func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError)
    /// Removes one of this device's operation files (gone already is fine): only for a
    /// purged record, once its content-free tombstone operation is durable on the remote.
    /// Not yet durable: see ``commitWrites()``.
    func removeOperation(_ name: String, of device: String) throws(RemoteError)
    /// `device`'s acknowledgement (see `Acknowledgement`), or nil when it has left none.
    func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]?
    /// Replaces this device's acknowledgement, atomically and durably.
    func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError)
    /// Makes every operation written so far durable, so the outbox may mark them delivered.
    func commitWrites() throws(RemoteError)
    /// Reads several of `device`'s operation files, in order: each read's outcome, up to and
    /// including the first that failed other than as `malformed` (then the rest are left).
    /// A remote that can fetch several at once does (WebDAV: a few connections in parallel).
    func readOperations(_ names: [String], of device: String) -> [Result<[UInt8], RemoteError>]
    /// Creates several of `device`'s operation files, each as ``writeOperation(_:of:bytes:)``
    /// does (none two of the same record: the engine sends those in order): each write's
    /// outcome, in order, up to and including the first `unreachable` (then the rest are
    /// left). A remote that can write several at once does (WebDAV).
    func writeOperations(_ files: [(name: String, bytes: [UInt8])], of device: String) -> [Result<Bool, RemoteError>]

    // Book files, on a remote that carries them (`remote files NAME on`): each content's
    // blob, encrypted as the vault's file store keeps it, under the content's random id.

    /// The names of the book-file blobs the remote holds.
    func fileBlobNames() throws(RemoteError) -> Set<String>
    /// Creates blob `name` from `source`, read from its start to its end, streamed and
    /// durable: whole or not there at all. A blob already there under that name is the same
    /// content's (a name is one content's id) and may be replaced by the same bytes.
    func writeFileBlob(_ name: String, from source: FileDescriptor) throws(RemoteError)
    /// Writes blob `name`'s bytes into `output`, streamed.
    func readFileBlob(_ name: String, into output: FileDescriptor) throws(RemoteError)
    /// Removes blob `name` (gone already is fine): only one that did not check out, so that a
    /// device holding the file sends it again.
    func removeFileBlob(_ name: String) throws(RemoteError)
}

extension Remote {
    /// One at a time, through ``readOperation(_:of:)``.
    public func readOperations(_ names: [String], of device: String) -> [Result<[UInt8], RemoteError>] {
        var results: [Result<[UInt8], RemoteError>] = []
        for name in names {
            let result = Result { () throws(RemoteError) in try readOperation(name, of: device) }
            results.append(result)
            if case .failure(let error) = result {
                if case .malformed = error { continue }
                break
            }
        }
        return results
    }

    /// One at a time, through ``writeOperation(_:of:bytes:)``.
    public func writeOperations(_ files: [(name: String, bytes: [UInt8])], of device: String) -> [Result<Bool, RemoteError>] {
        var results: [Result<Bool, RemoteError>] = []
        for file in files {
            let result = Result { () throws(RemoteError) in try writeOperation(file.name, of: device, bytes: file.bytes) }
            results.append(result)
            if case .failure(.unreachable) = result { break }
        }
        return results
    }
}

/// Why a remote could not be used. Cases carry error numbers, never file contents. Each is
/// something the remote or the network did, never something wrong with what was sent: an
/// upload that meets any of them is tried again after a backoff (``SyncEngine``).
public enum RemoteError: Error, Equatable, Sendable {
    /// Not there, or not usable now (an unmounted drive, a missing folder): try again later.
    case unreachable(errno: Int32)
    /// The remote did not answer in time; what was sent may or may not have arrived.
    case timedOut
    /// Reading or writing failed with this errno; usually temporary (a full disk, a lost mount).
    case io(operation: String, errno: Int32)
    /// The remote holds another vault.
    case otherVault
    /// A file on the remote is not what bmvault writes (or was made by a newer bmvault).
    case malformed(what: String)
    /// The server refused the user name or password (HTTP 401 or 403).
    case unauthorized
    /// The folder the remote names does not exist on the server (HTTP 404).
    case noSuchFolder
    /// The server has no room left (HTTP 507).
    case outOfSpace
    /// TLS failed, in libcurl's words (an untrusted certificate, another host name).
    case tls(reason: String)
    /// The server answered an HTTP `operation` with a status bmvault did not expect (a 5xx,
    /// a redirect, a 412 to a write whose file is then not there).
    case http(operation: String, status: Int)
    /// A plain `http://` URL whose host is not this machine: refused before anything was
    /// sent, since the password and the files would cross the network in the clear.
    case plainHTTPBeyondThisMachine
    /// A folder's listing on the server names more entries, or takes more bytes, than any
    /// folder of bmvault's (``WebDAVListing``): refused, not read on.
    case listingTooLarge

    /// The case name, for logs and the outbox's last error class.
    public var errorClass: String {
        switch self {
        case .unreachable: "unreachable"
        case .timedOut: "timedOut"
        case .io(let operation, _): "io.\(operation)"
        case .otherVault: "otherVault"
        case .malformed: "malformed"
        case .unauthorized: "unauthorized"
        case .noSuchFolder: "noSuchFolder"
        case .plainHTTPBeyondThisMachine: "plainHTTP"
        case .listingTooLarge: "listingTooLarge"
        case .outOfSpace: "outOfSpace"
        case .tls: "tls"
        case .http(let operation, let status): "http.\(operation).\(status)"
        }
    }
}
