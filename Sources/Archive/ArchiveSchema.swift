/// The JSON Schema of each archive format version, as written into every archive
/// (`archive.schema.json`) and kept in Schemas/archive/ (a test keeps them identical). Like
/// the readers, a version's schema is frozen once that version has shipped.
enum ArchiveSchema {
    /// Format version 1: journal.json at the root, manifest.json under `$defs/manifest`.
    static let v1 = #"""
        {
          "$schema" : "https://json-schema.org/draft/2020-12/schema",
          "title" : "bmvault archive, format version 1: journal.json",
          "description" : "The journal.json of a bmvault archive of format version 1 (README.md in the archive, Docs/EXPORT-FORMAT.md in bmvault). $defs/manifest describes manifest.json. Members not listed here are allowed: a later bmvault may add optional ones without a new format version.",
          "type" : "object",
          "required" : [ "archive", "books", "notes", "quotes", "sessions" ],
          "properties" : {
            "archive" : {
              "type" : "object",
              "required" : [ "format", "formatVersion", "includesDeleted" ],
              "properties" : {
                "format" : { "const" : "bmvault-archive" },
                "formatVersion" : { "const" : 1 },
                "includesDeleted" : { "type" : "boolean" }
              }
            },
            "books" : { "type" : "array", "items" : { "$ref" : "#/$defs/book" } },
            "notes" : { "type" : "array", "items" : { "$ref" : "#/$defs/annotation" } },
            "quotes" : { "type" : "array", "items" : { "$ref" : "#/$defs/quote" } },
            "sessions" : { "type" : "array", "items" : { "$ref" : "#/$defs/session" } }
          },
          "$defs" : {
            "id" : {
              "description" : "A record id: a UUID (version 7 when made by bmvault) in 36 lowercase characters.",
              "type" : "string",
              "pattern" : "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
            },
            "time" : {
              "description" : "ISO 8601 with a UTC offset; bmvault writes UTC with milliseconds (2026-12-02T10:07:46.123Z).",
              "type" : "string",
              "pattern" : "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})$"
            },
            "line" : {
              "description" : "One line of text: a title, an author, a locator. At most 1 KiB of UTF-8, no control characters, line separators or bidirectional overrides.",
              "type" : "string",
              "minLength" : 1,
              "maxLength" : 1024,
              "pattern" : "^[^\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+$"
            },
            "book" : {
              "type" : "object",
              "required" : [ "id", "title", "authors", "progress", "createdAt", "updatedAt", "deletedAt", "version" ],
              "properties" : {
                "id" : { "$ref" : "#/$defs/id" },
                "title" : { "$ref" : "#/$defs/line" },
                "authors" : { "type" : "array", "items" : { "$ref" : "#/$defs/line" } },
                "progress" : { "type" : "number", "minimum" : 0, "maximum" : 100 },
                "createdAt" : { "$ref" : "#/$defs/time" },
                "updatedAt" : { "$ref" : "#/$defs/time" },
                "deletedAt" : { "oneOf" : [ { "$ref" : "#/$defs/time" }, { "type" : "null" } ] },
                "version" : { "type" : "integer", "minimum" : 1 }
              }
            },
            "annotation" : {
              "description" : "A note (the reader's own words) or, with a locator required, a quote (the book's).",
              "type" : "object",
              "required" : [ "id", "bookId", "body", "locator", "createdAt", "updatedAt", "deletedAt", "version", "conflictOf", "conflictReason" ],
              "properties" : {
                "id" : { "$ref" : "#/$defs/id" },
                "bookId" : { "$ref" : "#/$defs/id" },
                "body" : { "type" : "string", "minLength" : 1, "maxLength" : 1048576 },
                "locator" : { "oneOf" : [ { "$ref" : "#/$defs/line" }, { "type" : "null" } ] },
                "createdAt" : { "$ref" : "#/$defs/time" },
                "updatedAt" : { "$ref" : "#/$defs/time" },
                "deletedAt" : { "oneOf" : [ { "$ref" : "#/$defs/time" }, { "type" : "null" } ] },
                "version" : { "type" : "integer", "minimum" : 1 },
                "conflictOf" : { "oneOf" : [ { "$ref" : "#/$defs/id" }, { "type" : "null" } ] },
                "conflictReason" : { "enum" : [ "both-edited", "edited-after-delete", null ] }
              }
            },
            "quote" : {
              "allOf" : [ { "$ref" : "#/$defs/annotation" } ],
              "properties" : { "locator" : { "$ref" : "#/$defs/line" } }
            },
            "session" : {
              "type" : "object",
              "required" : [ "id", "bookId", "startedAt", "endedAt", "pagesRead" ],
              "properties" : {
                "id" : { "$ref" : "#/$defs/id" },
                "bookId" : { "$ref" : "#/$defs/id" },
                "startedAt" : { "$ref" : "#/$defs/time" },
                "endedAt" : { "$ref" : "#/$defs/time" },
                "pagesRead" : { "type" : "integer", "minimum" : 0, "maximum" : 100000 }
              }
            },
            "count" : { "type" : "integer", "minimum" : 0 },
            "manifest" : {
              "description" : "manifest.json of a bmvault archive of format version 1.",
              "type" : "object",
              "required" : [ "format", "formatVersion", "generator", "exportedAt", "includesDeleted", "counts", "deleted", "files" ],
              "properties" : {
                "format" : { "const" : "bmvault-archive" },
                "formatVersion" : { "const" : 1 },
                "generator" : {
                  "type" : "object",
                  "required" : [ "name", "version" ],
                  "properties" : { "name" : { "const" : "bmvault" }, "version" : { "type" : "string" } }
                },
                "exportedAt" : { "$ref" : "#/$defs/time" },
                "includesDeleted" : { "type" : "boolean" },
                "counts" : {
                  "type" : "object",
                  "required" : [ "books", "notes", "quotes", "sessions" ],
                  "additionalProperties" : { "$ref" : "#/$defs/count" }
                },
                "deleted" : {
                  "type" : "object",
                  "required" : [ "books", "notes", "quotes" ],
                  "additionalProperties" : { "$ref" : "#/$defs/count" }
                },
                "files" : {
                  "type" : "object",
                  "required" : [ "README.md", "archive.schema.json", "journal.json" ],
                  "additionalProperties" : {
                    "type" : "object",
                    "required" : [ "bytes", "sha256" ],
                    "properties" : {
                      "bytes" : { "type" : "integer", "minimum" : 0 },
                      "sha256" : { "type" : "string", "pattern" : "^[0-9a-f]{64}$" }
                    }
                  }
                }
              }
            }
          }
        }
        """# + "\n"

    /// Format version 2 changed only the books' Markdown: journal.json and manifest.json are
    /// those of version 1, bar the version number. Made from ``v1`` so the two cannot drift.
    static let v2 = v1.replacing("format version 1", with: "format version 2")
        .replacing(#""formatVersion" : { "const" : 1 }"#, with: #""formatVersion" : { "const" : 2 }"#)

    /// The schema of the version this build writes.
    static let current = v2
}