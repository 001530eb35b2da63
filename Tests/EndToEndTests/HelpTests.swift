import Foundation
import Testing

/// Help text is part of the interface: checked verbatim against the built binary, so a
/// change to it is a deliberate change to this file.
@Suite struct HelpTests {
    static let rootHelp = """
        OVERVIEW: An encrypted, offline-first reading journal.

        Books, reading sessions, notes and quotes, sealed with libsodium; the key stays
        in the Secret Service while the vault is unlocked. Start with `bmvault init`,
        then `bmvault unlock`.

        USAGE: bmvault [--vault <dir>] [--no-keyring] [--verbose] [--debug] [--quiet] [--color <when>] [--no-pager] <subcommand>

        OPTIONS:
          --vault <dir>           The vault directory (default: $BMVAULT_HOME, else
                                  $XDG_DATA_HOME/bmvault, else ~/.local/share/bmvault).
          --no-keyring            Do not use the Secret Service: ask for the passphrase
                                  (or run $BMVAULT_PASSPHRASE_COMMAND) and keep the key
                                  in this process only.
          --verbose               Log more events (never more content) to the log file
                                  and standard error; `import` lists what it did not
                                  add.
          --debug                 Log every event, with timings (never content), to the
                                  log file and standard error.
          -q, --quiet             Leave out confirmations (Added, Saved, Deleted, ...)
                                  on standard error; errors, warnings and questions
                                  stay.
          --color <when>          Colour ids, kinds and conflicts: auto (at a terminal,
                                  unless NO_COLOR is set), always or never.
          --no-pager              Print long output (list, search, show, ...) straight
                                  to the terminal, not through $PAGER.
          -V, --version           Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          init                    Create a vault and print its recovery key once.
          unlock                  Keep the vault key in the Secret Service for a while.
          lock                    Remove the vault key from the Secret Service.
          status                  Show whether the vault is unlocked and what it holds.
          passphrase              Manage the vault's passphrase.
          recovery-key            Manage the vault's recovery key.
          migrate                 Show, rehearse or run the vault's schema upgrades.
          rekey                   Re-encrypt everything under a new vault key.
          diagnostics             Show versions, vault health and recent log lines,
                                  without content.
          check                   Verify the whole vault: the database, the keyslots,
                                  and that every sealed field opens.
          backup                  Copy the vault, still encrypted, to a new file.
          restore                 Make the vault again from a backup, as a new device.
          book                    Add, correct and rate books; progress and status.
          session                 Record, list and correct reading sessions.
          note                    Add notes: your own thoughts about a book.
          quote                   Add quotes: the book's words, with where they are.
          list                    List notes and quotes.
          show                    Show one note, quote, book or session in full.
          edit                    Change a note's or quote's text, locator, kind or
                                  date.
          move                    Move notes or quotes to another book.
          delete                  Delete notes, quotes, sessions or books.
          tag                     Tag books, notes and quotes; list the tags in use.
          file                    Keep your EPUB, MOBI and PDF files beside the
                                  journal, encrypted.
          trash                   List deleted records that can still be brought back.
          undelete                Bring deleted notes, quotes, books or sessions back.
          search                  Find notes and quotes by text, locator, title or
                                  author.
          stats                   Show pages, time, streaks and finished books.
          remote                  Set up the folders this vault syncs through.
          sync                    Send the outbox and take in other devices' changes.
          outbox                  Show the operations waiting to be synced (never their
                                  content).
          conflicts               List conflicts from syncing, and resolve them.
          purge                   Purge the text of records deleted longer ago than the
                                  retention period.
          export                  Write a plain-text archive, or update a notes folder.
          import                  Merge an archive, or a Kindle's or KOReader's
                                  highlights.
          completion              Print a shell completion script: bash, zsh or fish.
          man                     Print bmvault's manual page (roff), for man -l - or
                                  to install.
          version                 Print bmvault's version (also --version, -V).
          help                    Show subcommand help information.

          See 'bmvault help <subcommand>' for detailed help.
        """

