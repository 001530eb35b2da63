import Testing
import Journal

/// `String(utf8Bytes:)` accepts exactly what `String(validating:as:)` accepts.
@Suite struct UTF8TextTests {
    @Test func acceptsTextAndRefusesWhatIsNotUTF8() {
        let samples: [[UInt8]] = [
            [], Array("plain".utf8), Array("é 👩🏽‍💻 مرحبا \u{0}\u{FEFF}".utf8),
            [0x80], [0xC3], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF0, 0x9F, 0x98], Array("ok".utf8) + [0xFF] + Array("ok".utf8), [0xEF, 0xBF, 0xBD],
        ]
        for bytes in samples {
            #expect(String(utf8Bytes: bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                [UInt8(ascii: "a"), 0x80, 0xBF, 0xC2, 0xE2, 0xED, 0xF0, 0xF4, 0xFF, 0x9F, 0xA0].randomElement(using: &generator)!
            }
            #expect(String(utf8Bytes: bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }
}
