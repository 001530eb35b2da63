/// A value that must never appear in a log, an error or a report: journal text, titles,
/// locators. Every way Swift turns a value into text (`description`, `debugDescription`,
/// reflection through `dump` or a mirror, string interpolation) gives `<redacted>`.
public struct Sensitive<Value>: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The wrapped value, for code that needs it; never for output.
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Sensitive: Sendable where Value: Sendable {}

extension DefaultStringInterpolation {
    /// `"\(sensitive)"` is `<redacted>`, whatever is inside.
    public mutating func appendInterpolation<Value>(_ value: Sensitive<Value>) {
        appendLiteral("<redacted>")
    }
}
