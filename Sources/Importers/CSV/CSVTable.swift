internal import CCSV

/// A CSV file's rows, read with libcsv in strict mode (RFC 4180: quoted fields with doubled
/// quotes and line breaks inside, CR LF or LF). A malformed quote is an error naming the row.
enum CSVTable {
    static func rows(_ bytes: [UInt8]) throws(ImportError) -> [[String]] {
        var parser = csv_parser()
        guard csv_init(&parser, bmvault_csv_strict_options()) == 0 else { throw .malformed(line: 1, reason: "libcsv could not start") }
        defer { csv_free(&parser) }
        let collector = Collector()
        let context = Unmanaged.passUnretained(collector).toOpaque()
        let field: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = { data, length, context in
            guard let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            let bytes = data.map { UnsafeRawBufferPointer(start: $0, count: length) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            collector.field(String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self))
        }
        let row: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
            guard let context else { return }
            Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().endRow()
        }
        let consumed = withExtendedLifetime(collector) {
            bytes.withUnsafeBytes { csv_parse(&parser, $0.baseAddress, $0.count, field, row, context) }
        }
        guard consumed == bytes.count, withExtendedLifetime(collector, { csv_fini(&parser, field, row, context) }) == 0 else {
            throw .malformed(line: collector.rows.count + 1, reason: "not valid CSV (a quote out of place, or a quoted field never closed)")
        }
        guard !collector.sawInvalidUTF8 else { throw .invalidUTF8 }
        return collector.rows
    }

    /// An export's rows found by their header's names (a column the program adds or drops
    /// changes nothing): the byte order mark some programs write dropped, and each `required`
    /// name checked, else `malformed` saying the file is not `format`'s. `body` gets each row
    /// that is not blank, its line number (the header's is 1), and a look-up of a named cell
    /// (trimmed of spaces; nil when empty or missing).
    static func rows(_ bytes: [UInt8], required: [String], format: String,
                     _ body: (_ line: Int, _ value: (String) -> String?) throws(ImportError) -> Void) throws(ImportError) {
        var content = bytes[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        let rows = try rows(Array(content))
        guard let header = rows.first else { throw .malformed(line: 1, reason: "an empty file") }
        var column: [String: Int] = [:]
        for (index, name) in header.enumerated() { column[name.trimmingCharacters(in: " ")] = index }
        for name in required where column[name] == nil {
            throw .malformed(line: 1, reason: "no `\(name)` column: not \(format)")
        }
        for (offset, row) in rows.dropFirst().enumerated() where !row.allSatisfy(\.isEmpty) {
            try body(offset + 2) { name in
                guard let index = column[name], index < row.count else { return nil }
                let text = row[index].trimmingCharacters(in: " ")
                return text.isEmpty ? nil : text
            }
        }
    }

    /// The rows as libcsv hands them over, field by field.
    private final class Collector {
        var rows: [[String]] = []
        var current: [String] = []
        var sawInvalidUTF8 = false

        func field(_ text: String?) {
            if text == nil { sawInvalidUTF8 = true }
            current.append(text ?? "")
        }

        func endRow() {
            rows.append(current)
            current.removeAll()
        }
    }
}
