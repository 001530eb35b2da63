import Foundation
import Testing
@testable import Importers
import TestSupport

/// A Kindle's `My Clippings.txt`, read from the real files in ../shared/fixtures/importers/kindle
/// (their README says what each exercises) and from generated ones in every language known.
@Suite struct KindleClippingsTests {
    typealias Totals = KindleImportPlan.Totals

    static func plan(_ name: String) throws -> (clippings: [KindleClipping], plan: KindleImportPlan) {
        let clippings = try KindleClippingsParser.parse(try Fixtures.kindle(name))
        return (clippings, KindleImportPlan(clippings))
    }

    /// Each file's counts, as its README implies, and every clipping accounted for once.
    @Test(arguments: [
        ("fyodor__extract_pt-br.txt", 35, 8, Totals(quotes: 26, comments: 4, notes: 2, bookmarks: 3)),
        ("fyodor__multiline_notes.txt", 2, 1, Totals(quotes: 1, comments: 1)),
        ("fyodor__page_only_and_lowercase.txt", 5, 5, Totals(quotes: 5)),
        ("hadynz__dup-location-scenario.txt", 3, 3, Totals(quotes: 3)),
        ("hadynz__dup-same-page.txt", 4, 1, Totals(quotes: 3, replaced: 1)),
        ("hadynz__first-scenario.txt", 7, 2, Totals(quotes: 4, comments: 1, notes: 1, replaced: 1)),
        ("hadynz__missing-note-scenario.txt", 2, 1, Totals(quotes: 1, comments: 1)),
        ("hadynz__no-content-scenario.txt", 3, 1, Totals(quotes: 1, bookmarks: 1, empty: 1)),
        ("hadynz__trailing-separator-start.txt", 2, 1, Totals(quotes: 2)),
        ("hadynz__unordered-scenario.txt", 7, 1, Totals(quotes: 3, comments: 4)),
        ("noted__My Clippings.txt", 1, 1, Totals(quotes: 1)),
    ])
    func eachFileGivesWhatItHolds(name: String, clippings count: Int, books: Int, totals: Totals) throws {
        let (clippings, plan) = try Self.plan(name)
        #expect(clippings.count == count, "\(name)")
        #expect(plan.books.count == books, "\(name)")
        #expect(plan.totals == totals, "\(name): \(plan.totals)")
        #expect(plan.totals.clippings == clippings.count, "\(name): every clipping counted once")
        #expect(clippings.allSatisfy { !$0.title.contains("\u{FEFF}") && !$0.body.contains("\r") && !$0.title.hasSuffix(" ") }, "\(name)")
        #expect(Set(clippings.map(\.naturalKey)).count == Set(clippings.map { "\($0.title)|\($0.kind)|\($0.rawDate ?? "")|\($0.body)" }).count)
    }

