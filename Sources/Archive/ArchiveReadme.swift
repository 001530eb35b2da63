/// The text of every archive's README.md, and the body of Docs/EXPORT-FORMAT.md (a test
/// keeps the two identical): the format explained to a person who has nothing but this
/// directory and a text editor, years from now. It holds nothing about one export (counts
/// and dates are in manifest.json), so two exports of one vault have the same README.
public enum ArchiveReadme {
    public static let text = ##"""
        # bmvault archive, format version 2

        This directory is an export of a bmvault reading journal: books, reading sessions,
        notes and quotes. It is plain text (UTF-8): read it with `less`, a text editor, a
        Markdown note tool, or `jq`. It is **not encrypted**: anyone who can read these files
        can read your journal. Keep it somewhere private, or encrypt it yourself.

        bmvault reads it back with `bmvault import DIR`, and every later bmvault reads every
        archive format version that was ever written.

        ## Files

        | file | what it is |
        | --- | --- |
        | `README.md` | this explanation (it says nothing about your journal: counts and dates are in manifest.json) |
        | `manifest.json` | what the archive is, which bmvault wrote it and when, how many records it holds, and the size and SHA-256 of every other file |
        | `journal.json` | the journal itself: every book, note, quote and session with its id and dates; this is what `bmvault import` reads first |
        | `books/<title>-<id>.md` | one Markdown file per book (deleted books have none): its details, its sessions, and its notes and quotes, for reading and for note tools |
        | `archive.schema.json` | a JSON Schema (draft 2020-12) of `journal.json` (and, under `$defs/manifest`, of `manifest.json`) |
        | `index.md` | every book, linked to its file in `books/`, under the headings Reading, Want to read, Finished, Abandoned and Other books (written from bmvault 0.14; import does not read it) |
        | `files/<title>-<id>.<format>` | with `bmvault export --with-files` (bmvault 0.17): a plain copy of each of your book files (EPUB, MOBI, AZW3, PDF), byte for byte the file you added, named by its book's title and the start of the file's id's random part |

