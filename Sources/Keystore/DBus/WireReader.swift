/// Reads D-Bus values in the wire format from one whole message, in either byte order.
///
/// The reader only looks at bytes inside the message it is given; every length is checked
/// against what is left, so a malformed or hostile message fails with
/// ``BusProtocolFailure/malformedMessage`` instead of reading out of bounds.
struct WireReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let littleEndian: Bool

    init(bytes: UnsafeRawBufferPointer, position: Int, littleEndian: Bool) {
        self.bytes = bytes
        self.position = position
        self.littleEndian = littleEndian
    }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func align(_ alignment: Int) throws(KeystoreError) {
        let remainder = position % alignment
        guard remainder != 0 else { return }
        try advance(alignment - remainder)
    }

    mutating func byte() throws(KeystoreError) -> UInt8 {
        try need(1)
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32() throws(KeystoreError) -> UInt32 {
        try align(4)
        try need(4)
        let raw = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        position += 4
        return littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
    }

    mutating func uint64() throws(KeystoreError) -> UInt64 {
        try align(8)
        try need(8)
        let raw = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
    }

    mutating func bool() throws(KeystoreError) -> Bool {
        switch try uint32() {
        case 0: return false
        case 1: return true
        default: throw BusProtocolFailure.malformedMessage.error
        }
    }

    /// A string or object path.
    mutating func string() throws(KeystoreError) -> String {
        let length = Int(try uint32())
        return try text(length: length)
    }

    mutating func signature() throws(KeystoreError) -> String {
        let length = Int(try byte())
        return try text(length: length)
    }

    /// The position of an `ay`'s bytes inside the message, without copying them.
    mutating func byteArray() throws(KeystoreError) -> Range<Int> {
        let length = Int(try uint32())
        let start = position
        try advance(length)
        return start..<position
    }

    /// Calls `element` until the array's bytes are used up.
    mutating func array(elementAlignment: Int, _ element: (inout WireReader) throws(KeystoreError) -> Void) throws(KeystoreError) {
        let length = Int(try uint32())
        try align(elementAlignment)
        try need(length)
        let end = position + length
        while position < end {
            try element(&self)
        }
        guard position == end else { throw BusProtocolFailure.malformedMessage.error }
    }

    /// An array of object paths (`ao`).
    mutating func objectPaths() throws(KeystoreError) -> [String] {
        var paths: [String] = []
        try array(elementAlignment: 4) { (reader) throws(KeystoreError) in paths.append(try reader.string()) }
        return paths
    }

    /// Skips one complete value of the type `signature` starts with, and returns the rest
    /// of the signature. Used for header fields and values bmvault does not need.
    @discardableResult
    mutating func skip(_ type: Substring, depth: Int = 0) throws(KeystoreError) -> Substring {
        // why a depth limit: the spec allows 32 levels of arrays and 32 of structs.
        guard depth < 64, let code = type.first else { throw BusProtocolFailure.malformedMessage.error }
        let rest = type.dropFirst()
        switch code {
        case "y": try advance(1)
        case "n", "q": try align(2); try advance(2)
        case "b", "i", "u", "h": _ = try uint32()
        case "x", "t", "d": _ = try uint64()
        case "s", "o": _ = try string()
        case "g": _ = try signature()
        case "v":
            let inner = try signature()
            let left = try skip(Substring(inner), depth: depth + 1)
            guard left.isEmpty else { throw BusProtocolFailure.malformedMessage.error }
        case "a":
            guard let element = rest.first else { throw BusProtocolFailure.malformedMessage.error }
            let elementSignature = try Self.singleType(rest)
            let alignment = Self.alignment(of: element)
            try array(elementAlignment: alignment) { (reader) throws(KeystoreError) in
                _ = try reader.skip(elementSignature, depth: depth + 1)
            }
            return rest.dropFirst(elementSignature.count)
        case "(", "{":
            let close: Character = code == "(" ? ")" : "}"
            try align(8)
            var members = rest
            while members.first != close {
                guard !members.isEmpty else { throw BusProtocolFailure.malformedMessage.error }
                members = try skip(members, depth: depth + 1)
            }
            return members.dropFirst()
        default:
            throw BusProtocolFailure.malformedMessage.error
        }
        return rest
    }

    // MARK: - Private

    private mutating func text(length: Int) throws(KeystoreError) -> String {
        try need(length + 1)
        let start = position
        guard bytes[start + length] == 0 else { throw BusProtocolFailure.malformedMessage.error }
        position += length + 1
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]), as: UTF8.self)
    }

    private mutating func advance(_ count: Int) throws(KeystoreError) {
        try need(count)
        position += count
    }

    private func need(_ count: Int) throws(KeystoreError) {
        guard count >= 0, count <= bytes.count - position else { throw BusProtocolFailure.malformedMessage.error }
    }

    /// The first complete type of `signature` (for an array's element type).
    private static func singleType(_ signature: Substring) throws(KeystoreError) -> Substring {
        var depth = 0
        var index = signature.startIndex
        while index < signature.endIndex {
            let code = signature[index]
            index = signature.index(after: index)
            switch code {
            case "a": continue  // its element type follows
            case "(", "{": depth += 1
            case ")", "}": depth -= 1
            default: break
            }
            guard depth >= 0 else { break }
            if depth == 0 { return signature[signature.startIndex..<index] }
        }
        throw BusProtocolFailure.malformedMessage.error
    }

    private static func alignment(of code: Character) -> Int {
        switch code {
        case "y", "g", "v": 1
        case "n", "q": 2
        case "x", "t", "d", "(", "{": 8
        default: 4
        }
    }
}
