import Testing
@testable import Keystore

/// The wire format against bytes written by hand from the D-Bus specification, and a
/// reader that refuses what does not fit.
@Suite struct WireFormatTests {
    private func written(_ body: (WireWriter) throws(KeystoreError) -> Void) throws -> [UInt8] {
        let writer = try WireWriter()
        try body(writer)
        return writer.buffer.withUnsafeBytes { Array($0) }
    }

    private func reading<Result>(_ bytes: [UInt8], littleEndian: Bool = true,
                                 _ body: (inout WireReader) throws(KeystoreError) -> Result) throws -> Result {
        let buffer = try SecureByteBuffer()
        try bytes.withUnsafeBytes { raw in try buffer.append(raw) }
        return try buffer.withUnsafeBytes { (raw) throws(KeystoreError) -> Result in
            var reader = WireReader(bytes: raw, position: 0, littleEndian: littleEndian)
            return try body(&reader)
        }
    }

    @Test func basicValuesAreAlignedAndLittleEndian() throws {
        let bytes = try written { (writer) throws(KeystoreError) in
            try writer.byte(7)
            try writer.uint32(0x0102_0304)
            try writer.string("ab")
            try writer.signature("ao")
            try writer.bool(true)
        }
        #expect(bytes == [7, 0, 0, 0, 4, 3, 2, 1, 2, 0, 0, 0, 0x61, 0x62, 0, 2, 0x61, 0x6F, 0, 0, 1, 0, 0, 0])
    }

    @Test func anArrayLengthLeavesOutThePaddingBeforeItsFirstElement() throws {
        let bytes = try written { (writer) throws(KeystoreError) in try writer.stringDictionary([("k", "v")]) }
        // length 14 | 4 bytes padding to 8 | "k" | "v"
        #expect(bytes == [14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x6B, 0, 0, 0, 1, 0, 0, 0, 0x76, 0])
    }

    @Test func whatIsWrittenReadsBack() throws {
        let bytes = try written { (writer) throws(KeystoreError) in
            try writer.array(elementAlignment: 4) { () throws(KeystoreError) in
                try writer.string("/a")
                try writer.string("/b/c")
            }
            try writer.array(elementAlignment: 4) { () throws(KeystoreError) in }
            try writer.variant(signature: "t") { () throws(KeystoreError) in
                try writer.pad(to: 8)
                try writer.buffer.append(utf8: "\u{1}\0\0\0\0\0\0\0")
            }
        }
        let (first, second, variantType, number) = try reading(bytes) { (reader) throws(KeystoreError) in
            (try reader.objectPaths(), try reader.objectPaths(), try reader.signature(), try reader.uint64())
        }
        #expect(variantType == "t")
        #expect(first == ["/a", "/b/c"])
        #expect(second.isEmpty)
        #expect(number == 1)
    }

    @Test func bigEndianIsReadToo() throws {
        let value = try reading([0, 0, 1, 2], littleEndian: false) { (reader) throws(KeystoreError) in try reader.uint32() }
        #expect(value == 0x0102)
    }

    @Test func skippingWalksNestedTypes() throws {
        let bytes = try written { (writer) throws(KeystoreError) in
            // a{sv} with one entry holding a variant of (sb), then a trailing byte
            try writer.array(elementAlignment: 8) { () throws(KeystoreError) in
                try writer.structure { () throws(KeystoreError) in
                    try writer.string("key")
                    try writer.variant(signature: "(sb)") { () throws(KeystoreError) in
                        try writer.structure { () throws(KeystoreError) in
                            try writer.string("x")
                            try writer.bool(false)
                        }
                    }
                }
            }
            try writer.byte(0x5A)
        }
        let rest = try reading(bytes) { (reader) throws(KeystoreError) -> (Substring, UInt8) in
            let left = try reader.skip("a{sv}y")
            return (left, try reader.byte())
        }
        #expect(rest.0 == "y")
        #expect(rest.1 == 0x5A)
    }

    @Test(arguments: [
        ("a string longer than the message", [UInt8]([200, 0, 0, 0, 0x61, 0])),
        ("a string without its NUL", [1, 0, 0, 0, 0x61, 0x62]),
        ("a boolean that is 2", [2, 0, 0, 0]),
        ("an array longer than the message", [255, 255, 0, 0]),
    ])
    func malformedValuesAreRefused(name: String, bytes: [UInt8]) {
        #expect(throws: BusProtocolFailure.malformedMessage.error, "\(name)") {
            try reading(bytes) { (reader) throws(KeystoreError) in
                if name.contains("boolean") { _ = try reader.bool() }
                else if name.contains("array") { _ = try reader.objectPaths() }
                else { _ = try reader.string() }
            }
        }
    }

    @Test(arguments: ["", "a", "(s", "{sv", "z", "v"])
    func aSignatureThatIsNotOneCompleteTypeIsRefused(type: String) {
        #expect(throws: BusProtocolFailure.malformedMessage.error) {
            try reading([0, 0, 0, 0, 0, 0, 0, 0]) { (reader) throws(KeystoreError) in _ = try reader.skip(Substring(type)) }
        }
    }

    @Test func aHugeMessageIsRefusedBeforeItArrives() throws {
        // "l", a method return, body length 16 MiB.
        let header: [UInt8] = [0x6C, 2, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect(throws: BusProtocolFailure.messageTooLarge.error) {
            _ = try header.withUnsafeBytes { raw in try Message.length(ofFirstIn: raw) }
        }
        #expect(try [UInt8](header.prefix(15)).withUnsafeBytes { raw in try Message.length(ofFirstIn: raw) } == nil)
    }

    @Test func aMethodCallIsFramedAsTheSpecSays() throws {
        let output = try SecureByteBuffer()
        let call = MethodCall(destination: "d.e", path: "/p", interface: "i.f", member: "M", signature: "s") { (body) throws(KeystoreError) in
            try body.string("x")
        }
        try call.encode(serial: 9, into: output)
        let bytes = output.withUnsafeBytes { Array($0) }
        #expect(Array(bytes.prefix(12)) == [0x6C, 1, 0, 1, 6, 0, 0, 0, 9, 0, 0, 0])
        // The header (fields and padding) ends on an 8-byte boundary, and the body follows.
        #expect((bytes.count - 6) % 8 == 0)
        #expect(Array(bytes.suffix(6)) == [1, 0, 0, 0, 0x78, 0])
        #expect(try bytes.withUnsafeBytes { raw in try Message.length(ofFirstIn: raw) } == bytes.count)
    }
}
