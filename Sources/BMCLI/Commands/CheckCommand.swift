import VaultKit

/// `check`: the whole vault verified, damage named by kind and id, never by content.
enum CheckCommand {
    static func check(_ context: CommandContext) -> CommandSpec {
        CommandSpec(
            name: "check", abstract: "Verify the whole vault: the database, the keyslots, and that every sealed field opens.",
            discussion: "Reads only and changes nothing; needs the vault unlocked (the sealed fields are opened, then wiped). Damage is named by kind and id, never by content. Exit 0 when nothing is wrong, 65 when something is.",
            parameters: JSONOnlyInput.parameters
        ) { input in
            let report = try context.openVault().check()
            if input.json {
                context.console.out(JSONDocuments.render(Document(report)))
            } else {
                for finding in report.findings {
                    context.console.out("damaged: \(finding.kind)\(finding.id.map { " " + $0 } ?? ""): \(finding.problem)\n")
                }
                context.console.out(summary(report) + "\n")
            }
            if !report.findings.isEmpty { throw CLIError.checkFoundDamage(count: report.findings.count) }
        }
    }

    /// `Checked: the database, 2 keyslots, 7 books, ...: no damage found.`
    static func summary(_ report: VaultCheckReport) -> String {
        let parts = [("keyslot", "keyslot", "keyslots"), ("book", "book", "books"), ("annotation", "note or quote", "notes and quotes"),
                     ("annotation_version", "kept version", "kept versions"), ("tagging", "tag", "tags"), ("file", "book file", "book files"),
                     ("book_file", "file attachment", "file attachments"), ("outbox", "outbox operation", "outbox operations"),
                     ("retired_key", "retired key", "retired keys")]
            .compactMap { key, one, many in report.verified[key].map { "\($0) \($0 == 1 ? one : many)" } }
        let count = report.findings.count
        let found = count == 0 ? "no damage found" : "\(count) problem\(count == 1 ? "" : "s") found"
        return "Checked: the database, " + parts.joined(separator: ", ") + ": " + found + "."
    }

    struct Document: Encodable {
        struct Finding: Encodable { let kind: String, id: String?, problem: String }
        let ok: Bool
        let verified: [String: Int]
        let findings: [Finding]

        init(_ report: VaultCheckReport) {
            ok = report.findings.isEmpty
            verified = report.verified
            findings = report.findings.map { Finding(kind: $0.kind, id: $0.id, problem: $0.problem) }
        }
    }
}
