/// A typed field of a log event.
///
/// Text is private unless it is declared public where it is logged: `.text(title)` is
/// written as `<redacted>` (or a short keyed tag, when the vault has one), and only
/// `.public("note add")` is written as it is. Use `.public` for names bmvault itself
/// chose (commands, error cases, states), never for anything a reader typed or decrypted.
public enum LogValue: Sendable, Equatable {
    case integer(Int64)
    case number(Double)
    case boolean(Bool)
    /// Text written as it is: command names, error case names, states.
    case `public`(String)
    /// Anything else that is text: written as `<redacted>`.
    case text(Sensitive<String>)

    public static func == (lhs: LogValue, rhs: LogValue) -> Bool {
        switch (lhs, rhs) {
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.boolean(a), .boolean(b)): a == b
        case let (.public(a), .public(b)): a == b
        case let (.text(a), .text(b)): a.value == b.value
        default: false
        }
    }

    /// Private text: the default for any string.
    public static func text(_ value: String) -> LogValue { .text(Sensitive(value)) }

    public static func integer(_ value: Int) -> LogValue { .integer(Int64(value)) }
}

extension LogValue: ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
