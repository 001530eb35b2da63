import Journal
import VaultKit

/// `trash` and `undelete`: what was deleted and can still come back.
enum TrashCommands {
    static func trash(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "trash", abstract: "List deleted records that can still be brought back.",
            discussion: "A deleted note, quote, book or session keeps its content, encrypted, until it is purged: once every "
                + "device that syncs has the deletion, or at the latest after the retention period. Until then `bmvault "
                + "undelete ID` brings it back.",
            parameters: JSONOnlyInput.parameters
        ) { input in
            let vault = try context.openVault()
            let trash = try vault.trash()
            if input.json {
                context.console.out(JSONDocuments.render(JSONDocuments.TrashDocument(trash)))
                return try context.finishListing()
            }
            let names = try vault.recordNames()
            let style = context.console.style
            let name = { (id: EntityID) in style.id(names.shortID(id)) }
            var text = ""
            let books = trash.books.compactMap { result -> Book? in
                if case .failure(let unreadable) = result { context.reportUnreadable(unreadable) }
                return try? result.get()
            }
            if !books.isEmpty {
                text += style.heading("Books") + "\n" + books.map { "  \(name($0.id))  \(HumanFormat.printable($0.title))  (deleted \(HumanFormat.localTime($0.deletedAt ?? $0.updatedAt)))\n" }.joined()
            }
            let notes = trash.annotations.compactMap { result -> AnnotationListing? in
                if case .failure(let unreadable) = result { context.reportUnreadable(unreadable) }
                return try? result.get()
            }
            if !notes.isEmpty {
                text += (text.isEmpty ? "" : "\n") + style.heading("Notes and quotes") + "\n"
                for listing in notes {
                    text += "  (deleted \(HumanFormat.localTime(listing.annotation.deletedAt ?? listing.annotation.updatedAt)))\n"
                        + HumanFormat.annotationBlock(listing, name: name, style: style)
                }
            }
            if !trash.sessions.isEmpty {
                text += (text.isEmpty ? "" : "\n") + style.heading("Sessions") + "\n" + trash.sessions.map { "  " + HumanFormat.sessionLine($0, name: name) }.joined()
            }
            if text.isEmpty {
                context.console.err("Nothing deleted can be brought back.\n")
            } else {
                context.startPaging()
                context.console.out(text)
                context.console.err("`bmvault undelete ID` brings one back; deleted content is kept at most \(trash.retentionDays) days.\n")
            }
            try context.finishListing()
        }
    }

    struct UndeleteInput: CommandInput {
        var ids: [String] = []

        static var parameters: [Parameter<UndeleteInput>] {
            [.arguments(\.ids, ArgumentSpec(name: "id", help: "Deleted records' short ids, ids or unique prefixes (see `bmvault trash`).",
                                            isVariadic: true))]
        }
    }

    static func undelete(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "undelete", abstract: "Bring deleted notes, quotes, books or sessions back.",
            discussion: "Several ids come back together or not at all. A note whose book was deleted brings the book back. "
                + "It syncs as a change of its own. A record whose content was purged cannot come back (exit 66).",
            parameters: UndeleteInput.parameters
        ) { input in
            let vault = try context.openVault()
            for restored in try vault.undelete(input.ids) {
                context.console.note("Brought back \(restored.kind) \(vault.shortID(restored.id)).\n")
            }
        }
    }
}
