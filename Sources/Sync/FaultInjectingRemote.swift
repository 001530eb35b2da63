#if DEBUG
#if canImport(Glibc)
import Glibc
#endif
import FileIO

/// A remote that fails on purpose, for the hostile-network tests: wraps a real one and,
/// as `BMVAULT_TEST_REMOTE_FAULTS` says (debug builds only), pretends to be unreachable,
/// loses the answer after a write has landed, or fails writes. Directives, comma-separated:
///
///     unreachable              checkReachable fails
///     lose-reply:N             the Nth operation write lands, then reports a timeout
///     fail-write:N             the Nth operation write fails (nothing written)
///     fail-writes-from:N       every operation write from the Nth on fails
///     fail-file-writes         every book-file blob upload fails (nothing written)
///     fail-file-removes        every book-file blob removal fails (nothing removed)
final class FaultInjectingRemote: Remote {
    private let wrapped: any Remote
    private let directives: [(name: String, number: Int)]
    private var writes = 0

    var name: String { wrapped.name }

    init(wrapping remote: any Remote, directives text: String) {
        wrapped = remote
        directives = text.split(separator: ",").map { part in
            let pieces = part.split(separator: ":")
            return (String(pieces[0]), pieces.count > 1 ? Int(pieces[1]) ?? 0 : 0)
        }
    }

    /// The remote, wrapped when the environment asks for faults.
    static func wrapIfRequested(_ remote: any Remote) -> any Remote {
        guard let text = getenv("BMVAULT_TEST_REMOTE_FAULTS").map({ String(cString: $0) }), !text.isEmpty else { return remote }
        return FaultInjectingRemote(wrapping: remote, directives: text)
    }

    private func has(_ name: String, _ number: Int? = nil) -> Bool {
        directives.contains { $0.name == name && (number == nil || $0.number == number) }
    }

    func checkReachable() throws(RemoteError) {
        if has("unreachable") { throw .unreachable(errno: ENETUNREACH) }
        try wrapped.checkReachable()
    }

    func readDescriptor() throws(RemoteError) -> [UInt8]? { try wrapped.readDescriptor() }
    func writeDescriptor(_ bytes: [UInt8]) throws(RemoteError) { try wrapped.writeDescriptor(bytes) }
    func devices() throws(RemoteError) -> [String] { try wrapped.devices() }
    func operationNames(of device: String) throws(RemoteError) -> [String] { try wrapped.operationNames(of: device) }
    func readOperation(_ name: String, of device: String) throws(RemoteError) -> [UInt8] { try wrapped.readOperation(name, of: device) }

    func commitWrites() throws(RemoteError) { try wrapped.commitWrites() }
    func fileBlobNames() throws(RemoteError) -> Set<String> { try wrapped.fileBlobNames() }
    func readFileBlob(_ name: String, into output: FileDescriptor) throws(RemoteError) { try wrapped.readFileBlob(name, into: output) }
    func removeFileBlob(_ name: String) throws(RemoteError) {
        if has("fail-file-removes") { throw .io(operation: "remove", errno: EIO) }
        try wrapped.removeFileBlob(name)
    }
    func writeFileBlob(_ name: String, from source: FileDescriptor) throws(RemoteError) {
        if has("fail-file-writes") { throw .io(operation: "write", errno: EIO) }
        try wrapped.writeFileBlob(name, from: source)
    }
    func removeOperation(_ name: String, of device: String) throws(RemoteError) { try wrapped.removeOperation(name, of: device) }
    func readAcknowledgement(of device: String) throws(RemoteError) -> [UInt8]? { try wrapped.readAcknowledgement(of: device) }
    func writeAcknowledgement(_ bytes: [UInt8], of device: String) throws(RemoteError) {
        try wrapped.writeAcknowledgement(bytes, of: device)
    }
    func replaceOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) {
        try wrapped.replaceOperation(name, of: device, bytes: bytes)
    }

    func writeOperation(_ name: String, of device: String, bytes: [UInt8]) throws(RemoteError) -> Bool {
        writes += 1
        if has("fail-write", writes) { throw .io(operation: "write", errno: EIO) }
        if let from = directives.first(where: { $0.name == "fail-writes-from" })?.number, writes >= from {
            throw .io(operation: "write", errno: EIO)
        }
        let created = try wrapped.writeOperation(name, of: device, bytes: bytes)
        if has("lose-reply", writes) { throw .timedOut }
        return created
    }
}
#endif
