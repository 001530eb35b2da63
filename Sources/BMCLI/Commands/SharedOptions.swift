/// Options several commands share, spelled once.
enum SharedOptions {
    static let json = OptionSpec(name: "json", help: "Print JSON (see Docs/CLI.md for the shape).")
    static let passphraseStdin = OptionSpec(name: "passphrase-stdin", help: "Read the passphrase from the first line of standard input.")
    static let kdf = OptionSpec(name: "kdf", valueName: "strength",
                                help: "Argon2id cost for the passphrase: interactive, moderate or sensitive (init: moderate; rekey: the current cost).")
    static let locator = OptionSpec(name: "locator", short: "l", valueName: "locator",
                                    help: "Where in the book: a page, chapter or location, such as \"p. 42\".")
    static let writtenOn = OptionSpec(name: "on", valueName: "time",
                                      help: "When it was written (default: now): \(ValueParsing.timeForms); not in the future.")
    static let fresh = OptionSpec(name: "fresh", help: "Sync first, so what is shown includes other devices' changes (fails if no remote can be reached).")
    static let book = ArgumentSpec(name: "book", help: "The book: its short id or id, its title, part of its title or of an author's name, or @last-book.")
    static let bookFilter = OptionSpec(name: "book", short: "b", valueName: "book",
                                       help: "Only this book: an id, or part of its title or author (see BOOK in Docs/CLI.md).")
    static let kindFilter = OptionSpec(name: "kind", short: "k", valueName: "kind", help: "Only notes or only quotes: note or quote.")
    static let tagFilter = OptionSpec(name: "tag", valueName: "tag", help: "Only those with this tag (case and accents ignored).")
    static let tags = OptionSpec(name: "tag", valueName: "tag", help: "A tag to give it (one word); repeat for several.", isRepeatable: true)
    static let id = ArgumentSpec(name: "id", help: "A record: its short id (as listings show it), its id or a unique prefix, or @last, @last~N, @last-book.")
}

/// The input of a command whose only option is `--json`.
struct JSONOnlyInput: CommandInput {
    var json = false

    static var parameters: [Parameter<JSONOnlyInput>] { [.flag(\.json, SharedOptions.json)] }
}
