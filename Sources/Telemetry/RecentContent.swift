import Synchronization

/// Journal text this process has decrypted lately, so the sink can remove it from any log
/// line as a last line of defence, should a call site wrongly mark it public.
///
/// Bounded (the newest ``capacity`` values), and values shorter than ``minimumLength``
/// are not remembered: they would erase ordinary words from unrelated lines.
public final class RecentContent: Sendable {
    public static let shared = RecentContent()
    static let capacity = 4096
    static let minimumLength = 4

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
        storage.withLock { state in
            var line = line
            for value in state.values where line.contains(value) {
                line = line.replacingAll(value, with: "<redacted>")
            }
            return line
        }
    }

    /// Forgets everything (tests).
    func forget() {
        storage.withLock { $0 = ([], 0) }
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