    @Test func titlesAuthorsAndPositionsInEveryFormSeen() throws {
        let (zh, _) = try Self.plan("hadynz__missing-note-scenario.txt")
        #expect(zh[0].title == "飘（上下） (外国文学名著名译丛书)" && zh[0].author == "(美)米切尔")
        #expect(zh[0].position.location == 2543...2544 && zh[1].kind == .note && zh[1].position.location == 2544...2544)
        #expect(zh[0].rawDate == "添加于 2023年2月9日星期四 下午6:35:21")
        let (kindle3, _) = try Self.plan("hadynz__trailing-separator-start.txt")
        #expect(kindle3[0].title == "Jornada de Montahue" && kindle3[0].author == "P Hernan Alessandri" && kindle3[0].position.page == 125...125)
        let (pdf, _) = try Self.plan("fyodor__page_only_and_lowercase.txt")
        #expect(pdf[1].title == "Rutherford 1996 - Of Birds and Gifts" && pdf[1].author == nil, "a later device's PDF name is a title")
        let (portuguese, plan) = try Self.plan("fyodor__extract_pt-br.txt")
        #expect(portuguese[0].title == "Your P2K Articles (2019-11-01)" && portuguese[0].author == "P2K" && portuguese[0].position.location == 77...80)
        #expect(portuguese.contains { $0.kind == .bookmark } && portuguese.contains { $0.kind == .note })
        // A note at 780 belongs to the highlight 779-781 around it.
        let held = plan.books.flatMap(\.quotes).filter { $0.highlight.position.location == 779...781 }
        #expect(held.first?.comments.map(\.position.location) == [780...780])
        let (multiline, multilinePlan) = try Self.plan("fyodor__multiline_notes.txt")
        #expect(multiline[0].kind == .note && multiline[0].body.contains("\n"), "a typed note's bare line feeds are its own")
        #expect(multilinePlan.books[0].quotes[0].comments.count == 1, "a note written before its highlight still belongs to it")
        #expect(KindleClippingsParser.titleAndAuthor("Le Petit Prince (Édition illustrée) (Saint-Exupéry, Antoine de)", dashSeparatesAuthor: false)
                == ("Le Petit Prince (Édition illustrée)", "Saint-Exupéry, Antoine de"))
        #expect(KindleClippingsParser.range(after: KindleClippingsParser.locationWords, in: "highlight loc. 1386-87") == 1386...1387)
    }

    @Test func aReHighlightReplacesTheShorterVersionWhichIsKept() throws {
        let (_, plan) = try Self.plan("hadynz__first-scenario.txt")
        let quote = try #require(plan.books.first { $0.title == "1984" }?.quotes.first)
        #expect(quote.highlight.body.hasSuffix("range of thought?"))
        #expect(quote.replaced.map(\.body) == ["Don’t you see that the whole aim of Newspeak is to narrow the range of"])
    }

    @Test func whatIsNotAClippingFileIsRefusedNamingTheLine() throws {
        #expect(throws: ImportError.malformed(line: 1, reason: "a clipping without its metadata line (`- Your Highlight ...`)")) {
            try KindleClippingsParser.parse(Array("just some text\nand more\n==========\n".utf8))
        }
        #expect(throws: ImportError.malformed(line: 2, reason: "a clipping of a kind bmvault does not know (another language?)")) {
            try KindleClippingsParser.parse(Array("Title (Author)\n- Votre chose | Ajouté le lundi\n\ntext\n==========\n".utf8))
        }
        // A title or author the journal does not take is named by its line too (issue 40).
        #expect(throws: ImportError.malformed(line: 6, reason: "the title has a control character or a line break")) {
            try KindleClippingsParser.parse(Array("Title (Author)\n- Your Highlight at location 5 | Added on Monday\n\ntext\n==========\nA\u{07}bell (Author)\n- Your Highlight at location 9 | Added on Monday\n\ntext\n==========\n".utf8))
        }
        #expect(throws: ImportError.malformed(line: 1, reason: "the author has a control character or a line break")) {
            try KindleClippingsParser.parse(Array("Title (Au\u{1B}[31mthor)\n- Your Highlight at location 5 | Added on Monday\n\ntext\n==========\n".utf8))
        }
        #expect(throws: ImportError.invalidUTF8) { try KindleClippingsParser.parse([0x54, 0xFF, 0x0A]) }
        #expect(try KindleClippingsParser.parse([]) == [])
    }

    /// Files generated in every UI language known, with the noise devices add (a BOM on any
    /// record, CRLF or LF, blank lines and separators at the start): each reads back as the
    /// records it was made from.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func generatedFilesInEveryLanguageReadBack(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let forms: [(kind: KindleClipping.Kind, line: (Int, Int) -> String)] = [
            (.highlight, { "- Your Highlight on page \($0) | location \($1)-\($1 + 3) | Added on Monday, 11 May 2020 01:09:56" }),
            (.highlight, { "- Ihre Markierung auf Seite \($0) | Position \($1)-\($1 + 3) | Hinzugefügt am Montag, 11. Mai 2020 01:09:56" }),
            (.highlight, { "- Votre surlignement sur la page \($0) | emplacement \($1)-\($1 + 3) | Ajouté le lundi 11 mai 2020 01:09:56" }),
            (.highlight, { "- Tu subrayado en la página \($0) | posición \($1)-\($1 + 3) | Añadido el lunes, 11 de mayo de 2020 1:09:56 p. m." }),
            (.highlight, { "- La tua evidenziazione a pagina \($0) | posizione \($1)-\($1 + 3) | Aggiunto in data lunedì 11 maggio 2020 01:09:56" }),
            (.highlight, { "- Seu destaque na página \($0) | posição \($1)-\($1 + 3) | Adicionado: segunda-feira, 11 de maio de 2020 01:09:56" }),
            (.highlight, { "- \($0) ページ|位置No. \($1)-\($1 + 3)のハイライト |作成日: 2020年5月11日月曜日 1:09:56" }),
            (.highlight, { "- 您在第 \($0) 页（位置 #\($1)-\($1 + 3)）的标注 | 添加于 2020年5月11日星期一 上午1:09:56" }),
            (.note, { "- Your Note on page \($0) | location \($1 + 3) | Added on Monday, 11 May 2020 01:10:00" }),
            (.note, { "- Ihre Notiz auf Seite \($0) | Position \($1 + 3) | Hinzugefügt am Montag, 11. Mai 2020 01:10:00" }),
            (.note, { "- 您在第 \($0) 页（位置 #\($1 + 3)）的笔记 | 添加于 2020年5月11日星期一 上午1:10:00" }),
            (.bookmark, { "- Your Bookmark on page \($0) | location \($1) | Added on Monday, 11 May 2020 01:11:00" }),
            (.bookmark, { "- Votre signet sur la page \($0) | emplacement \($1) | Ajouté le lundi 11 mai 2020 01:11:00" }),
            (.highlight, { "- Highlight Loc. \($1)-\($1 + 3 > 9 ? ($1 + 3) % 100 : $1 + 3) | Added on Monday, 3 December 12 19:42:30 Greenwich Mean Time" }),
        ]
        var expected: [(title: String, author: String, kind: KindleClipping.Kind, page: Int?, location: Int, body: String)] = []
        var text = Bool.random(using: &random) ? "\r\n==========\r\n" : ""
        let crlf = Bool.random(using: &random)
        for index in 0..<40 {
            let form = forms[Int.random(in: 0..<forms.count, using: &random)]
            let page = Int.random(in: 0..<400, using: &random) + 1, location = Int.random(in: 0..<8000, using: &random) + 100
            let title = ["Война и мир", "Le Petit Prince (Édition) ", "三体", "Dune"][Int.random(in: 0..<4, using: &random)].trimmingCharacters(in: .whitespaces)
            let author = ["Толстой, Лев", "Saint-Exupéry", "刘慈欣", "Herbert, Frank"][Int.random(in: 0..<4, using: &random)]
            let body = form.kind == .bookmark ? "" : "Text \(index) — «\(title)»" + (Bool.random(using: &random) ? "\nsecond line" : "")
            let eol = crlf ? "\r\n" : "\n"
            text += (Bool.random(using: &random) ? "\u{FEFF}" : "") + "\(title) (\(author))" + eol + form.line(page, location) + eol + eol
            text += body.replacingOccurrences(of: "\n", with: crlf && Bool.random(using: &random) ? "\n" : eol) + eol + "==========" + eol
            let hasPage = !form.line(page, location).contains("Loc.")
            expected.append((title, author, form.kind, hasPage ? page : nil, location + (form.kind == .note ? 3 : 0), body))
        }
        let read = try KindleClippingsParser.parse(Array(text.utf8))
        #expect(read.count == expected.count)
        for (clipping, wanted) in zip(read, expected) {
            #expect(clipping.title == wanted.title && clipping.author == wanted.author && clipping.kind == wanted.kind, "seed \(seed)")
            #expect(clipping.position.location?.lowerBound == wanted.location && clipping.position.page?.lowerBound == wanted.page,
                    "seed \(seed): \(clipping.position) for page \(String(describing: wanted.page)) location \(wanted.location)")
            #expect(clipping.body == wanted.body, "seed \(seed)")
        }
    }

    /// Mutated files (bytes flipped, cut, repeated) end with a result or a thrown error:
    /// never a crash or a hang.
    @Test func mutatedFilesNeverCrash() throws {
        let base = try Fixtures.kindle("fyodor__extract_pt-br.txt")
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            var bytes = base
            for _ in 0..<(Int.random(in: 0..<8, using: &random) + 1) {
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8(Int.random(in: 0..<256, using: &random))
                case 1: bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &random)..<bytes.count)
                case 2: bytes.insert(contentsOf: Array("==========\n- \n|".utf8), at: Int.random(in: 0..<bytes.count, using: &random))
                default: bytes.insert(contentsOf: bytes[0..<min(64, bytes.count)], at: Int.random(in: 0..<bytes.count, using: &random))
                }
                if bytes.isEmpty { bytes = [0x0A] }
            }
            if let clippings = try? KindleClippingsParser.parse(bytes) {
                #expect(KindleImportPlan(clippings).totals.clippings == clippings.count)
            }
        }
    }
}
