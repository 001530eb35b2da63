import Journal

/// Canonical JSON text, written byte by byte so two exports of one vault are identical:
/// strings escaped the same way every time, numbers in their shortest exact form.
enum JSONText {
    /// A number: integral values without a fraction (`42`), others in Swift's shortest
    /// form that reads back to the same Double (`42.5`).
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A string as JSON text, for small documents such as the manifest.
    static func string(_ text: String) -> String {
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
