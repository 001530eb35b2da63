import Foundation
import Testing
import Journal
@testable import Importers

/// Kindle's dates in every UI language read, to the second, in this machine's time zone (the
/// tests run with TZ as the suite sets it; each case is compared with libc's reading of the
/// same local time) or in UTC where the device said Greenwich Mean Time.
@Suite struct KindleDateTests {
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Timestamp? {
        LocalTimeText.timestamp(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    @Test(arguments: [
        ("Added on Monday, 11 May 2020 01:09:56", (2020, 5, 11, 1, 9, 56)),
        ("Added on Saturday, March 13, 2021 12:11:21 AM", (2021, 3, 13, 0, 11, 21)),
        ("Added on Thursday, July 29, 2021 10:37:23 PM", (2021, 7, 29, 22, 37, 23)),
        ("Added on Tuesday, April 24, 2012, 04:13 PM", (2012, 4, 24, 16, 13, 0)),
        ("Hinzugefügt am Montag, 11. Mai 2020 01:09:56", (2020, 5, 11, 1, 9, 56)),
        ("Hinzugefügt am Mittwoch, 4. März 2020 23:01:00", (2020, 3, 4, 23, 1, 0)),
        ("Ajouté le lundi 11 mai 2020 01:09:56", (2020, 5, 11, 1, 9, 56)),
        ("Ajouté le samedi 1 février 2020 09:00:01", (2020, 2, 1, 9, 0, 1)),
        ("Añadido el lunes, 11 de mayo de 2020 1:09:56 p. m.", (2020, 5, 11, 13, 9, 56)),
        ("Añadido el lunes, 11 de mayo de 2020 12:09:56 a. m.", (2020, 5, 11, 0, 9, 56)),
        ("Aggiunto in data lunedì 11 maggio 2020 01:09:56", (2020, 5, 11, 1, 9, 56)),
        ("Adicionado: segunda-feira, 11 de maio de 2020 01:09:56", (2020, 5, 11, 1, 9, 56)),
        ("Adicionado: sábado, 2 de novembro de 2019 14:03:00", (2019, 11, 2, 14, 3, 0)),
        ("添加于 2023年2月9日星期四 下午6:35:21", (2023, 2, 9, 18, 35, 21)),
        ("添加于 2020年5月11日星期一 上午1:09:56", (2020, 5, 11, 1, 9, 56)),
        ("追加日：2020年5月11日月曜日 午後1:09:56", (2020, 5, 11, 13, 9, 56)),
    ])
    func everyLanguageReadsToTheSecond(raw: String, expected: (Int, Int, Int, Int, Int, Int)) throws {
        let want = try #require(Self.local(expected.0, expected.1, expected.2, expected.3, expected.4, expected.5))
        #expect(KindleDate.timestamp(raw) == want, "\(raw)")
    }

    @Test func theOldFirmwaresGreenwichTimeIsUTC() {
        // 2012-12-03 19:42:30 UTC.
        #expect(KindleDate.timestamp("Added on Monday, 3 December 12 19:42:30 Greenwich Mean Time")
                == Timestamp(millisecondsSince1970: 1_354_563_750_000))
    }

    @Test(arguments: ["", "Added on Monday", "Added on 31 February 2020 10:00:00", "Added on Monday, 11 Mayo 2020",
                      "2023年13月9日 下午6:35:21", "Added on Monday, 11 May 2020 25:61:00", "12:00", "Added on Monday, May 2020 10:00"])
    func whatIsNoDateIsNil(raw: String) {
        #expect(KindleDate.timestamp(raw) == nil, "\(raw)")
    }
}
