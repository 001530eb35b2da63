import Foundation
import Testing
@testable import Importers

/// calibre's highlights, a Readwise export and a jrnl journal, written as those programs
/// write them (field names, envelopes and quirks from their exporters' code), read into what
/// they hold; each told apart by content.
@Suite struct OtherFormatsTests {
    static let calibre = "\u{FEFF}" + #"""
        {
          "highlights": [
            {"highlighted_text": "It was the best of times,\nit was the worst of times", "notes": "the opening", "spine_index": 2,
             "spine_name": "chapter01.xhtml", "start_cfi": "/2/4/2/2:0", "end_cfi": "/2/4/2/4:10", "style": {"kind": "color", "type": "builtin", "which": "yellow"},
             "timestamp": "2021-01-05T11:11:11.123Z", "toc_family_titles": ["Book the First", "Chapter I"], "type": "highlight", "uuid": "ybGnregc0FPNrUijNfIHxg"},
            {"removed": true, "timestamp": "2021-01-06T08:00:00.000Z", "type": "highlight", "uuid": "k3J_vX-2aBc"},
            {"pos": "epubcfi(/6/4)", "pos_type": "epubcfi", "timestamp": "2021-01-06T09:00:00.000Z", "title": "A bookmark", "type": "bookmark"},
            {"highlighted_text": "  ", "timestamp": "2021-01-06T10:00:00.000Z", "type": "highlight", "uuid": "empty1"},
            {"highlighted_text": "A far, far better thing", "spine_name": "chapter45.xhtml", "timestamp": "2021-01-07T21:30:00.000Z",
             "type": "highlight", "uuid": "Zz9-_q"}
          ],
          "type": "calibre_highlights",
          "version": 1
        }
        """#

    @Test func calibresViewerExportGivesItsHighlightsAndCountsTheRest() throws {
        #expect(ImportFormat.detect(prefix: Array(Self.calibre.utf8)) == .calibre)
        let read = try CalibreHighlights.read(Array(Self.calibre.utf8))
        #expect(read.highlights.map(\.uuid) == ["ybGnregc0FPNrUijNfIHxg", "Zz9-_q"])
        #expect(read.highlights[0].text == "It was the best of times,\nit was the worst of times" && read.highlights[0].note == "the opening")
        #expect(read.highlights[0].chapter == "Chapter I" && read.highlights[1].chapter == "chapter45.xhtml")
        #expect(read.highlights[0].timestamp == "2021-01-05T11:11:11.123Z")
        #expect(read.removed == 1 && read.other == 2 && read.calibreBooks.isEmpty)
    }

    @Test func calibresLibraryCollectionNamesItsBooksByNumber() throws {
        let collection = #"{"annotations": [{"book_id": 15, "format": "EPUB", "annotation": {"type": "highlight", "uuid": "a1", "highlighted_text": "one"}},"#
            + #" {"book_id": 16, "type": "highlight", "uuid": "a2", "highlighted_text": "two"}], "type": "calibre_annotation_collection", "version": 1}"#
        #expect(ImportFormat.detect(prefix: Array(collection.utf8)) == .calibre)
        let read = try CalibreHighlights.read(Array(collection.utf8))
        #expect(read.highlights.map(\.text) == ["one", "two"] && read.calibreBooks == [15, 16])
        for broken in ["{\"type\": \"calibre_highlights\", \"version\": 2, \"highlights\": []}", "{\"type\": \"other\", \"version\": 1}", "[1, 2]", "{"] {
            #expect(throws: ImportError.self) { try CalibreHighlights.read(Array(broken.utf8)) }
        }
    }

    static let readwise = "Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,Document tags\r\n"
        + "\"Fear is the mind-killer.\",Dune,Frank Herbert,B00B7NPRY8,the litany,yellow,,location,1234,2020-05-11 21:09:56+00:00,\r\n"
        + "\"A quote \"\"in quotes\"\",\nover two lines\",Dune,Frank Herbert,B00B7NPRY8,,,,page,12,2020-05-12 08:00:00+00:00,\r\n"
        + ",Dune,Frank Herbert,,,,,location,99,,\r\n"
        + "A line from an article,How to Read,,,,,,order,3,,\r\n"

    @Test func aReadwiseExportGivesEachHighlightWithItsBook() throws {
        #expect(ImportFormat.detect(prefix: Array(Self.readwise.utf8)) == .readwise)
        let read = try ReadwiseExport.read(Array(Self.readwise.utf8))
        #expect(read.highlights.count == 3 && read.empty == 1)
        let first = read.highlights[0]
        #expect(first.title == "Dune" && first.author == "Frank Herbert" && first.asin == "B00B7NPRY8" && first.note == "the litany")
        #expect(first.locatorText == "loc 1234" && first.highlightedAt == "2020-05-11 21:09:56+00:00")
        #expect(read.highlights[1].text == "A quote \"in quotes\",\nover two lines" && read.highlights[1].locatorText == "p. 12")
        #expect(read.highlights[2].author == nil && read.highlights[2].locatorText == "#3")
        // The key: the same row in another export, whatever else changed.
        let again = try ReadwiseExport.read(Array(Self.readwise.replacingOccurrences(of: "the litany", with: "edited note").utf8))
        #expect(again.highlights.map(\.naturalKey) == read.highlights.map(\.naturalKey))
        #expect(Set(read.highlights.map(\.naturalKey)).count == 3)
        #expect(throws: ImportError.self) { try ReadwiseExport.read(Array("Highlight,Title\nx,y\n".utf8)) }
    }

    static let koreaderExport = #"""
        {
          "author": "Khalil Gibran",
          "created_on": 1703106000,
          "entries": [
            {"chapter": "On Love", "drawer": "lighten", "page": 14, "sort": "highlight", "text": "Love gives naught but itself", "note": "Sample note", "time": 1703102460},
            {"chapter": "On Giving", "drawer": "lighten", "page": 20, "sort": "highlight", "text": "You give but little", "time": 1703102520},
            {"chapter": "On Giving", "page": 21, "sort": "highlight", "text": "", "time": 1703102580}
          ],
          "exported": {},
          "file": "/mnt/onboard/The Prophet.epub",
          "number_of_pages": 96,
          "title": "The Prophet",
          "version": "exporter/1.0"
        }
        """#

    @Test func koreadersExporterJSONGivesTheSidecarsHighlights() throws {
        #expect(ImportFormat.detect(prefix: Array(Self.koreaderExport.utf8)) == .koreader)
        let read = try KOReaderExport.read(Array(Self.koreaderExport.utf8))
        #expect(read.documents.count == 1 && read.documents[0].title == "The Prophet" && read.documents[0].author == "Khalil Gibran")
        let entries = read.documents[0].entries
        #expect(entries.map(\.highlight.text) == ["Love gives naught but itself", "You give but little", ""])
        #expect(entries[0].highlight.note == "Sample note" && entries[0].highlight.locatorText == "p. 14 · On Love")
        #expect(entries[0].createdAt?.millisecondsSince1970 == 1_703_102_460_000)
        #expect(Set(entries.map(\.highlight.naturalKey)).count == 3)
        // Several books: under `documents`.
        let several = #"{"created_on": 1, "version": "x", "documents": [{"title": "A", "entries": []}, {"title": "B", "entries": [{"text": "t", "page": 1}]}]}"#
        #expect(ImportFormat.detect(prefix: Array(several.utf8)) == .koreader)
        #expect(try KOReaderExport.read(Array(several.utf8)).documents.map(\.title) == ["A", "B"])
        #expect(throws: ImportError.self) { try KOReaderExport.read(Array(#"{"number_of_pages": 3}"#.utf8)) }
    }

    /// Found by `Scripts/fuzz` (issue 40): a `time` near 2^63 seconds trapped on its way to
    /// milliseconds. A time outside 1970 to 9999 is no time (the import's own is taken).
    @Test func aKOReaderExportTimeOutOfRangeIsNoTimeNotATrap() throws {
        let times: [(String, Int64?)] = [("9223372036854775807", nil), ("9223372036854776", nil), ("-9223372036854775808", nil),
                                         ("-1", nil), ("253402300800", nil), ("253402300799", 253_402_300_799_000), ("0", 0)]
        for (time, milliseconds) in times {
            let export = #"{"number_of_pages": 1, "entries": [{"text": "t", "page": 1, "time": \#(time)}]}"#
            let entry = try #require(try KOReaderExport.read(Array(export.utf8)).documents.first?.entries.first)
            #expect(entry.createdAt?.millisecondsSince1970 == milliseconds, "\(time)")
        }
    }

    static let jrnl = #"""
        {
          "tags": {"@work": 1, "@dune": 1},
          "entries": [
            {"title": "Started Dune again.", "body": "The litany still works.\nSecond line.", "date": "2024-03-01", "time": "21:05",
             "tags": ["@dune"], "starred": true},
            {"title": "A title alone.", "body": "", "date": "2024-03-02", "time": "07:30", "tags": ["@work", "@"], "starred": false}
          ]
        }
        """#

    @Test func aJrnlJournalGivesItsEntries() throws {
        #expect(ImportFormat.detect(prefix: Array(Self.jrnl.utf8)) == .jrnl)
        let read = try JrnlExport.read(Array(Self.jrnl.utf8))
        #expect(read.entries.map(\.text) == ["Started Dune again.\nThe litany still works.\nSecond line.", "A title alone."])
        #expect(read.entries[0].tags == ["dune"] && read.entries[1].tags == ["work"])
        #expect(read.entries[0].localTime! == (2024, 3, 1, 21, 5))
        #expect(Set(read.entries.map(\.naturalKey)).count == 2)
        for broken in ["{\"entries\": [{\"title\": \"no date\", \"body\": \"\"}]}", "{\"tags\": {}}", "{\"entries\": [{\"date\": \"2024-01-01\"}]}"] {
            #expect(throws: ImportError.self) { try JrnlExport.read(Array(broken.utf8)) }
        }
    }

}
