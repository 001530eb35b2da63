/// One method call to send: where, what, and a body writer.
struct MethodCall {
    let destination: String
    let path: String
    let interface: String
    let member: String
    /// The body's type signature ("" for none).
    let signature: String
    let body: (WireWriter) throws(KeystoreError) -> Void

    init(destination: String, path: String, interface: String, member: String, signature: String = "",
         body: @escaping (WireWriter) throws(KeystoreError) -> Void = { _ in }) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.signature = signature
        self.body = body
    }

    /// The whole message (header, padding, body) with `serial`, appended to `output`.
    /// Built in secure memory: a body may carry the secret being stored.
    func encode(serial: UInt32, into output: SecureByteBuffer) throws(KeystoreError) {
        let body = try WireWriter()
        try self.body(body)
        let message = try WireWriter()
        try message.byte(UInt8(ascii: "l"))  // little-endian
        try message.byte(MessageKind.methodCall.rawValue)
        try message.byte(0)                  // flags: a reply is wanted; the bus may start the service
        try message.byte(1)                  // protocol version
        try message.uint32(UInt32(body.buffer.count))
        try message.uint32(serial)
        try message.array(elementAlignment: 8) { () throws(KeystoreError) in
            try field(.path, in: message, signature: "o", path)
            try field(.interface, in: message, signature: "s", interface)
            try field(.member, in: message, signature: "s", member)
            try field(.destination, in: message, signature: "s", destination)
            if !signature.isEmpty {
                try message.structure { () throws(KeystoreError) in
                    try message.byte(HeaderField.signature.rawValue)
                    try message.variant(signature: "g") { () throws(KeystoreError) in try message.signature(signature) }
                }
            }
        }
        try message.pad(to: 8)
        try message.buffer.withUnsafeBytes { (raw) throws(KeystoreError) in try output.append(raw) }
        try body.buffer.withUnsafeBytes { (raw) throws(KeystoreError) in try output.append(raw) }
    }

    private func field(_ code: HeaderField, in message: WireWriter, signature: String, _ value: String) throws(KeystoreError) {
        try message.structure { () throws(KeystoreError) in
            try message.byte(code.rawValue)
            try message.variant(signature: signature) { () throws(KeystoreError) in try message.string(value) }
        }
    }
}

/// The message types of the D-Bus wire format.
enum MessageKind: UInt8 {
    case methodCall = 1
    case methodReturn = 2
    case error = 3
    case signal = 4
}

/// The header field codes bmvault writes or reads.
enum HeaderField: UInt8 {
    case path = 1
    case interface = 2
    case member = 3
    case errorName = 4
    case replySerial = 5
    case destination = 6
    case sender = 7
    case signature = 8
}
