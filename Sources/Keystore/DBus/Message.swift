/// One message received from the bus, kept whole in secure memory (a reply may carry the
/// vault key), with the header fields bmvault looks at.
final class Message {
    /// The most bmvault accepts; the spec's limit is 128 MiB, but no Secret Service reply
    /// bmvault asks for comes near this, and a hostile peer must not make us allocate much.
    static let maximumBytes = 4 * 1024 * 1024

    let kind: MessageKind?
    let replySerial: UInt32?
    let errorName: String?
    let signature: String
    private let bytes: SecureByteBuffer
    private let bodyOffset: Int
    private let littleEndian: Bool

    /// The length of the first message in `buffer`, or nil if its fixed header has not
    /// fully arrived yet.
    static func length(ofFirstIn buffer: UnsafeRawBufferPointer) throws(KeystoreError) -> Int? {
        guard buffer.count >= 16 else { return nil }
        let littleEndian: Bool
        switch buffer[0] {
        case UInt8(ascii: "l"): littleEndian = true
        case UInt8(ascii: "B"): littleEndian = false
        default: throw BusProtocolFailure.malformedMessage.error
        }
        func word(at offset: Int) -> Int {
            let raw = buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Int(littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
        }
        let bodyLength = word(at: 4)
        let fieldsLength = word(at: 12)
        let headerLength = (16 + fieldsLength + 7) & ~7
        let total = headerLength + bodyLength
        guard bodyLength <= maximumBytes, fieldsLength <= maximumBytes, total <= maximumBytes else {
            throw BusProtocolFailure.messageTooLarge.error
        }
        return total
    }

    /// Parses the header of a complete message, which the new object keeps.
    init(taking bytes: SecureByteBuffer) throws(KeystoreError) {
        self.bytes = bytes
        var kind: MessageKind?
        var replySerial: UInt32?
        var errorName: String?
        var signature = ""
        var bodyOffset = 0
        let littleEndian = bytes.withUnsafeBytes { $0.first == UInt8(ascii: "l") }
        try bytes.withUnsafeBytes { (raw) throws(KeystoreError) in
            var reader = WireReader(bytes: raw, position: 1, littleEndian: littleEndian)
            kind = MessageKind(rawValue: try reader.byte())
            _ = try reader.byte()  // flags
            guard try reader.byte() == 1 else { throw BusProtocolFailure.malformedMessage.error }
            let bodyLength = Int(try reader.uint32())
            _ = try reader.uint32()  // serial
            try reader.array(elementAlignment: 8) { (fields) throws(KeystoreError) in
                try fields.align(8)
                let code = try fields.byte()
                let valueSignature = try fields.signature()
                switch (HeaderField(rawValue: code), valueSignature) {
                case (.replySerial?, "u"): replySerial = try fields.uint32()
                case (.errorName?, "s"): errorName = try fields.string()
                case (.signature?, "g"): signature = try fields.signature()
                default: try fields.skip(Substring(valueSignature))
                }
            }
            try reader.align(8)
            bodyOffset = reader.position
            guard raw.count - bodyOffset == bodyLength else { throw BusProtocolFailure.malformedMessage.error }
        }
        self.kind = kind
        self.replySerial = replySerial
        self.errorName = errorName
        self.signature = signature
        self.bodyOffset = bodyOffset
        self.littleEndian = littleEndian
    }

    /// Reads the body, after checking that its signature is `expected`.
    func readBody<Result>(expecting expected: String, _ body: (inout WireReader) throws(KeystoreError) -> Result) throws(KeystoreError) -> Result {
        guard signature == expected else { throw BusProtocolFailure.unexpectedReply.error }
        let offset = bodyOffset
        let littleEndian = littleEndian
        return try bytes.withUnsafeBytes { (raw) throws(KeystoreError) -> Result in
            var reader = WireReader(bytes: raw, position: offset, littleEndian: littleEndian)
            return try body(&reader)
        }
    }
}
