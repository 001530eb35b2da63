import Foundation
import Journal

/// `index.md`: every book of the archive, linked to its Markdown file and grouped by
/// reading status, so a note tool (Obsidian, a Markdown viewer, a browser of the folder)
/// opens the archive at a table of contents. Shown, never read back: import ignores it.
enum ArchiveIndex {
    struct Entry {
        let title: String
        let authors: [String]
        let status: ReadingStatus?
        let fileName: String
    }

    /// The sections in the order a reader looks for them; books without a status last.
    private static let sections: [(status: ReadingStatus?, heading: String)] = [
        (.reading, "Reading"), (.wantToRead, "Want to read"), (.finished, "Finished"), (.abandoned, "Abandoned"), (nil, "Other books"),
    ]

    static func text(_ entries: [Entry]) -> String {
        var text = "# Books\n"
        if entries.isEmpty { return text + "\nThis archive holds no books.\n" }
        for (status, heading) in sections {
            let books = entries.filter { $0.status == status }
                .sorted { (TextFolding.fold($0.title), $0.fileName) < (TextFolding.fold($1.title), $1.fileName) }
            guard !books.isEmpty else { continue }
            text += "\n## \(heading)\n\n"
            for book in books {
                let authors = book.authors.isEmpty ? "" : " — " + book.authors.map(MarkdownText.inline).joined(separator: ", ")
                // A link's text also ends at a `]`, which a heading's does not escape.
                let linkText = MarkdownText.inline(book.title).replacingOccurrences(of: "]", with: "\\]")
                text += "- [\(linkText)](<\(ArchiveFormat.booksDirectory)/\(book.fileName)>)\(authors)\n"
            }
        }
        return text
    }
}
