import VaultKit

/// What `bmvault import` says of a reading device's folder: which files it found, each
/// file's own summary (as importing it alone says it), then the whole.
extension ArchiveCommands {
    static func humanSummary(_ device: DeviceImportReport, at path: String) -> String {
        let found = device.sources.map { name(of: $0.report) }
        var text = (device.dryRun ? "Dry run: nothing was changed. Found on the reading device " : "Imported from the reading device ")
            + HumanFormat.printable(path) + ": " + (found.isEmpty ? "nothing bmvault reads." : found.joined(separator: ", ") + ".") + "\n"
        for source in device.sources {
            text += "\n" + humanSummary(source.report, onDevice: true, place: source.place)
        }
        guard device.sources.count > 1 else { return text }
        let summary = device.summary
        let rows = [
            (device.dryRun ? "In all, would add:" : "In all, added:", "\(plural(summary.added.books, "book")), \(plural(summary.added.sessions, "session")), "
                + "\(plural(summary.added.quotes, "quote")), \(plural(summary.added.notes, "note"))"),
            (device.dryRun ? "Would update:" : "Updated:", "\(plural(device.whole.books.filter(\.progressed).count, "book")) (progress, rating or status), "
                + "\(plural(summary.updated.sessions, "session")), \(plural(summary.updated.quotes + summary.updated.notes, "quote or note", "quotes and notes"))"),
            ("Already in the vault:", plural(summary.unchanged, "record")),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        text += "\n" + rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
        return text
    }

    /// How the heading names one file of the device.
    private static func name(of report: OtherProgramImportReport) -> String {
        report.format == .koreader ? plural(report.files, "KOReader sidecar") : report.format.name
    }

    /// `import --json` of a reading device's folder, documented in Docs/CLI.md: the device as
    /// one file's document (format `device`, adding up its files), and `sources`.
    struct DeviceDocument: Encodable {
        /// One file's document, as importing it alone gives it, with its `place` on the
        /// device (null for KOReader's sidecars) and the number of `files` read.
        struct SourceDocument: Encodable {
            let document: OtherProgramDocument, place: String?, files: Int

            private enum CodingKeys: String, CodingKey { case place, files }

            func encode(to encoder: any Encoder) throws {
                try document.encode(to: encoder)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(place, forKey: .place)
                try container.encode(files, forKey: .files)
            }
        }

        let whole: OtherProgramDocument, sources: [SourceDocument]

        private enum CodingKeys: String, CodingKey { case sources }

        init(_ device: DeviceImportReport, listingSkipped: Bool) {
            whole = OtherProgramDocument(device.whole, listingSkipped: listingSkipped)
            sources = device.sources.map {
                SourceDocument(document: OtherProgramDocument($0.report, listingSkipped: listingSkipped), place: $0.place, files: $0.report.files)
            }
        }

        func encode(to encoder: any Encoder) throws {
            try whole.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sources, forKey: .sources)
        }
    }
}
