import Foundation
import Testing
import Journal
@testable import Sync
@testable import SyncWire
import VaultCrypto
import TestSupport

/// Seeded fuzzing of what a device reads from a remote (issue 23): operation documents,
/// acknowledgements and the descriptor after opening them, and a WebDAV server's folder
/// listings (issue 40: ``WebDAVListing`` over libxml2's push parser, ``XMLStream``), mutated
/// from real ones. Every case ends as a value or a ``RemoteError``; a crash, a trap or a
/// hang kills the run. More cases from other
/// seeds with `Scripts/fuzz`; seeds that ever broke one are kept in ``regressionSeeds``.
@Suite struct WireFuzzTests {
    static let regressionSeeds: [UInt64] = []

    private static func seeds(default first: UInt64, cases: Int) -> [UInt64] {
        let start = SeededMutator.firstSeed(default: first)
        return regressionSeeds + (0..<UInt64(SeededMutator.cases(default: cases))).map { start &+ $0 }
    }

    /// Real documents of every kind the engine opens.
    private static func originals() throws -> [(kind: String, bytes: [UInt8])] {
        var documents: [(String, [UInt8])] = []
        for (index, text) in OperationDocumentTests.texts.enumerated() {
            let note = try OperationDocumentTests.note(try TextRules.body(text), index: index)
            documents.append(("operation", OperationDocument.encode(OperationDocumentTests.operation(.annotation(note)))))
        }
        let acknowledgement = Acknowledgement(device: deviceID("d"), at: Timestamp(millisecondsSince1970: 1_767_225_600_000),
                                              applied: [deviceID("e"): OperationDocumentTests.clock], complete: true)
        documents.append(("acknowledgement", acknowledgement.encoded()))
        documents.append(("descriptor", try RemoteDescriptorTests.descriptor(
            generation: 3, chain: [RetiredKey(id: try KeyID(hex: "0102030405060708"), sealed: [1, 2, 3])]).encoded()))
        return documents
    }

    @Test func everyMutatedDocumentIsReadOrRefused() throws {
        let documents = try Self.originals()
        var (read, refused) = (0, 0)
        for seed in Self.seeds(default: 20_001, cases: 3000) {
            var mutator = SeededMutator(seed: seed)
            let (kind, original) = documents[Int(seed % UInt64(documents.count))]
            let bytes = mutator.mutate(original)
            do {
                switch kind {
                case "operation": _ = try OperationDocument.decode(bytes, expectedKey: OperationDocumentTests.key, device: deviceID("d"))
                case "acknowledgement": _ = try Acknowledgement.decode(bytes, device: deviceID("d"))
                default: _ = try RemoteDescriptor.decode(bytes)
                }
                read += 1
            } catch {
                refused += 1
            }
        }
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
    }

    /// Listings as Nextcloud and lighttpd send them, mutated, and read in pieces of 1 byte to
    /// 64 KiB as they would arrive: each ends as entries (never more than it has responses)
    /// or a ``RemoteError``.
    @Test func everyMutatedListingIsReadOrRefused() throws {
        let listings: [(folder: String, bytes: [UInt8])] = [
            (WebDAVRemoteTests.sampleListingFolder, Array(WebDAVRemoteTests.sampleListing.utf8)),
            (WebDAVRemoteTests.GeneratedListing.folder, Array(WebDAVRemoteTests.GeneratedListing(count: 12).joined())),
        ]
        let pieces = [1, 7, 512, 65_536]
        var (read, refused) = (0, 0)
        for seed in Self.seeds(default: 30_001, cases: 1500) {
            var mutator = SeededMutator(seed: seed)
            let listing = listings[Int(seed % UInt64(listings.count))]
            let bytes = mutator.mutate(listing.bytes)
            do {
                let entries = try WebDAVRemoteTests.entries(ofListing: bytes, folder: listing.folder,
                                                            pieces: pieces[Int(seed / 2 % UInt64(pieces.count))])
                #expect(entries.count <= bytes.count / "<response>".utf8.count, "seed \(seed)")
                read += 1
            } catch {
                refused += 1
            }
        }
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
    }
}
