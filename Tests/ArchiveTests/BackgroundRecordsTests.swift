import Synchronization
import Testing
import Journal
@testable import Archive

/// journal.json's records come from another thread: in file order, with a malformed
/// record's error after every record before it, and a reading thread that stops when the
/// importing side does.
@Suite struct BackgroundRecordsTests {
    static let book = EntityID.generate(at: Timestamp(millisecondsSince1970: 0))

    /// A session whose page count says where it was in the stream.
    static func record(_ index: Int) -> (ArchiveRecord, ArchiveRecordOrigin) {
        let time = Timestamp(millisecondsSince1970: Int64(index))
        return (.session(ReadingSession(id: .generate(at: time), bookID: book, startedAt: time, endedAt: time, pagesRead: index)),
                ArchiveRecordOrigin(file: "journal.json", line: index))
    }

    static func pages(_ record: ArchiveRecord) -> Int {
        if case .session(let session) = record { return session.pagesRead }
        return -1
    }

    @Test(arguments: [0, 1, BackgroundRecords.batchSize, 5 * BackgroundRecords.batchSize + 3, 40 * BackgroundRecords.batchSize])
    func everyRecordArrivesInFileOrder(count: Int) throws {
        let records = BackgroundRecords { emit in
            for index in 0..<count where !emit(Self.record(index).0, Self.record(index).1) { return }
        }
        defer { records.stop() }
        var seen: [Int] = []
        while let batch = try records.next() {
            #expect(batch.count <= BackgroundRecords.batchSize)
            seen += batch.map { Self.pages($0.record) }
            #expect(batch.allSatisfy { $0.origin.line == Self.pages($0.record) })
        }
        #expect(seen == Array(0..<count))
        #expect(try records.next() == nil, "the end stays the end")
    }

    @Test(arguments: [0, 7, 3 * BackgroundRecords.batchSize])
    func aMalformedRecordComesAfterEveryRecordBeforeIt(good: Int) throws {
        let records = BackgroundRecords { emit throws(ArchiveError) in
            for index in 0..<good where !emit(Self.record(index).0, Self.record(index).1) { return }
            throw .truncated(file: "journal.json", line: good)
        }
        defer { records.stop() }
        var seen = 0
        do {
            while let batch = try records.next() { seen += batch.count }
            Issue.record("no error")
        } catch {
            #expect(error == .truncated(file: "journal.json", line: good))
        }
        #expect(seen == good)
    }

    /// The importing side gives up early (a merge failed): the reading thread stops at its
    /// next batch instead of reading the rest, and `stop` waits for it.
    @Test func stoppingEndsTheReadingThread() throws {
        let emitted = Atomic<Int>(0)
        let total = 1_000_000
        let records = BackgroundRecords { emit in
            for index in 0..<total {
                emitted.add(1, ordering: .relaxed)
                if !emit(Self.record(index).0, Self.record(index).1) { return }
            }
        }
        _ = try records.next()
        records.stop()
        let atStop = emitted.load(ordering: .relaxed)
        #expect(atStop < total)
        #expect(atStop <= (BackgroundRecords.maximumBatchesInFlight + 3) * BackgroundRecords.batchSize)
        records.stop()   // a second stop returns at once
    }
}
