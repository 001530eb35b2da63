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
