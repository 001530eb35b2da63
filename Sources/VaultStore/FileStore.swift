internal import FileIO
import Telemetry
import VaultCrypto

/// The vault's file store: `files/` beside `vault.db`, one encrypted blob per stored book
/// file (``FileStream``), named by the file's random id, never by its title or its checksum
/// (a checksum in a name would let anyone who sees the folder confirm that the reader holds
/// a known book). A blob is written under `.incoming-<id>`, flushed, renamed into place and
/// its directory flushed, so a blob is whole or absent; the writer holds an `flock` on it
/// until its row commits, so a ``sweep(keeping:)`` never takes a blob another process is
/// still adding. Memory stays at two chunks whatever the file's size.
struct FileStore {
    let directory: String

    init(databasePath: String) {
        directory = FileSystem.directory(of: databasePath) + "/files"
    }

    func blobPath(_ id: String) -> String { directory + "/" + id }

    /// A blob being written: its descriptor holds the lock until the caller commits its row
    /// (``finish()``) or gives it up (``discard()``).
    final class Incoming {
        let id: String
        let path: String
        /// The blob, open (and locked) until ``finish()`` or ``discard()``.
        let file: FileDescriptor
        private var isOpen = true

        init(id: String, path: String, file: FileDescriptor) {
            self.id = id
            self.path = path
            self.file = file
        }

        /// Releases the lock: the row naming the blob has committed.
        func finish() {
            guard isOpen else { return }
            try? file.close()
            isOpen = false
        }

        /// Removes the blob: its row was not written, or names another blob.
        func discard() {
            FileSystem.remove(path)
            finish()
        }

        deinit { finish() }
    }

    /// Reads `source` to its end, hashing the plaintext and sealing it under `key` into a new
    /// blob `id`; returns the blob (locked) with the plaintext's SHA-256 and size.
    /// `progress` gets the bytes read so far.
    func store(from source: FileDescriptor, id: String, key: FileKey, binding: Binding,
               progress: (Int64) -> Void) throws(StoreError) -> (blob: Incoming, checksum: String, size: Int64) {
        try FileSystem.makePrivateDirectory(directory)
        let temporary = directory + "/.incoming-" + id
        let file = try Self.call { () throws(FileIOError) in try Self.createLocked(temporary) }
        var handedOver = false
        defer { if !handedOver { try? file.close(); FileSystem.remove(temporary) } }
        let sealer = try Self.crypto { () throws(CryptoError) in try FileStreamSealer(key: key, binding: binding) }
        try Self.call { () throws(FileIOError) in try file.writeAll(sealer.header) }
        let hasher = BackgroundHasher()
        let buffers = (0..<BackgroundHasher.buffers).map { _ in Buffer(count: FileStream.chunkSize) }
        // No chunk buffer goes while the hashing thread may still read it, whatever is thrown.
        defer { withExtendedLifetime(buffers) { hasher.drain() } }
        let output = Buffer(count: FileStream.sealedChunkSize)
        let size = try Self.chunks(of: source, into: buffers, progress: progress) { (chunk, final) throws(StoreError) in
            hasher.submit(chunk)
            let count = try Self.crypto { () throws(CryptoError) in try sealer.seal(chunk, final: final, into: output.bytes) }
            try Self.call { () throws(FileIOError) in try file.writeAll(UnsafeRawBufferPointer(rebasing: output.bytes[..<count])) }
        }
        let checksum = hasher.finalizeHex()
        try Self.call { () throws(FileIOError) in try file.sync() }
        FaultInjection.reach("file-add:blob-written")
        try FileSystem.rename(temporary, to: blobPath(id))
        try FileSystem.synchronizeDirectory(directory)
        handedOver = true
        return (Incoming(id: id, path: blobPath(id), file: file), checksum, size)
    }

    /// Reads `source` to its end, writing it to `output` (nowhere: a linked file is only
    /// hashed); returns its SHA-256 and size.
    static func copy(from source: FileDescriptor, into output: FileDescriptor?,
                     progress: (Int64) -> Void) throws(StoreError) -> (checksum: String, size: Int64) {
        var hasher = SHA256()
        let size = try chunks(of: source, into: [Buffer(count: FileStream.chunkSize)], progress: progress) { (chunk, _) throws(StoreError) in
            hasher.update(chunk)
            if let output { try call { () throws(FileIOError) in try output.writeAll(chunk) } }
        }
        return (hasher.finalizeHex(), size)
    }

