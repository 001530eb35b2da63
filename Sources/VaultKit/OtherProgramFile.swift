import Applier
public import Importers
import Journal

/// A file of another program's that a reading device holds, read whole before the import's
/// transaction begins (a file that is not one changes nothing), then taken in by
/// ``importBooks(into:report:at:progress:)`` inside it: the same for one file given to
/// `import` and for each file of a device's folder imported in one run.
enum OtherProgramFile {
    case kindle(KindleImportPlan)
    case koreaderSidecars([(sidecar: KOReaderSidecar, path: String)])
    case koreaderStatistics(KOReaderStatistics)
    case kobo(KoboDatabase)

    /// Reads the file at `path` as `format` (one of the four a device holds). `sidecars`:
    /// KOReader's, when the device found them; else those under `path`, or `path` itself.
    static func read(at path: String, format: ImportFormat, sidecars found: [String]? = nil,
                     rules: KOReaderStatistics.Rules) throws(VaultError) -> OtherProgramFile {
        switch format {
        case .kindle:
            return .kindle(try Vault.kindleImportPlan(at: path))
        case .koreader:
            var paths = found ?? Vault.koreaderSidecars(under: path)
            if paths.isEmpty { paths = [path] }
            var sidecars: [(sidecar: KOReaderSidecar, path: String)] = []
            for path in paths { sidecars.append((try Vault.koreaderSidecar(at: path), path)) }
            return .koreaderSidecars(sidecars)
        case .koreaderStatistics:
            do { return .koreaderStatistics(try KOReaderStatistics.read(at: path, rules: rules)) } catch { throw .importFile(error) }
        case .kobo:
            do { return .kobo(try KoboDatabase.read(at: path)) } catch { throw .importFile(error) }
        case .bmvault, .goodreads, .calibre, .readwise, .jrnl, .device:
            throw .notImportable(path: path)
        }
    }

    var format: ImportFormat {
        switch self {
        case .kindle: .kindle
        case .koreaderSidecars: .koreader
        case .koreaderStatistics: .koreaderStatistics
        case .kobo: .kobo
        }
    }

    /// The highlights, notes or sessions the file holds: what progress counts.
    var total: Int {
        switch self {
        case .kindle(let plan): plan.totals.quotes + plan.totals.notes
        case .koreaderSidecars(let sidecars): sidecars.reduce(0) { $0 + $1.sidecar.highlights.count }
        case .koreaderStatistics(let statistics): statistics.books.reduce(0) { $0 + $1.sessions.count }
        case .kobo(let kobo): kobo.books.reduce(0) { $0 + $1.highlights.count }
        }
    }

    /// Takes the file's books and records into `importer`, a line per book in `report`, and
    /// counts in `report` what the file holds and is not imported. `progress` hears how many
    /// of ``total`` are done, after each book.
    func importBooks(into importer: ArchiveImport, report: inout OtherProgramImportReport, at now: Timestamp,
                     progress: (Int) -> Void) throws {
        var done = 0
        switch self {
        case .kindle(let plan):
            for book in plan.books {
                report.books.append(try Vault.importKindle(book, into: importer, at: now))
                done += book.quotes.count + book.notes.count
                progress(done)
            }
            let totals = plan.totals
            (report.merged, report.bookmarks, report.placeholders, report.empty) =
                (totals.replaced + totals.repeatedNotes, totals.bookmarks, totals.placeholders, totals.empty)
        case .koreaderSidecars(let sidecars):
            for (sidecar, path) in sidecars {
                report.books.append(try Vault.importKOReader(sidecar, from: path, into: importer, at: now))
                done += sidecar.highlights.count
                progress(done)
            }
            report.files = sidecars.count
            report.bookmarks = sidecars.reduce(0) { $0 + $1.sidecar.bookmarks }
            report.empty = sidecars.reduce(0) { $0 + $1.sidecar.highlights.filter { $0.text.allSatisfy(\.isWhitespace) }.count }
        case .koreaderStatistics(let statistics):
            for book in statistics.books {
                if let line = try Vault.importKOReaderStatistics(book, into: importer, report: &report, at: now) { report.books.append(line) }
                done += book.sessions.count
                progress(done)
            }
            report.pageTurns = statistics.pageTurns
            report.tooShort = statistics.books.reduce(0) { $0 + $1.tooShort }
        case .kobo(let kobo):
            for book in kobo.books {
                report.books.append(try Vault.importKobo(book, into: importer, at: now))
                done += book.highlights.count
                progress(done)
            }
            report.unopened = kobo.unopened
            report.bookmarks = kobo.books.reduce(0) { $0 + $1.dogEars }
            report.empty = kobo.books.reduce(0) { $0 + $1.withoutText }
        }
    }
}
