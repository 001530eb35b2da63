internal import VaultCrypto

/// A growable byte buffer in secure memory, for D-Bus messages that may carry the vault
/// key: every byte read from or written to the bus passes through one, so no copy of a
/// secret is left in ordinary heap memory. Growing moves the bytes into a larger
/// ``SecretBytes`` and the old one is wiped as it goes away.
final class SecureByteBuffer {
    private var storage: SecretBytes
    /// How many bytes are in use, from the start.
    private(set) var count = 0

    init(capacity: Int = 4096) throws(KeystoreError) {
        storage = try Self.allocate(max(capacity, 64))
    }

    var capacity: Int { storage.count }

    /// Makes room for at least `additional` more bytes after `count`.
    func reserve(_ additional: Int) throws(KeystoreError) {
        let needed = count + additional
        guard needed > capacity else { return }
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = try Self.allocate(newCapacity)
        let used = count
        storage.withUnsafeBytes { old in
            grown.withUnsafeMutableBytes { new in
                new.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[0..<used]))
            }
        }
        storage = grown
    }

    /// Appends bytes (reserving room first).
    func append(_ bytes: UnsafeRawBufferPointer) throws(KeystoreError) {
        guard !bytes.isEmpty else { return }
        try reserve(bytes.count)
        let start = count
        storage.withUnsafeMutableBytes { buffer in
            UnsafeMutableRawBufferPointer(rebasing: buffer[start..<(start + bytes.count)]).copyMemory(from: bytes)
        }
        count += bytes.count
    }

    /// Appends the UTF-8 bytes of `text`.
    func append(utf8 text: String) throws(KeystoreError) {
        let length = text.utf8.count
        try reserve(length)
        let start = count
        storage.withUnsafeMutableBytes { buffer in
            _ = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<(start + length)]).initializeMemory(as: UInt8.self, from: text.utf8)
        }
        count += length
    }

    /// Appends `byteCount` zero bytes and returns where they start (for padding and for
    /// values written in place).
    @discardableResult
    func appendZeros(_ byteCount: Int) throws(KeystoreError) -> Int {
        try reserve(byteCount)
        let start = count
        storage.withUnsafeMutableBytes { buffer in
            for index in start..<(start + byteCount) { buffer[index] = 0 }
        }
        count += byteCount
        return start
    }

    /// Lets `body` fill up to `limit` bytes after `count`; it returns how many it wrote, or
    /// a negative number (a failed `recv`) for none.
    func fill<Failure: Error>(upTo limit: Int, _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int) throws(Failure) -> Int {
        let start = count
        let written = try storage.withUnsafeMutableBytes { (buffer) throws(Failure) -> Int in
            try body(UnsafeMutableRawBufferPointer(rebasing: buffer[start..<min(start + limit, buffer.count)]))
        }
        if written > 0 { count += written }
        return written
    }

    /// Removes the first `byteCount` bytes, moving the rest to the front and wiping what is freed.
    func removeFirst(_ byteCount: Int) {
        precondition(byteCount <= count, "removing more than the buffer holds")
        let remaining = count - byteCount
        storage.withUnsafeMutableBytes { buffer in
            if remaining > 0, let base = buffer.baseAddress {
                base.copyMemory(from: base + byteCount, byteCount: remaining)
            }
            for index in remaining..<count { buffer[index] = 0 }
        }
        count = remaining
    }

    /// Wipes everything and empties the buffer.
    func removeAll() { removeFirst(count) }

    func withUnsafeBytes<Result, Failure: Error>(_ body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        let used = count
        return try storage.withUnsafeBytes { (buffer) throws(Failure) -> Result in
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<used]))
        }
    }

    func withUnsafeMutableBytes<Result, Failure: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        let used = count
        return try storage.withUnsafeMutableBytes { (buffer) throws(Failure) -> Result in
            try body(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<used]))
        }
    }

    private static func allocate(_ capacity: Int) throws(KeystoreError) -> SecretBytes {
        do { return try SecretBytes(count: capacity) } catch { throw .crypto(error) }
    }
}
