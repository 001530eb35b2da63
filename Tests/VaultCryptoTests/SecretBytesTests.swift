import Testing
@testable import VaultCrypto

@Suite("SecretBytes")
struct SecretBytesTests {
    @Test("init(count:) gives that many zero bytes", arguments: [1, 7, 32, 4096])
    func zeroFilled(count: Int) throws {
        let bytes = try SecretBytes(count: count)
        #expect(bytes.count == count)
        #expect(contents(bytes) == [UInt8](repeating: 0, count: count))
    }

    @Test("init(copying:) copies the bytes, and later changes to the source do not leak in")
    func copying() throws {
        var source: [UInt8] = [1, 2, 3, 0xff, 0]
        let copy = try source.withUnsafeBytes { buffer throws(CryptoError) in try SecretBytes(copying: buffer) }
        source[0] = 99
        #expect(copy.count == 5)
        #expect(contents(copy) == [1, 2, 3, 0xff, 0])
    }

    @Test("Writes through withUnsafeMutableBytes are kept")
    func mutation() throws {
        let bytes = try SecretBytes(count: 4)
        bytes.withUnsafeMutableBytes { buffer in
            buffer[0] = 0xde; buffer[3] = 0xad
        }
        #expect(contents(bytes) == [0xde, 0, 0, 0xad])
    }

    @Test("The closures see exactly count bytes")
    func closuresSeeCount() throws {
        let bytes = try secret(bytes: [9, 8, 7])
        #expect(bytes.withUnsafeBytes { $0.count } == 3)
        #expect(bytes.withUnsafeMutableBytes { $0.count } == 3)
    }

    @Test("Errors thrown from the closures propagate with their type")
    func closureErrors() throws {
        let bytes = try SecretBytes(count: 1)
        #expect(throws: CryptoError.malformed) {
            try bytes.withUnsafeBytes { (_) throws(CryptoError) -> Int in throw .malformed }
        }
    }

    @Test("random(count:) has the requested length, is not all zero, and two calls differ")
    func random() throws {
        let first = try SecretBytes.random(count: 32)
        let second = try SecretBytes.random(count: 32)
        #expect(first.count == 32)
        #expect(contents(first) != [UInt8](repeating: 0, count: 32))
        #expect(contents(first) != contents(second))
        #expect(!first.constantTimeEquals(second))
    }

    @Test("truncate(to:) shortens the visible bytes and wipes the rest")
    func truncateWipes() throws {
        let bytes = try secret(bytes: [1, 2, 3, 4, 5, 6, 7, 8])
        bytes.truncate(to: 3)
        #expect(bytes.count == 3)
        #expect(contents(bytes) == [1, 2, 3])
        // Look past the visible count, still inside the 8-byte allocation.
        let tail = bytes.withUnsafeBytes { buffer in
            Array(UnsafeRawBufferPointer(start: buffer.baseAddress, count: 8)[3...])
        }
        #expect(tail == [0, 0, 0, 0, 0])
    }

    @Test("truncate(to: 0) wipes everything; truncate(to: count) changes nothing")
    func truncateEdges() throws {
        let bytes = try secret(bytes: [1, 2, 3])
        bytes.truncate(to: 3)
        #expect(contents(bytes) == [1, 2, 3])
        bytes.truncate(to: 0)
        #expect(bytes.count == 0)
        #expect(contents(bytes) == [])
        let wiped = bytes.withUnsafeBytes { Array(UnsafeRawBufferPointer(start: $0.baseAddress, count: 3)) }
        #expect(wiped == [0, 0, 0])
    }

    @Test("constantTimeEquals compares length and contents")
    func constantTimeEquals() throws {
        let a = try secret(bytes: [1, 2, 3, 4])
        #expect(a.constantTimeEquals(try secret(bytes: [1, 2, 3, 4])))
        #expect(a.constantTimeEquals(a))
        #expect(!a.constantTimeEquals(try secret(bytes: [1, 2, 3, 5])))
        #expect(!a.constantTimeEquals(try secret(bytes: [0, 2, 3, 4])))
        #expect(!a.constantTimeEquals(try secret(bytes: [1, 2, 3])))
        #expect(!a.constantTimeEquals(try secret(bytes: [1, 2, 3, 4, 0])))
        #expect(!a.constantTimeEquals(try SecretBytes(count: 0)))
        #expect(!(try SecretBytes(count: 0)).constantTimeEquals(a))
    }

    @Test("After truncating, only the visible bytes are compared")
    func constantTimeEqualsAfterTruncate() throws {
        let long = try secret(bytes: [1, 2, 3, 4])
        long.truncate(to: 2)
        #expect(long.constantTimeEquals(try secret(bytes: [1, 2])))
    }

    @Test("Count 0 works everywhere")
    func empty() throws {
        let empty = try SecretBytes(count: 0)
        #expect(empty.count == 0)
        #expect(contents(empty) == [])
        #expect(empty.withUnsafeMutableBytes { $0.count } == 0)
        #expect(empty.constantTimeEquals(try SecretBytes(count: 0)))
        let random = try SecretBytes.random(count: 0)
        #expect(random.count == 0)
        let copied = try [UInt8]().withUnsafeBytes { buffer throws(CryptoError) in try SecretBytes(copying: buffer) }
        #expect(copied.count == 0)
        #expect(copied.constantTimeEquals(empty))
        empty.truncate(to: 0)
        #expect(empty.count == 0)
    }

    @Test("wipe(_:) zeroes an ordinary buffer and keeps its length")
    func wipeArray() {
        var bytes: [UInt8] = [1, 2, 3, 0xff]
        wipe(&bytes)
        #expect(bytes == [0, 0, 0, 0])
        var empty: [UInt8] = []
        wipe(&empty)
        #expect(empty.isEmpty)
    }

    @Test("randomBytes(count:) has the requested length and two calls differ")
    func randomBytesFunction() throws {
        let first = try randomBytes(count: 24)
        #expect(first.count == 24)
        #expect(first != (try randomBytes(count: 24)))
        #expect(try randomBytes(count: 0) == [])
    }
}
