/// Schema v11: a book's edition and the counts `book list` shows. `edition` is the sealed
/// ``Edition/text`` (ISBN, year, pages; NULL: none known) and `edition_hlc` the clock of its
/// last change (NULL: never given, older than any edition). `book_activity` holds each
/// book's live notes, quotes and sessions and when its latest session ended, kept by
/// triggers whichever code path writes (an annotation's counts move by one; a session's are
/// counted again for its book, through `reading_session_live_by_book`), so a listing of
/// every book reads one row per book instead of counting every note. It holds nothing that
/// is not also in `annotation` and `reading_session`, all in the clear there too.
/// Columns only on existing tables, with no CHECK constraint: every existing row stays as
/// it was. FROZEN once shipped in bmvault 0.11.0; never edit this text.
enum Migration0011Editions {
    static let migration = Migration(id: "0011_editions",
                                     summary: "books: a sealed edition (ISBN, year, pages); counts per book kept by triggers",
                                     schemaChecksum: "cd34b0230483ec343e7df989aee118e54baad6f5964fb6ee351e9647118acaa9",
                                     sql: """
        ALTER TABLE book ADD COLUMN edition BLOB;
        ALTER TABLE book ADD COLUMN edition_hlc TEXT;

        CREATE TABLE book_activity (
            book_id      TEXT PRIMARY KEY NOT NULL,
            notes        INTEGER NOT NULL DEFAULT 0,
            quotes       INTEGER NOT NULL DEFAULT 0,
            sessions     INTEGER NOT NULL DEFAULT 0,
            last_session INTEGER
        ) WITHOUT ROWID;

        CREATE INDEX reading_session_live_by_book ON reading_session (book_id, deleted_at, ended_at);

        INSERT INTO book_activity (book_id, notes, quotes)
        SELECT book_id, sum(kind = 'note'), sum(kind = 'quote') FROM annotation WHERE deleted_at IS NULL GROUP BY book_id;

        INSERT INTO book_activity (book_id, sessions, last_session)
        SELECT book_id, count(*), max(ended_at) FROM reading_session WHERE deleted_at IS NULL GROUP BY book_id
        ON CONFLICT (book_id) DO UPDATE SET sessions = excluded.sessions, last_session = excluded.last_session;

        CREATE TRIGGER book_activity_on_annotation_insert AFTER INSERT ON annotation
        WHEN NEW.deleted_at IS NULL
        BEGIN
            INSERT INTO book_activity (book_id, notes, quotes) VALUES (NEW.book_id, NEW.kind = 'note', NEW.kind = 'quote')
            ON CONFLICT (book_id) DO UPDATE SET notes = notes + excluded.notes, quotes = quotes + excluded.quotes;
        END;

        CREATE TRIGGER book_activity_on_annotation_update AFTER UPDATE OF book_id, kind, deleted_at ON annotation
        BEGIN
            UPDATE book_activity SET notes = notes - (OLD.kind = 'note'), quotes = quotes - (OLD.kind = 'quote')
            WHERE book_id = OLD.book_id AND OLD.deleted_at IS NULL;
            INSERT INTO book_activity (book_id, notes, quotes)
            SELECT NEW.book_id, NEW.kind = 'note', NEW.kind = 'quote' WHERE NEW.deleted_at IS NULL
            ON CONFLICT (book_id) DO UPDATE SET notes = notes + excluded.notes, quotes = quotes + excluded.quotes;
        END;

        CREATE TRIGGER book_activity_on_annotation_delete AFTER DELETE ON annotation
        WHEN OLD.deleted_at IS NULL
        BEGIN
            UPDATE book_activity SET notes = notes - (OLD.kind = 'note'), quotes = quotes - (OLD.kind = 'quote')
            WHERE book_id = OLD.book_id;
        END;

        CREATE TRIGGER book_activity_on_session_insert AFTER INSERT ON reading_session
        BEGIN
            INSERT INTO book_activity (book_id) VALUES (NEW.book_id) ON CONFLICT (book_id) DO NOTHING;
            UPDATE book_activity
            SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = NEW.book_id AND deleted_at IS NULL),
                last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = NEW.book_id AND deleted_at IS NULL)
            WHERE book_id = NEW.book_id;
        END;

        CREATE TRIGGER book_activity_on_session_update AFTER UPDATE OF book_id, ended_at, deleted_at ON reading_session
        BEGIN
            INSERT INTO book_activity (book_id) VALUES (NEW.book_id) ON CONFLICT (book_id) DO NOTHING;
            UPDATE book_activity
            SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = book_activity.book_id AND deleted_at IS NULL),
                last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = book_activity.book_id AND deleted_at IS NULL)
            WHERE book_id IN (OLD.book_id, NEW.book_id);
        END;

        CREATE TRIGGER book_activity_on_session_delete AFTER DELETE ON reading_session
        BEGIN
            UPDATE book_activity
            SET sessions = (SELECT count(*) FROM reading_session WHERE book_id = OLD.book_id AND deleted_at IS NULL),
                last_session = (SELECT max(ended_at) FROM reading_session WHERE book_id = OLD.book_id AND deleted_at IS NULL)
            WHERE book_id = OLD.book_id;
        END;
        """)
}