    /// Blob `id`, opened for reading (ENOENT: it is gone).
    func openBlob(_ id: String) throws(FileIOError) -> FileDescriptor {
        try FileDescriptor.open(blobPath(id), .readOnly)
    }

    /// Reads an opened blob and writes its plaintext to `output` (nowhere, for a check);
    /// returns the plaintext's SHA-256 and size. A blob that does not authenticate, is cut
    /// short or goes on after its end throws ``StoreError/crypto(_:)``.
    func open(_ file: FileDescriptor, key: FileKey, binding: Binding, into output: FileDescriptor?,
              progress: (Int64) -> Void = { _ in }) throws(StoreError) -> (checksum: String, size: Int64) {
        let headerBuffer = Buffer(count: FileStream.headerCount)
        let headerCount = try Self.call { () throws(FileIOError) in try Self.readFully(file, into: headerBuffer.bytes) }
        guard headerCount == FileStream.headerCount else { throw .crypto(.malformed) }
        let header = Array(headerBuffer.bytes)
        let opener = try Self.crypto { () throws(CryptoError) in try FileStreamOpener(key: key, header: header, binding: binding) }
        let hasher = BackgroundHasher()
        let buffers = (0..<BackgroundHasher.buffers).map { _ in Buffer(count: FileStream.chunkSize) }
        // No plaintext buffer goes while the hashing thread may still read it, whatever is thrown.
        defer { withExtendedLifetime(buffers) { hasher.drain() } }
        var size: Int64 = 0
        var turn = 0
        let sealed = Buffer(count: FileStream.sealedChunkSize)
        while true {
            let plain = buffers[turn % buffers.count]
            turn += 1
            let count = try Self.call { () throws(FileIOError) in try Self.readFully(file, into: sealed.bytes) }
            // Every chunk but the last is whole: a short one must carry the FINAL tag.
            let (plainCount, isFinal) = try Self.crypto { () throws(CryptoError) in
                try opener.open(UnsafeRawBufferPointer(rebasing: sealed.bytes[..<count]), into: plain.bytes)
            }
            let chunk = UnsafeRawBufferPointer(rebasing: plain.bytes[..<plainCount])
            hasher.submit(chunk)
            if let output { try Self.call { () throws(FileIOError) in try output.writeAll(chunk) } }
            size += Int64(plainCount)
            progress(size)
            if isFinal {
                guard try Self.call({ () throws(FileIOError) in try file.read(into: sealed.bytes) }) == 0 else { throw .crypto(.malformed) }
                break
            }
            guard count == sealed.bytes.count else { throw .crypto(.malformed) }
        }
        return (hasher.finalizeHex(), size)
    }

    /// A new, empty `.incoming-<id>.<random>` blob, locked: a blob received from a remote is
    /// written into it, then kept (``keep(_:key:binding:checksum:)``) or discarded. Its name
    /// is new each time, so what a receive killed midway left (swept later) is never in the way.
    func receive(_ id: String) throws(StoreError) -> Incoming {
        try FileSystem.makePrivateDirectory(directory)
        let temporary = directory + "/.incoming-" + id + "." + String(UInt64.random(in: .min ... .max), radix: 16)
        return Incoming(id: id, path: temporary, file: try Self.call { () throws(FileIOError) in try Self.createLocked(temporary) })
    }

    /// Keeps a received blob when it opens whole under `key` and its plaintext hashes to
    /// `checksum`: flushed, renamed into place, its folder flushed. Otherwise it is removed
    /// and the answer is false: what another device (or the remote) left is never trusted.
    func keep(_ incoming: Incoming, key: FileKey, binding: Binding, checksum: String) throws(StoreError) -> Bool {
        try Self.call { () throws(FileIOError) in try incoming.file.sync() }
        let reader = try Self.call { () throws(FileIOError) in try FileDescriptor.open(incoming.path, .readOnly) }
        defer { try? reader.close() }
        let opened: (checksum: String, size: Int64)
        do {
            opened = try open(reader, key: key, binding: binding, into: nil)
        } catch .crypto {
            incoming.discard()
            return false
        }
        guard opened.checksum == checksum else {
            incoming.discard()
            return false
        }
        try FileSystem.rename(incoming.path, to: blobPath(incoming.id))
        try FileSystem.synchronizeDirectory(directory)
        incoming.finish()
        return true
    }

