import Foundation
import Testing
@testable import BookFiles
import TestSupport

/// MOBI and AZW3 files written byte by byte (``MOBIFixture``), read through libmobi from an
/// image of their first record.
@Suite struct MOBITests {
    @Test func everyMetadataFieldIsRead() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(MOBIFixture.complete.bytes, at: "book.mobi")
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .mobi)
        #expect(inspection.metadata == BookFileMetadata(
            title: "The Updated Title & More", creators: ["Ada Lovelace", "Charles Babbage"], language: "en",
            identifiers: ["isbn:9780306406157", "asin:B000FC1PJI"], publisher: "Analytical Press", date: "2007-03-01", hasCover: true))
        #expect(try !allText(inspection).contains(canary))
    }

    @Test func version8IsAZW3() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var fixture = MOBIFixture.complete
        fixture.version = 8
        let path = try directory.put(fixture.bytes, at: "book.mobi")
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .azw3)
        #expect(inspection.metadata.title == "The Updated Title & More")
    }

    /// A KF7/KF8 hybrid (kindlegen's `.mobi`): EXTH 121 names the boundary record, a KF8
    /// record 0 follows it. Only record 0 is read, so it is the MOBI it is named as, with
    /// its KF7 part's metadata.
    static func hybrid() -> MOBIFixture {
        var kf8 = MOBIFixture.complete
        kf8.version = 8
        kf8.exth = [MOBIFixture.string(503, "The KF8 Title")]
        var hybrid = MOBIFixture.complete
        hybrid.exth.append(MOBIFixture.number(121, 3))
        hybrid.moreRecords = [Array("BOUNDARY".utf8), kf8.record0, Array(kf8.text.utf8)]
        return hybrid
    }

    @Test func aHybridIsAMOBI() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        let path = try directory.put(Self.hybrid().bytes, at: "hybrid.mobi")
        let inspection = try BookFileInspector.inspect(path: path)
        #expect(inspection.format == .mobi)
        #expect(inspection.metadata.title == "The Updated Title & More")
        #expect(inspection.metadata.creators == ["Ada Lovelace", "Charles Babbage"])
    }

    /// Without EXTH 503 the MOBI header's full name is the title; authors in one record are
    /// split at ";"; no cover offset is no cover, nor is an offset of 0xFFFFFFFF.
    @Test func theFullNameIsTheTitleWithoutAnUpdatedOne() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var fixture = MOBIFixture(exth: [MOBIFixture.string(100, "Ada Lovelace; Charles Babbage"), MOBIFixture.string(524, "de")])
        let plain = try directory.put(fixture.bytes, at: "plain.azw")
        #expect(try BookFileInspector.inspect(path: plain) == BookFileInspection(format: .mobi, metadata: BookFileMetadata(
            title: "The Full Name Title", creators: ["Ada Lovelace", "Charles Babbage"], language: "de")))
        fixture.exth.append(MOBIFixture.number(201, .max))
        let noCover = try directory.put(fixture.bytes, at: "nocover.azw")
        #expect(try BookFileInspector.inspect(path: noCover).metadata.hasCover == false)
    }

    @Test func drmIsEncrypted() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var fixture = MOBIFixture.complete
        fixture.encryption = 2
        let path = try directory.put(fixture.bytes, at: "drm.azw")
        #expect(inspectionError(path) == .encrypted(.mobi))
        fixture.version = 8
        let kf8 = try directory.put(fixture.bytes, at: "drm.azw3")
        #expect(inspectionError(kf8) == .encrypted(.azw3))
    }

    /// Cut inside record 0, the record list points past the end of the file; cut inside the
    /// EXTH header of a one-record file, libmobi drops the EXTH header.
    @Test func aTruncatedFirstRecordIsDamaged() throws {
        let directory = try TemporaryDirectory.books()
        defer { directory.remove() }
        var fixture = MOBIFixture.complete
        fixture.pdbName = canary
        let bytes = fixture.bytes
        for length in [70, 80, 100, 120, 300, 400] {
            let path = try directory.put(Array(bytes.prefix(length)), at: "cut-\(length).mobi")
            let error = inspectionError(path)
            guard case .damaged(.mobi, _)? = error else {
                Issue.record("cut at \(length): \(String(describing: error))")
                continue
            }
            #expect(error.map { !String(describing: $0).contains(canary.prefix(20)) } == true)
        }
    }
}