        The file names in `books/` are the book's title in lowercase letters and digits,
        then the first 8 hex digits of its id's random part (the digits after the id's clock
        and version digit, where the short ids bmvault shows start), so a book keeps its file
        name from one export to the next while its title stays (archives made before bmvault
        0.14 used the id's first 8 characters); all 36 characters of the id if two books
        would share a name.

        ## Reading it without bmvault

        ```sh
        less books/*.md                                     # the journal, book by book
        jq '.books[] | {title, authors, progress}' journal.json
        jq -r '.notes[] | .body' journal.json               # every note
        jq -r '.quotes[] | "\(.body)\n  — \(.locator)\n"' journal.json
        jq '[.sessions[] | .pagesRead] | add' journal.json  # pages read in all
        jq --arg id BOOK-ID '.notes[] | select(.bookId == $id)' journal.json
        sha256sum journal.json                              # compare with manifest.json
        ```

        ## journal.json

        One JSON object (RFC 8259, UTF-8, no byte order mark). Keys are sorted; records keep a
        stable order (below); indentation is two spaces. Two exports of the same journal are
        identical files: only `exportedAt` in manifest.json differs.

        ```
        {
          "archive" : { "format" : "bmvault-archive", "formatVersion" : 2, "includesDeleted" : false },
          "books" : [ ... ],
          "notes" : [ ... ],
          "quotes" : [ ... ],
          "sessions" : [ ... ]
        }
        ```

        - `archive.format` is always `bmvault-archive`; `archive.formatVersion` is `2` for this
          format; `archive.includesDeleted` is `true` when the export was made with
          `--include-deleted`, which adds deleted books, notes and quotes (tombstones, with
          `deletedAt` set) and the sessions of deleted books.
        - Every time is ISO 8601 in UTC with milliseconds, such as `2026-12-02T10:07:46.123Z`.
          bmvault keeps times to the millisecond.
        - Every id is a UUID (version 7, so it starts with its creation time), written as 36
          lowercase characters. Ids never change, also across devices and archives.
        - Members that can be empty are `null`, never missing, except the optional members
          added later (marked "optional"), which are absent when empty.

        **books**, oldest first (by creation time, then id):

        | key | type | meaning |
        | --- | --- | --- |
        | `id` | string | the book's id |
        | `title` | string | one line, at most 1 KiB of UTF-8 |
        | `authors` | array of strings | in the order entered; may be empty |
        | `progress` | number | percent read, 0 to 100 |
        | `createdAt`, `updatedAt` | string | when added, when last changed |
        | `deletedAt` | string or null | when deleted (only with `includesDeleted`) |
        | `version` | integer | 1, plus one per change; at most 9,007,199,254,740,991 (2^53 − 1) here and in the Markdown, or the import refuses the archive |
        | `rating` | number, optional | bmvault 0.10: 1 to 5 in half stars; absent when not rated |
        | `isbn` | string, optional | bmvault 0.11: the ISBN-10 or ISBN-13, digits only (a final `X` in an ISBN-10), its check digit verified on import; absent when not known |
        | `pagesTotal` | integer, optional | bmvault 0.11: the number of pages, 1 to 100,000, against which a page given as progress is counted; absent when not known |
        | `year` | integer, optional | bmvault 0.11: the year of publication, −5000 to 9999; absent when not known |
        | `readingLog` | array, optional | bmvault 0.10: every status change, oldest first, each `{"clock", "on", "status"}`: `status` is `want-to-read`, `reading`, `finished` or `abandoned`, `on` the day (local midnight) or moment it happened, `clock` when and on which device it was recorded (its identity); bmvault 0.16 adds `"dayKnown" : false` to a change an import recorded without its day (`on` then only places it among the others); absent when none. The book's status is the last one's |
        | `tags` | array of strings, optional | bmvault 0.13: the book's tags, each one word (no white space or comma) of at most 64 characters, in alphabetical order ignoring case and accents; absent when none |
        | `files` | array, optional | bmvault 0.17: the book's files (`bmvault file add`), oldest first, each `{"addedAt", "format" (epub, mobi, azw3 or pdf), "id" (the book file's id), "kept" (stored: encrypted in the vault; linked: left where it lay, on the device that added it), "locator" (your place in it, or null), "metadata" ({"creators", "date", "hasCover", "identifiers", "language", "publisher", "title"}: what the file says of itself, null or empty where it says nothing), "path" (its plain copy in this archive, `files/...`, or null), "sha256" (of the plain file), "size" (in bytes)}`; never where a file lies on a device; absent when none |

        **notes** and **quotes** (a quote is the book's words, a note the reader's own), by
        book id, then creation time, then id:

        | key | type | meaning |
        | --- | --- | --- |
        | `id` | string | the note's or quote's id |
        | `bookId` | string | the id of its book |
        | `body` | string | the text, exactly as written (line breaks included), at most 1 MiB of UTF-8 |
        | `locator` | string or null | where in the book (`p. 42`, `ch. 3`, `loc 1234`); every quote has one |
        | `createdAt`, `updatedAt` | string | when written, when last changed |
        | `deletedAt` | string or null | when deleted (only with `includesDeleted`) |
        | `version` | integer | 1, plus one per change; at most 9,007,199,254,740,991 (2^53 − 1) here and in the Markdown, or the import refuses the archive |
        | `conflictOf` | string or null | for a conflict copy: the id of the note it is a copy of |
        | `conflictReason` | string or null | `both-edited` (two versions of one note: this copy holds the other) or `edited-after-delete` (edited on one device after being deleted on another); null once resolved |
        | `tags` | array of strings, optional | bmvault 0.13: the note's or quote's tags, as for books; absent when none |
        | `comment` | string, optional | bmvault 0.16: the reader's comment on a quote (a note typed on a Kindle highlight, KOReader's note on one), as for `body`; absent when none |
        | `importKey` | string, optional | bmvault 0.16: where an import from another program found it, `<source>:<key>` (`kindle:` and a SHA-256 in hex, ...); a later import of the same file skips what has its key; absent for what the reader wrote here |

        **sessions**, by book id, then start, then id; a deleted session is left out:

        | key | type | meaning |
        | --- | --- | --- |
        | `id` | string | the session's id |
        | `bookId` | string | the id of its book |
        | `startedAt`, `endedAt` | string | when the reading began and ended |
        | `pagesRead` | integer | 0 to 100000 |
        | `source` | string, optional | the bmvault after 0.18.1: where an import found the session, one word of at most 32 lowercase letters, digits and `-` (`koreader`: KOReader's statistics); absent for a session typed here. Set once: import keeps it |

        Strings escape `"`, `\`, control characters, DEL, U+0080–U+009F and U+2028/U+2029 as
        JSON escapes; everything else (accents, other scripts, emoji) is written as it is.

        ## manifest.json

        | key | meaning |
        | --- | --- |
        | `format`, `formatVersion` | `bmvault-archive`, `2` |
        | `generator.name`, `generator.version` | `bmvault` and its version |
        | `exportedAt` | when the export was made |
        | `includesDeleted` | as in journal.json |
        | `counts.books`, `.notes`, `.quotes`, `.sessions` | records in journal.json, tombstones included |
        | `deleted.books`, `.notes`, `.quotes` | how many of those are tombstones |
        | `files.<path>.bytes`, `files.<path>.sha256` | size and SHA-256 (lowercase hex) of every other file, by its path in the archive |

        ## books/*.md

        Each file begins with a YAML front matter, then the title as a heading, the sessions,
        and the notes and quotes in the order they were written (for a book read from front
        to back, that is reading order; locators are free text, so bmvault does not sort by
        them):

        ```markdown
        ---
        bmvault-archive: 2
        id: 0193f2a1-7c4e-7abc-8def-0123456789ab
        title: "The Name of the Rose"
        aliases:
          - "The Name of the Rose"
        authors:
          - "Umberto Eco"
        progress: 42.5
        created: 2026-01-03T19:20:00.000Z
        updated: 2026-01-09T21:05:12.345Z
        version: 3
        ---

        # The Name of the Rose

        by Umberto Eco · 42.5% read

        ## Sessions

        - 2026-01-09 21:00–22:00 (+01:00), 1 h 0 min, 30 pages <!-- bmvault:session 0193f2a1-... started=2026-01-09T20:00:00.000Z ended=2026-01-09T21:00:00.000Z pages=30 -->

        ## Notes and quotes

        ### Note · 2026-01-09 21:30 (+01:00)
        <!-- bmvault:note 0193f2a2-... created=2026-01-09T20:30:00.000Z updated=2026-01-09T20:30:00.000Z version=1 -->
        The library is a *labyrinth*, and so is the book. #idea

        — ch. 2
        <!-- /bmvault:note -->

        ### Quote · 2026-01-09 21:41 (+01:00)
        <!-- bmvault:quote 0193f2a3-... created=... updated=... version=1 -->
        > Stat rosa pristina nomine, nomina nuda tenemus.
        >
        > — p. 502

        <!-- bmvault:comment -->
        The title, and the whole book in one line.
        <!-- /bmvault:quote -->

        ### Note · 2026-01-10 08:02 (+01:00) · conflict copy of note 8def0123: two devices changed it, both versions are kept
        <!-- bmvault:note 0193f2a4-... created=... updated=... version=1 conflict-of=0193f2a2-... conflict=both-edited -->
        The library is a labyrinth.

        — ch. 2
        <!-- /bmvault:note -->
        ```

        - The front matter: `bmvault-archive` (the format version), the book's `id`, `title`,
          `aliases` (the title again, so that a note tool's `[[The Name of the Rose]]` finds
          the file; bmvault 0.14, shown only) and `authors` (double-quoted YAML strings), `progress`, `status` and `rating` when the
          book has them (bmvault 0.10; `rating` is read back, `status` is shown only: journal.json's
          `readingLog` is its record), `isbn` (a double-quoted string), `year` and `pages` when
          known (bmvault 0.11; read back), `tags` (bmvault 0.13; shown only: journal.json's
          `tags` are their record, and a note's or quote's tags are in journal.json alone),
          `files` (bmvault 0.17; shown only, one line per book file: its format, size,
          SHA-256 and plain copy; journal.json's `files` are their record),
          `created`, `updated`, `version`.
        - Under the title, one line for the reader, never read back: the authors, the progress to
          a tenth of a percent (`48.97727272727273` in the front matter is `49% read`), the status
          with its local day (`reading since 2026-11-15`), the rating and the book's tags. Archives
          written by bmvault 0.18.1 and earlier show every digit and a UTC instant there
          (`reading 2026-11-14T23:00:00.000Z`); import ignores the line in both forms.
        - A session is shown in the local time of the machine that exported it, with that
          time's offset from UTC and the session's length (archives before bmvault 0.14
          showed UTC times); its marker holds the exact UTC times, and is all an import reads
          of the line. A session an import recorded says where from after its pages
          (`20 pages (koreader)`) and in its marker (`source=koreader`, read back; the bmvault
          after 0.18.1).
        - Every session, note and quote carries its id in an HTML comment (`<!-- bmvault:...
          -->`), which Markdown tools keep and do not show. A note or quote runs from its
          marker to its end marker (`<!-- /bmvault:note -->`), so its text may have several
          paragraphs. The marker also holds its dates and version, for a conflict copy
          `conflict-of=<id> conflict=<reason>`, and for a record an import brought from
          another program its `import-key=<source>:<key>` (bmvault 0.16).
        - The reader's comment on a quote (bmvault 0.16) follows the quote and its locator
          line inside the quote's block, below a `<!-- bmvault:comment -->` line: not quoted,
          written as a note's text is (that line ends with `text=references` when the comment
          is written so). Everything below that line, up to the end marker, is the comment.
        - Above each marker, a heading shows the kind and when it was written, in local time
          with the offset from UTC (and when it was last edited, if in another minute); for
          a conflict copy, what it is (`conflict copy of note 8def0123`: the start of the
          other version's short id, which `bmvault show` accepts) or that it was edited after
          being deleted elsewhere. The heading is shown only: an import reads the marker.
        - A quote is a blockquote. A last line `— <locator>` (an em dash and a space), after
          a blank line, is the locator of a note or quote; it is escaped as in format 1
          (below).
        - The text is the reader's own Markdown, written as it was typed: `*loved*`, links,
          lists, headings and `#tags` render in a Markdown tool, and each line reads back as
          it stands. Only a text that an editor or this layout would change is written with
          character references, and its marker ends with `text=references`: a text with a
          space or tab ending a line, line breaks before its first line, control characters,
          U+2028, U+2029 or U+FEFF, `<!--` anywhere, or a last line starting with an em dash.
          In such a text every `&` is `&amp;`, the `<` of `<!--` is `&lt;`, an em dash starting
          a line is `&#8212;`, the last space or tab of a line is `&#32;` or `&#9;`, each line
          break before the first line is `&#10;`, and the other characters are `&#N;`; read
          back, every character reference is decoded. Markdown shows such a text as written.
        - Format 1 (bmvault 0.1 to 0.14) escaped every text instead: a backslash before
          punctuation that Markdown would take as formatting (`` \` \* \_ \[ \< \# \$ \| \~ ``;
          `\>`, `\-`, `\+`, `\=` and `1\.` at the start of a line; `\&` before a letter, digit
          or `#`), a backslash of the text itself doubled where it came before punctuation or
          ended a line, and the numeric references above (also for a space or tab starting a
          line). Titles in headings and locator lines are still escaped so in format 2.

        ## Editing the Markdown

        You may edit a book's Markdown file and import the archive again:

        - bmvault sees that a file was edited because it no longer matches its SHA-256 in
          manifest.json. It then reads that book's notes and quotes from the Markdown (its
          title, authors and progress from the front matter), matched by id, instead of from
          journal.json. Files that match the manifest are not read: journal.json has the same.
        - Changing the text between a marker and its end marker changes that note or quote.
          If the note in the vault has not changed since the export, the import updates it;
          if it has, both texts are kept (see below).
        - A paragraph you add in `## Notes and quotes`, outside any marker, becomes a new
          note (a blockquote whose last line is `— <locator>` becomes a new quote), its text
          taken as you typed it. Each paragraph (text between blank lines) is one note.
          Importing the same file again does not add it twice: a new note whose text the
          book already has is skipped.
        - Headings in `## Notes and quotes` (a line of one to six `#` and a space: `#idea`
          is text), and anything outside the two sections, are not imported. Deleting a note from the file does not delete it from the vault.
        - Keep the markers as they are. A marker without its end marker is an error (the file
          was cut short or the end marker removed).
        - Without journal.json, bmvault imports everything from the Markdown files (deleted
          records, which only journal.json holds, are then not imported).

        ## Importing

        `bmvault import DIR` (or `bmvault import DIR/journal.json`) adds the archive to the
        vault in one transaction: all of it, or on any error nothing.

        - It first checks manifest.json: a newer format version is refused, and a file that is
          missing or differs from the manifest is an error (`--force` imports anyway), except
          a book's Markdown file, which is an edit.
        - A record whose id is not in the vault is added as it is (dates, versions, deletions
          and conflict marks included). A record whose id is there already and is the same is
          left alone, so importing an archive twice changes nothing.
        - A record that differs is merged by the rules bmvault uses to sync: for a note or
          quote, both texts survive (the vault's stays in the note, the archive's becomes a
          conflict copy listed by `bmvault conflicts`), unless the vault's note is still the
          version the archive was made from, in which case the archive's text is an edit and
          replaces it; a note deleted on one side and with another text on the other is
          kept (brought back if need be), marked `edited-after-delete`; an archive's older
          copy of a note deleted since does not bring it back; a note's book and kind come
          with the archive's text when it is taken, or alone from a later version of the same
          text (a note moved or made a quote, bmvault 0.12). For a book: the later change
          (by `updatedAt`) of title and authors, and the furthest progress; both reading logs
          joined; the archive's rating, and its edition (ISBN, year and pages together), when it
          has one and is the later (an archive without one, as every archive before bmvault 0.10
          and 0.11, never takes one away). Sessions are kept
          from both sides. A record's tags (bmvault 0.13) are added where the vault's record
          does not show them yet; an archive never takes a tag away.
        - A book file (bmvault 0.17) that the vault does not have (by its id) is attached to
          its book, if the book is there and not deleted: from the content the vault already
          holds when its SHA-256 is the same, else from its plain copy in `files/`, which is
          stored encrypted once its SHA-256 and size are checked against journal.json (a copy
          that differs is a damaged archive: nothing is imported). A file listed without a
          plain copy (an export without `--with-files`) is counted as not attached.
        - `--dry-run` reports what would be added, updated and marked as a conflict, and
          changes nothing.

        ## Compatibility

        - A new **optional** member of a record, of the manifest or of the front matter, a
          new attribute of a marker, or a new file, is not a new format version: readers
          ignore what they do not know.
        - Anything an older reader would misread is a new format version: a member renamed,
          removed, retyped or given a new meaning, a new required member, another layout of
          journal.json or of the Markdown markers, another escaping.
        - bmvault refuses an archive whose format version is newer than it knows, naming both
          versions, and reads every older version as it was written.
        - So bmvault 0.14's `index.md`, its book file names (the start of the id's random part
          instead of its first 8 characters), its sessions shown in local time and its
          `aliases` stayed format version 1: import never reads a file's name, `index.md`, a
          session's shown times or an unknown front matter key, and archives written before
          and after import alike.
        - Format 2 (bmvault 0.15) writes the text of notes and quotes as it is, where format 1
          escaped it: another escaping, so a new version, though journal.json and
          manifest.json did not change but for the number. A format 1 reader would have
          unescaped a format 2 text (and lost its backslashes and `&amp;`s); bmvault 0.15
          reads a file's text by the version in its front matter.

        | version | written by | what changed |
        | --- | --- | --- |
        | 1 | bmvault 0.1 to 0.14 | the first |
        | 2 | bmvault 0.15 and later | the Markdown: the reader's text as written, `text=references` where needed, a heading over each note and quote, added paragraphs taken as typed |
        """##
}
