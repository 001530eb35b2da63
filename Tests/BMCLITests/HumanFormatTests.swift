import Foundation
import Testing
import Journal
@testable import BMCLI
@testable import VaultKit

/// Local times in listings, against the Foundation formatter they replaced, in whatever
/// time zone the test process has (Scripts/test does not set one).
@Suite struct HumanFormatTests {
    @Test(arguments: [Int64(0), 59_999, 60_000, -1, -60_001, 1_709_164_800_000, 1_711_846_799_000, 1_711_846_800_000,
                      1_730_000_000_000, 4_102_444_799_999])
    func localTimeMatchesDateFormatter(milliseconds: Int64) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        #expect(HumanFormat.localTime(Timestamp(millisecondsSince1970: milliseconds)) == expected)
    }

    /// The ranges `needsPicture` names are the Cc category (without line feed and tab), for
    /// every scalar there is.
    @Test func needsPictureIsTheControlCategory() {
        var disagreeing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let control = scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
            if HumanFormat.needsPicture(scalar) != control { disagreeing.append(value) }
        }
        #expect(disagreeing.isEmpty)
    }

    @Test(arguments: [
        ("plain é ¢ \u{A0} 日本 🙂", "plain é ¢ \u{A0} 日本 🙂"),
        ("tab\tand\nline", "tab\tand\nline"),
        ("esc\u{1B}[2J", "esc␛[2J"),
        ("del\u{7F}", "del\u{2421}"),
        ("c1 \u{85} \u{9B}31m \u{9F}", "c1 \u{FFFD} \u{FFFD}31m \u{FFFD}"),
        ("cr\r\n", "cr␍\n"),
        ("\u{0}", "␀"),
    ])
    func printableShowsControlsAsPictures(text: String, shown: String) {
        #expect(HumanFormat.printable(text) == shown)
    }

    @Test func annotationBlockIndentsEveryLineAndLeavesEmptyLinesEmpty() throws {
        let id = try EntityID(validating: "0176bd13-a0bd-7524-871a-176ef2f5e1b7")
        let note = Annotation(id: id, bookID: id, kind: .note, body: "first\n\n  third\r\nfourth\n",
                              locator: nil, createdAt: Timestamp(millisecondsSince1970: 0),
                              updatedAt: Timestamp(millisecondsSince1970: 0), deletedAt: nil, version: 1)
        let block = HumanFormat.annotationBlock(AnnotationListing(annotation: note, bookTitle: "T\u{1B}"), name: \.rawValue)
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasSuffix("  T␛") == true)
        #expect(Array(lines.dropFirst()) == ["    first", "", "      third␍", "    fourth", "", "", ""])
    }
}
