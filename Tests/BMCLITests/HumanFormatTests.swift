import Foundation
import Testing
import Journal
@testable import BMCLI

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
}
