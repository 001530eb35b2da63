extension Array where Element == UInt8 {
    /// Appends the bytes of an ASCII literal with one copy: the archive writers append many
    /// small pieces (keys, markers, separators) to every record.
    @inline(__always)
    mutating func append(ascii literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}
