#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Journal text this process has decrypted lately, so the sink can remove it from any log
/// line as a last line of defence, should a call site wrongly mark it public.
///
/// Bounded (the newest ``capacity`` values), and values shorter than ``minimumLength``
/// are not remembered: they would erase ordinary words from unrelated lines.
///
/// Values are kept and looked for as UTF-8 bytes: a line is checked against all
/// 4,096 in about a tenth of a millisecond, where a `String` search of each took ~40 ms,
/// paid by every line an export or import logs. A valid UTF-8 value can only match a
/// valid UTF-8 line at a character boundary, so the result is valid text.
public final class RecentContent: Sendable {
    public static let shared = RecentContent()
    static let capacity = 4096
    static let minimumLength = 4

    /// Kept as the `String`s they are (a reference, not a copy: an export remembers every
    /// note it writes), and looked for through their UTF-8 storage.
    private let storage = Mutex<(values: [String], next: Int)>(([], 0))

    /// Remembers decrypted text (a body, a title, an author, a locator).
    public func remember(_ text: String) {
        guard text.utf8.count >= Self.minimumLength else { return }
        storage.withLock { state in
            if state.values.count < Self.capacity {
                state.values.append(text)
            } else {
                state.values[state.next] = text
                state.next = (state.next + 1) % Self.capacity
            }
        }
    }

    /// `line` with every remembered value replaced by `<redacted>`.
    func scrub(_ line: String) -> String {
        var bytes = Array(line.utf8)
        let changed = storage.withLock { state in
            var changed = false
            for value in state.values {
                let found = value.utf8.withContiguousStorageIfAvailable { Self.redact($0, in: &bytes) }
                    ?? Self.redact(Array(value.utf8), in: &bytes)
                if found { changed = true }
            }
            return changed
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : line
    }

    /// Forgets everything (tests).
    func forget() {
        storage.withLock { $0 = ([], 0) }
    }

    private static let redaction = Array("<redacted>".utf8)

    /// Replaces every occurrence of `value` in `line` with `<redacted>`; false when there is none.
    private static func redact(_ value: [UInt8], in line: inout [UInt8]) -> Bool {
        value.withUnsafeBufferPointer { redact($0, in: &line) }
    }

    private static func redact(_ value: UnsafeBufferPointer<UInt8>, in line: inout [UInt8]) -> Bool {
        guard var found = firstOffset(of: value, in: line, from: 0) else { return false }
        var result: [UInt8] = []
        result.reserveCapacity(line.count)
        var start = 0
        while true {
            result.append(contentsOf: line[start..<found])
            result.append(contentsOf: redaction)
            start = found + value.count
            guard let next = firstOffset(of: value, in: line, from: start) else { break }
            found = next
        }
        result.append(contentsOf: line[start...])
        line = result
        return true
    }

    /// Where `value` first occurs in `line` at or after `start`: `memchr` for its first
    /// byte, then `memcmp` for the rest.
    private static func firstOffset(of value: UnsafeBufferPointer<UInt8>, in line: [UInt8], from start: Int) -> Int? {
        line.withUnsafeBytes { haystack in
            let needle = UnsafeRawBufferPointer(value)
            var offset = start
            while haystack.count - offset >= needle.count {
                guard let hit = memchr(haystack.baseAddress! + offset, Int32(needle[0]), haystack.count - offset - needle.count + 1)
                else { return nil }
                let found = UnsafeRawPointer(hit) - haystack.baseAddress!
                if memcmp(hit, needle.baseAddress!, needle.count) == 0 { return found }
                offset = found + 1
            }
            return nil
        }
    }
}
