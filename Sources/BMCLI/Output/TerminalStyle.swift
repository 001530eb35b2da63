import Journal

/// Colour for a person reading at a terminal: short ids, kinds, conflicts and headings.
///
/// The escapes are added around text that has already been made printable
/// (``HumanFormat/printable(_:)``), so no journal text can bring its own. Off unless the
/// command's output is for a terminal that takes it (``Console/showsColor``).
struct TerminalStyle {
    let enabled: Bool

    static let plain = TerminalStyle(enabled: false)

    /// A short id, in yellow (as git shows commit ids).
    func id(_ text: String) -> String { paint(text, "33") }

    /// A record's kind: notes in cyan, quotes in magenta.
    func kind(_ kind: AnnotationKind, _ text: String) -> String { paint(text, kind == .quote ? "35" : "36") }

    /// A mark that asks for the reader's attention (a conflict copy), in red.
    func attention(_ text: String) -> String { paint(text, "31") }

    /// A heading (`Books`, `Notes and quotes`), in bold.
    func heading(_ text: String) -> String { paint(text, "1") }

    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m" + text + "\u{1B}[0m" : text
    }
}

/// `--color never|auto|always`.
enum ColorChoice: String, CaseIterable, Sendable {
    case never, auto, always
}
