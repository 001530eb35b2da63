import Journal

/// One compact JSON object (no white space), written directly: every local change writes
/// one operation, and an archive import writes one per record, where `JSONEncoder` costs
/// about twenty times as much. The caller gives the members in sorted key order, so an
/// operation's bytes are the same wherever it is written. Strings are escaped the
/// journal's one way (``JSONString``).
struct JSONObjectWriter {
    private var bytes: [UInt8] = []
    /// Whether the object being written has a member already (the next one needs a comma).
    private var hasMembers = false

    /// Room for an operation with a typical note at once, so the buffer is rarely copied to grow.
    init() {
        bytes.reserveCapacity(1_024)
        bytes.append(UInt8(ascii: "{"))
    }

    /// A member whose value is an object, written in place by `members`.
    mutating func object(_ key: StaticString, _ members: (inout JSONObjectWriter) -> Void) {
        self.key(key)
        bytes.append(UInt8(ascii: "{"))
        hasMembers = false
        members(&self)
        bytes.append(UInt8(ascii: "}"))
        hasMembers = true
    }

    mutating func string(_ key: StaticString, _ value: String) {
        self.key(key)
        JSONString.append(value, to: &bytes)
    }

    mutating func strings(_ key: StaticString, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONString.append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func integer(_ key: StaticString, _ value: Int64) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Swift's shortest form that reads back the same, without a trailing `.0`.
    mutating func double(_ key: StaticString, _ value: Double) {
        self.key(key)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// A key: plain ASCII, written as it is.
    private mutating func key(_ key: StaticString) {
        if hasMembers { bytes.append(UInt8(ascii: ",")) }
        hasMembers = true
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }
}
