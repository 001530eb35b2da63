extension OutboxPayload {
    /// The payload as JSON, written directly: the very bytes `JSONEncoder` writes for it with
    /// `[.sortedKeys, .withoutEscapingSlashes]` (keys sorted, absent optionals left out, no
    /// white space), which is what every device reads. Every local change and every record
    /// of an import writes one, and `JSONEncoder` costs about twenty times as much.
    func jsonBytes() -> [UInt8] {
        var out = JSONObjectWriter()
        if let annotation { out.object("annotation") { annotation.write(to: &$0) } }
        if let book { out.object("book") { book.write(to: &$0) } }
        if let session { out.object("session") { session.write(to: &$0) } }
        out.integer("v", Int64(v))
        return out.finish()
    }
}

extension OutboxPayload.BookSnapshot {
    fileprivate func write(to out: inout JSONObjectWriter) {
        out.strings("authors", authors)
        out.integer("createdAt", createdAt)
        if let deletedAt { out.integer("deletedAt", deletedAt) }
        out.string("id", id)
        out.double("progress", progress)
        if let progressClock { out.string("progressClock", progressClock) }
        if let progressRewind { out.boolean("progressRewind", progressRewind) }
        out.string("title", title)
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}

extension OutboxPayload.SessionSnapshot {
    fileprivate func write(to out: inout JSONObjectWriter) {
        out.string("bookId", bookId)
        out.integer("endedAt", endedAt)
        out.string("id", id)
        out.integer("pagesRead", Int64(pagesRead))
        out.integer("startedAt", startedAt)
    }
}

extension OutboxPayload.AnnotationSnapshot {
    fileprivate func write(to out: inout JSONObjectWriter) {
        out.string("body", body)
        out.string("bookId", bookId)
        if let conflictOf { out.string("conflictOf", conflictOf) }
        if let conflictReason { out.string("conflictReason", conflictReason) }
        out.integer("createdAt", createdAt)
        if let deletedAt { out.integer("deletedAt", deletedAt) }
        out.string("id", id)
        out.string("kind", kind)
        if let locator { out.string("locator", locator) }
        out.integer("updatedAt", updatedAt)
        out.integer("version", version)
    }
}

/// One JSON object in `JSONEncoder`'s compact form; the caller gives the members in sorted
/// key order.
private struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    mutating func object(_ key: StaticString, _ members: (inout JSONObjectWriter) -> Void) {
        var inner = JSONObjectWriter()
        members(&inner)
        self.key(key)
        bytes.append(contentsOf: inner.finish())
    }

    mutating func string(_ key: StaticString, _ value: String) {
        self.key(key)
        appendString(value)
    }

    mutating func strings(_ key: StaticString, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func integer(_ key: StaticString, _ value: Int64) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Swift's shortest form that reads back the same, without a trailing `.0`, as
    /// `JSONEncoder` writes it.
    mutating func double(_ key: StaticString, _ value: Double) {
        self.key(key)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func boolean(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// A key: plain ASCII, written as it is.
    private mutating func key(_ key: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// `"` and `\` escaped, the C0 controls as `\b \t \n \f \r` or `\u00XX`, everything
    /// else (`/` and non-ASCII included) as it is. Runs of plain bytes are copied at once.
    private mutating func appendString(_ text: String) {
        var text = text
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8 { utf8 in
            var plainStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                appendEscape(byte)
                plainStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
        case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
