internal import FileIO

/// A file read front to back in 64 KiB chunks, counting lines: archives are read without
/// holding them in memory, and every problem can name its line.
final class FileBytes {
    private static let chunkSize = 1 << 16
    /// The longest line ``nextLine()`` returns.
    static let longestLine = 8 << 20

    /// How the file is named in errors (relative to the archive).
    let displayName: String
    /// The line of the next byte, from 1.
    private(set) var line = 1
    private let descriptor: FileDescriptor
    private var buffer: [UInt8]
    private var index = 0
    private var count = 0
    private var reachedEnd = false

    /// Opens a regular file. A file inside an archive is never reached through a symbolic
    /// link (a link could read any file on the disk into the vault); `followingLinks` is for
    /// the one path the reader typed. A FIFO or a device is refused at once, never waited on
    /// or read without end.
    init(path: String, displayName: String, followingLinks: Bool = false) throws(ArchiveError) {
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(path, .readOnly, options: followingLinks ? [] : [.noFollow])
        } catch where error.errno == .symbolicLink {
            throw .malformed(file: displayName, line: 1, reason: "a link where a file belongs; nothing inside an archive is followed")
        } catch where error.operation == .type {
            throw .malformed(file: displayName, line: 1, reason: "not a regular file (a pipe, a device or a folder)")
        } catch {
            throw .io(error, path: displayName)
        }
        descriptor = opened
        self.displayName = displayName
        buffer = [UInt8](repeating: 0, count: Self.chunkSize)
    }

    deinit {
        try? descriptor.close()
    }

    /// The next byte without consuming it; nil at the end of the file.
    @inline(__always)
    func peek() throws(ArchiveError) -> UInt8? {
        if index < count { return buffer[index] }
        return try refill() ? buffer[index] : nil
    }

    /// Consumes the byte `peek()` returned.
    @inline(__always)
    func advance() {
        if buffer[index] == 0x0A { line += 1 }
        index += 1
    }

    /// The next byte, consumed; nil at the end of the file.
    @inline(__always)
    func next() throws(ArchiveError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        advance()
        return byte
    }

    /// Passes over JSON white space (space, tab, line breaks), counting lines, and returns
    /// the next byte, not consumed; nil at the end of the file. A record of journal.json is
    /// about a third indentation: this walks it inside the buffer, not byte by byte.
    func skipWhitespace() throws(ArchiveError) -> UInt8? {
        while true {
            if index >= count {
                guard try refill() else { return nil }
            }
            var position = index
            var lines = 0
            let found: UInt8? = buffer.withUnsafeBufferPointer { bytes in
                while position < count {
                    switch bytes[position] {
                    case 0x20, 0x09, 0x0D: position += 1
                    case 0x0A:
                        lines += 1
                        position += 1
                    default: return bytes[position]
                    }
                }
                return nil
            }
            index = position
            line += lines
            if let found { return found }
        }
    }

    /// Copies the bytes up to the first `"`, `\\` or control character into `out`, and
    /// returns that byte, not consumed; nil at the end of the file. The plain run of a JSON
    /// string is copied a chunk at a time rather than byte by byte. (No line break can be
    /// in such a run, so the line count stays right.)
    func copyStringRun(into out: inout [UInt8]) throws(ArchiveError) -> UInt8? {
        while true {
            if index >= count {
                guard try refill() else { return nil }
            }
            let start = index
            while index < count {
                let byte = buffer[index]
                if byte == 0x22 || byte == 0x5C || byte < 0x20 { break }
                index += 1
            }
            out.append(contentsOf: buffer[start..<index])
            if index < count { return buffer[index] }
        }
    }

    /// The next line without its line break (and without a `\r` before it, which an editor
    /// on another system may have added); nil at the end of the file.
    func nextLine() throws(ArchiveError) -> [UInt8]? {
        var bytes: [UInt8] = []
        while let byte = try peek() {
            advance()
            if byte == 0x0A {
                if bytes.last == 0x0D { bytes.removeLast() }
                return bytes
            }
            bytes.append(byte)
            // A line bmvault writes is at most a note's (1 MiB, escaped); an endless one is not read into memory.
            guard bytes.count <= Self.longestLine else {
                throw .malformed(file: displayName, line: line, reason: "a line longer than \(Self.longestLine >> 20) MiB")
            }
        }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes.isEmpty && reachedEnd ? nil : bytes
    }

    private func refill() throws(ArchiveError) -> Bool {
        guard !reachedEnd else { return false }
        let read: Int
        do { read = try descriptor.read(into: &buffer) } catch { throw .io(error, path: displayName) }
        index = 0
        count = read
        if read == 0 { reachedEnd = true }
        return read > 0
    }
}
