/// Writes D-Bus values in the wire format (little-endian), into secure memory.
///
/// Alignment is relative to the start of the buffer, so a writer starts each message (or
/// each message body, which the header pads to an 8-byte boundary) with a fresh buffer.
struct WireWriter {
    let buffer: SecureByteBuffer

    init() throws(KeystoreError) {
        buffer = try SecureByteBuffer()
    }

    func pad(to alignment: Int) throws(KeystoreError) {
        let remainder = buffer.count % alignment
        if remainder != 0 { try buffer.appendZeros(alignment - remainder) }
    }

    func byte(_ value: UInt8) throws(KeystoreError) {
        try withUnsafeBytes(of: value) { (raw) throws(KeystoreError) in try buffer.append(raw) }
    }

    func uint32(_ value: UInt32) throws(KeystoreError) {
        try pad(to: 4)
        try withUnsafeBytes(of: value.littleEndian) { (raw) throws(KeystoreError) in try buffer.append(raw) }
    }

    func bool(_ value: Bool) throws(KeystoreError) { try uint32(value ? 1 : 0) }

    /// A string or an object path: length, UTF-8 bytes, NUL.
    func string(_ value: String) throws(KeystoreError) {
        try uint32(UInt32(value.utf8.count))
        try buffer.append(utf8: value)
        try byte(0)
    }

    /// A type signature: a one-byte length, the characters, NUL.
    func signature(_ value: String) throws(KeystoreError) {
        precondition(value.utf8.count <= 255, "a D-Bus signature is at most 255 bytes")
        try byte(UInt8(value.utf8.count))
        try buffer.append(utf8: value)
        try byte(0)
    }

    /// An array of bytes (`ay`), such as a secret.
    func byteArray(_ bytes: UnsafeRawBufferPointer) throws(KeystoreError) {
        try uint32(UInt32(bytes.count))
        try buffer.append(bytes)
    }

    /// An array: its byte length (patched in afterwards), padding to the first element's
    /// alignment (which the length does not count), then the elements `body` writes.
    func array(elementAlignment: Int, _ body: () throws(KeystoreError) -> Void) throws(KeystoreError) {
        try pad(to: 4)
        let lengthOffset = try buffer.appendZeros(4)
        try pad(to: elementAlignment)
        let start = buffer.count
        try body()
        let length = UInt32(buffer.count - start).littleEndian
        buffer.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: length, toByteOffset: lengthOffset, as: UInt32.self)
        }
    }

    /// A struct or dict entry: 8-byte aligned, then its members.
    func structure(_ body: () throws(KeystoreError) -> Void) throws(KeystoreError) {
        try pad(to: 8)
        try body()
    }

    /// A variant: the signature of its one value, then the value.
    func variant(signature valueSignature: String, _ body: () throws(KeystoreError) -> Void) throws(KeystoreError) {
        try signature(valueSignature)
        try body()
    }

    /// A string-to-string dictionary (`a{ss}`), such as item attributes, in key order.
    func stringDictionary(_ entries: [(String, String)]) throws(KeystoreError) {
        try array(elementAlignment: 8) { () throws(KeystoreError) in
            for (key, value) in entries {
                try structure { () throws(KeystoreError) in
                    try string(key)
                    try string(value)
                }
            }
        }
    }
}
