import Testing
@testable import VaultCrypto

@Suite("FieldOpener")
struct FieldOpenerTests {
    let sealer: FieldSealer
    let other: FieldSealer
    static let vaultID = "0193f2a1-7c4e-7abc-8def-0123456789ab"

    init() throws {
        sealer = FieldSealer(key: try VaultKey.generate(), vaultID: Self.vaultID)
        other = FieldSealer(key: try VaultKey.generate(), vaultID: Self.vaultID)
    }

    private func open(_ opener: FieldOpener, _ sealed: [UInt8], recordID: String) throws -> [UInt8] {
        let id = Array(recordID.utf8)
        var plain: [UInt8] = []
        let answer = try sealed.withUnsafeBytes { sealed in
            try id.withUnsafeBytes { id in try opener.open(sealed, recordID: id) { plain = Array($0); return plain.count.isMultiple(of: 2) ? 1 : 0 } }
        }
        #expect(answer == (plain.count.isMultiple(of: 2) ? 1 : 0), "open returns what the test said")
        return plain
    }

    @Test("Opens what seal wrote, for many records in a row, whatever their lengths")
    func opensManyRecords() throws {
        let opener = try sealer.opener(table: "annotation", field: "body")
        // Long before short: the reused buffer must not leak the longer text's tail.
        let texts = [String(repeating: "long text ", count: 40), "short", "", "Ünïcødé 読書 📚"]
        for (index, text) in texts.enumerated() {
            let sealed = try sealer.seal(Array(text.utf8), table: "annotation", recordID: "r\(index)", field: "body")
            #expect(try open(opener, sealed, recordID: "r\(index)") == Array(text.utf8))
        }
    }

    @Test("Refuses a value bound to another record, field, table or key")
    func refusesOtherBindings() throws {
        let opener = try sealer.opener(table: "annotation", field: "body")
        let otherRecord = try sealer.seal(Array("text".utf8), table: "annotation", recordID: "r2", field: "body")
        let otherField = try sealer.seal(Array("text".utf8), table: "annotation", recordID: "r1", field: "locator")
        let otherTable = try sealer.seal(Array("text".utf8), table: "book", recordID: "r1", field: "body")
        let otherKey = try other.seal(Array("text".utf8), table: "annotation", recordID: "r1", field: "body")
        #expect(throws: CryptoError.authenticationFailed) { try open(opener, otherRecord, recordID: "r1") }
        #expect(throws: CryptoError.authenticationFailed) { try open(opener, otherField, recordID: "r1") }
        #expect(throws: CryptoError.authenticationFailed) { try open(opener, otherTable, recordID: "r1") }
        #expect(throws: CryptoError.keyMismatch) { try open(opener, otherKey, recordID: "r1") }
        // A refusal leaves the opener usable.
        let good = try sealer.seal(Array("good".utf8), table: "annotation", recordID: "r1", field: "body")
        #expect(try open(opener, good, recordID: "r1") == Array("good".utf8))
    }

    @Test("Refuses empty, truncated, tampered and unknown-version envelopes")
    func refusesDamage() throws {
        let opener = try sealer.opener(table: "annotation", field: "body")
        let sealed = try sealer.seal(Array("text".utf8), table: "annotation", recordID: "r1", field: "body")
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        var future = sealed
        future[0] = 2
        #expect(throws: CryptoError.malformed) { try open(opener, [], recordID: "r1") }
        #expect(throws: CryptoError.malformed) { try open(opener, Array(sealed.prefix(20)), recordID: "r1") }
        #expect(throws: CryptoError.authenticationFailed) { try open(opener, tampered, recordID: "r1") }
        #expect(throws: CryptoError.unsupportedFormat(version: 2)) { try open(opener, future, recordID: "r1") }
    }
}
