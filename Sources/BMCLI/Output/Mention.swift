import Journal
import VaultKit

/// How a message on standard error names what a command changed.
///
/// A title or locator is the reader's own text, so a message names it only when standard
/// error is a terminal, where a person reads it; otherwise (a script, a cron job whose
/// output is mailed or logged) it names the record by its short id.
struct Mention {
    let vault: Vault
    let showsContent: Bool

    init(vault: Vault, console: Console) {
        self.vault = vault
        self.showsContent = console.stderrIsTerminal
    }

    /// `"The Left Hand of Darkness"`, or `book abc8def`.
    func book(_ book: Book) -> String {
        showsContent ? "\"\(HumanFormat.printable(book.title))\"" : "book \(vault.shortID(book.id))"
    }

    /// `Book "The Left Hand of Darkness"`, or `Book abc8def`: a message's subject.
    func bookAsSubject(_ book: Book) -> String {
        showsContent ? "Book \"\(HumanFormat.printable(book.title))\"" : "Book \(vault.shortID(book.id))"
    }

    /// ` (p. 8)`: a locator after a book, at a terminal only.
    func locator(_ locator: Locator?) -> String {
        guard showsContent, let locator else { return "" }
        return " (\(HumanFormat.printable(locator.text)))"
    }
}