    /// Removes blob `id`, if it is there.
    func remove(_ id: String) {
        FileSystem.remove(blobPath(id))
    }

    /// Creates `path` and locks it. A sweep can take the name between the two (it sees an
    /// unlocked `.incoming-` file: a dead writer's, for all it knows), so the lock is only
    /// trusted once the name is still this file; otherwise the file is made again.
    private static func createLocked(_ path: String) throws(FileIOError) -> FileDescriptor {
        while true {
            let file = try FileDescriptor.create(path)
            do {
                _ = try file.lockExclusively(waiting: true)
                if try FileIO.FileSystem.status(path, followingLinks: false).identity == file.status().identity { return file }
            } catch where error.errno == .notFound {
                // Swept away before the lock: make it again.
            } catch {
                try? file.close()
                throw error
            }
            try? file.close()
        }
    }

    /// Removes what no row names: blobs left by a `file add` that was killed before its row
    /// committed, and incoming ones it never finished. `keeping` is asked, while the blob's
    /// lock is held, whether a row names it (so a blob whose row commits meanwhile stays).
    func sweep(keeping isNamed: (String) throws(StoreError) -> Bool) throws(StoreError) {
        for name in FileSystem.entries(of: directory) where name != "." && name != ".." {
            let id = name.hasPrefix(".incoming-") ? String(name.dropFirst(".incoming-".count)) : name
            guard let file = try? FileDescriptor.open(directory + "/" + name, .readOnly) else { continue }
            defer { try? file.close() }
            guard (try? file.lockExclusively(waiting: false)) == true else { continue }
            let isOrphan = try name.hasPrefix(".incoming-") ? true : !isNamed(id)
            if isOrphan { FileSystem.remove(directory + "/" + name) }
        }
    }

    /// Hands `body` each chunk of `source` (``FileStream/chunkSize`` bytes; the last shorter,
    /// possibly empty, and `final`), read into `buffers` in turn; returns the bytes read.
    /// A source that changed while it was read throws ``StoreError/fileChangedWhileRead``.
    private static func chunks(of source: FileDescriptor, into buffers: [Buffer], progress: (Int64) -> Void,
                               _ body: (UnsafeRawBufferPointer, Bool) throws(StoreError) -> Void) throws(StoreError) -> Int64 {
        let before = try call { () throws(FileIOError) in try source.status() }
        var total: Int64 = 0
        var turn = 0
        while true {
            let chunk = buffers[turn % buffers.count]
            turn += 1
            let count = try call { () throws(FileIOError) in try readFully(source, into: chunk.bytes) }
            let final = count < chunk.bytes.count
            try body(UnsafeRawBufferPointer(rebasing: chunk.bytes[..<count]), final)
            total += Int64(count)
            progress(total)
            if final {
                try call { () throws(FileIOError) in try source.checkUnchanged(since: before, bytesRead: total) }
                return total
            }
        }
    }

    /// Reads until `buffer` is full or the file ends; returns the bytes read.
    static func readFully(_ file: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(FileIOError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// A chunk-sized buffer, allocated once per file and wiped when released: it holds the
    /// reader's book in the clear.
    private final class Buffer {
        let bytes: UnsafeMutableRawBufferPointer

        init(count: Int) {
            bytes = .allocate(byteCount: count, alignment: 16)
            bytes.initializeMemory(as: UInt8.self, repeating: 0)
        }

        deinit {
            wipe(bytes)
            bytes.deallocate()
        }
    }

    private static func call<Result>(_ body: () throws(FileIOError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw StoreError(error) }
    }

    private static func crypto<Result>(_ body: () throws(CryptoError) -> Result) throws(StoreError) -> Result {
        do { return try body() } catch { throw .crypto(error) }
    }
}
