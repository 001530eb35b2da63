import Journal
import VaultKit

/// What `bmvault` alone shows in an unlocked vault with books: the books being read and
/// the latest notes and quotes, short, on standard output. Anywhere else (no vault, a
/// locked one, no books) it shows nothing and the help is printed instead: it never asks
/// for a passphrase and never fails.
enum HomeScreen {
    /// Notes and quotes shown.
    static let latest = 5
    /// Characters of each note's first line shown.
    static let excerpt = 60

    /// Shows the home screen; false when there is none to show.
    static func show(_ context: CommandContext) -> Bool {
        guard context.usesKeyring, let vault = try? context.openVaultWithoutKey(), (try? vault.ensureUnlocked()) != nil,
              let books = try? vault.books().compactMap({ try? $0.get() }), !books.isEmpty else { return false }
        var text = "Currently reading\n"
        let reading = books.filter { book in
            book.readingLog.status == .reading || book.readingLog.status == nil && book.progress > 0 && book.progress < 100
        }
        if reading.isEmpty { text += "  nothing (bmvault book start BOOK)\n" }
        for book in reading {
            let authors = book.authors.isEmpty ? "" : " — " + HumanFormat.printable(book.authors.joined(separator: ", "))
            let since = book.readingLog.status == .reading ? book.readingLog.statusSince.map { ", since " + HumanFormat.localDate($0) } ?? "" : ""
            text += "  \(HumanFormat.printable(book.title))\(authors)  \(HumanFormat.position(book))\(since)\n"
        }
        var notes: [AnnotationListing] = []
        try? vault.forEachAnnotation(ListingRequest(newest: latest, order: .created)) { if case .success(let listing) = $0 { notes.append(listing) } }
        if !notes.isEmpty {
            text += "\nLatest notes and quotes\n"
            for listing in notes.reversed() {
                let note = listing.annotation
                let firstLine = note.body.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
                let cut = firstLine.count > excerpt ? firstLine.prefix(excerpt) + "…" : Substring(firstLine)
                let place = (listing.bookTitle.map(HumanFormat.printable) ?? "?") + (note.locator.map { " · " + HumanFormat.printable($0.text) } ?? "")
                text += "  \(HumanFormat.localTime(note.createdAt))  \(note.kind.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))  \(place)\n"
                    + "      \(HumanFormat.printable(String(cut)))\n"
            }
        }
        context.console.out(text + "\n`bmvault help` lists every command.\n")
        return true
    }
}