    static let noteAddHelp = """
        OVERVIEW: Add a note to a book and print its id.

        USAGE: bmvault note add <book> [<text>] [--locator <locator>] [--tag <tag> ...] [--on <time>] [--json]

        ARGUMENTS:
          <book>                  The book: its short id or id, its title, part of its
                                  title or of an author's name, or @last-book.
          <text>                  The note. Omitted: read standard input if piped, else
                                  open $EDITOR.

        OPTIONS:
          -l, --locator <locator> Where in the book: a page, chapter or location, such
                                  as "p. 42".
          --tag <tag>             A tag to give it (one word); repeat for several.
          --on <time>             When it was written (default: now): now, HH:MM,
                                  today, yesterday [HH:MM], -7d, -45m, YYYY-MM-DD
                                  [HH:MM], or ISO 8601 such as
                                  2026-12-02T10:00:00+01:00; not in the future.
          --json                  Print JSON (see Docs/CLI.md for the shape).
          -h, --help              Show help information.

        EXAMPLES:
          bmvault note add dune
              Write the note in your editor: it stays out of the shell's history.
          bmvault note add dune - --locator "p. 12"
              Type the note, then Ctrl-D (or pipe it in).
          bmvault note add @last-book -
              Another note on the book of the last one.
        """

    @Test func rootHelpIsVerbatimInEveryForm() throws {
        let vault = try TestVault()
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout == Self.rootHelp + "\n", "\(arguments)")
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func leafHelpIsVerbatimInEveryForm() throws {
        let vault = try TestVault()
        for arguments in [["note", "add", "--help"], ["help", "note", "add"], ["note", "add", "-h"], ["--vault", "/x", "note", "add", "--help"]] {
            let result = try vault.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout == Self.noteAddHelp + "\n", "\(arguments)")
        }
    }

    @Test func everyCommandHasHelpThatNamesItsUsage() throws {
        let vault = try TestVault()
        let commands = [["init"], ["unlock"], ["lock"], ["status"], ["passphrase", "change"], ["recovery-key", "rotate"], ["book", "add"], ["book", "list"],
                        ["book", "progress"], ["book", "edit"], ["migrate"], ["rekey"], ["diagnostics"], ["remote", "add"], ["remote", "list"],
                        ["remote", "remove"], ["sync"], ["outbox"], ["conflicts"], ["conflicts", "resolve"], ["session", "add"], ["session", "list"], ["session", "edit"], ["session", "delete"], ["note", "add"], ["quote", "add"], ["list"], ["show"],
                        ["edit"], ["delete"], ["search"], ["file", "add"], ["file", "list"], ["file", "open"], ["file", "export"],
                        ["file", "verify"], ["file", "remove"]]
        for command in commands {
            let result = try vault.run(["help"] + command)
            #expect(result.status == 0, "\(command)")
            #expect(result.stdout.hasPrefix("OVERVIEW: "), "\(command)")
            #expect(result.stdout.contains("USAGE: bmvault \(command.joined(separator: " "))"), "\(command)")
            for line in result.stdout.split(separator: "\n") where !line.hasPrefix("USAGE: ") {
                #expect(line.count <= 79, "\(command): \(line)")
            }
        }
    }

    @Test func versionAndAGroupWithoutSubcommand() throws {
        let vault = try TestVault()
        for form in [["--version"], ["-V"], ["version"]] {
            let version = try vault.run(form)
            #expect(version.status == 0 && version.stderr.isEmpty, "\(form): \(version)")
            #expect(version.stdout == "bmvault 0.18.1\n", "\(form)")
        }
        #expect(try vault.run(["note", "-V"]).status == 64, "-V, like --version, is for bmvault itself")
        let group = try vault.run(["book"])
        #expect(group.status == 0)
        #expect(group.stdout.hasPrefix("OVERVIEW: Add, correct and rate books; progress and status.\n"))
    }
}
