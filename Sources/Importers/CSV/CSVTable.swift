internal import CCSV

/// A CSV file's rows, read with libcsv in strict mode (RFC 4180: quoted fields with doubled
/// quotes and line breaks inside, CR LF or LF). A malformed quote is an error naming the row.
enum CSVTable {
    /// How much of the file libcsv is given at a time: the rows it completes are handed on
    /// and dropped before the next, so a file of any length is never held as rows at once
    /// (20,000 rows of 23 cells were ~12 MB of strings).
    static let chunkSize = 64 * 1024

    /// An export's rows found by their header's names (a column the program adds or drops
    /// changes nothing): the byte order mark some programs write dropped, and each `required`
    /// name checked, else `malformed` saying the file is not `format`'s. `body` gets each row
    /// that is not blank, its line number (the header's is 1), and a look-up of a named cell
    /// (trimmed of spaces; nil when empty or missing). A file that is not UTF-8 is refused
    /// before any row is handed on.
    static func rows(_ bytes: [UInt8], required: [String], format: String,
                     _ body: (_ line: Int, _ value: (String) -> String?) throws(ImportError) -> Void) throws(ImportError) {
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        // Checked once for the whole file: a cell is a run of its bytes between ASCII ones, so
        // every cell is UTF-8 when the file is.
        guard String(validating: content, as: UTF8.self) != nil else { throw .invalidUTF8 }
        var column: [String: Int]?
        var line = 0
        try parse(content) { (row) throws(ImportError) in
            line += 1
            guard let column else {
                var byName: [String: Int] = [:]
                for (index, name) in row.enumerated() { byName[name.trimmingCharacters(in: " ")] = index }
                for name in required where byName[name] == nil {
                    throw .malformed(line: 1, reason: "no `\(name)` column: not \(format)")
                }
                column = byName
                return
            }
            guard !row.allSatisfy(\.isEmpty) else { return }
            try body(line) { name in
                guard let index = column[name], index < row.count else { return nil }
                let text = row[index].trimmingCharacters(in: " ")
                return text.isEmpty ? nil : text
            }
        }
        guard column != nil else { throw .malformed(line: 1, reason: "an empty file") }
    }

    /// Hands each row of `bytes` to `body` as libcsv completes it, a chunk of the file at a
    /// time.
    private static func parse(_ bytes: ArraySlice<UInt8>, _ body: ([String]) throws(ImportError) -> Void) throws(ImportError) {
        var parser = csv_parser()
        guard csv_init(&parser, bmvault_csv_strict_options()) == 0 else { throw .malformed(line: 1, reason: "libcsv could not start") }
        defer { csv_free(&parser) }
        let collector = Collector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let field: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = { data, length, context in
            guard let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            let bytes = data.map { UnsafeRawBufferPointer(start: $0, count: length) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            collector.current.append(String(decoding: bytes.bindMemory(to: UInt8.self), as: UTF8.self))
        }
        let row: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
            guard let context else { return }
            Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().endRow()
        }
        let malformed = "not valid CSV (a quote out of place, or a quoted field never closed)"
        var start = bytes.startIndex
        repeat {
            let chunk = bytes[start..<min(start + chunkSize, bytes.endIndex)]
            let consumed = withExtendedLifetime(collector) {
                chunk.withUnsafeBytes { csv_parse(&parser, $0.baseAddress, $0.count, field, row, context) }
            }
            guard consumed == chunk.count else { throw .malformed(line: collector.handedOn + collector.rows.count + 1, reason: malformed) }
            try collector.handOn(body)
            start = chunk.endIndex
        } while start < bytes.endIndex
        guard withExtendedLifetime(collector, { csv_fini(&parser, field, row, context) }) == 0 else {
            throw .malformed(line: collector.handedOn + collector.rows.count + 1, reason: malformed)
        }
        try collector.handOn(body)
    }

    /// The rows as libcsv hands them over, field by field, until they are handed on.
    private final class Collector {
        var rows: [[String]] = []
        var current: [String] = []
        private(set) var handedOn = 0

        func endRow() {
            rows.append(current)
            current.removeAll(keepingCapacity: true)
        }

        func handOn(_ body: ([String]) throws(ImportError) -> Void) throws(ImportError) {
            defer { rows.removeAll(keepingCapacity: true) }
            for row in rows {
                try body(row)
                handedOn += 1
            }
        }
    }
}
