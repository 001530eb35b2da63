/// Ways the bus itself misbehaved, reported as `KeystoreError.failure(domain: "bmvault-dbus", code:)`.
/// The codes are stable: they appear in error messages and logs.
enum BusProtocolFailure: Int32 {
    /// A message that does not follow the wire format (lengths, alignment, signatures).
    case malformedMessage = 1
    /// The bus refused our `AUTH EXTERNAL` (we are not who the socket says we are).
    case authenticationRejected = 2
    /// The bus closed the connection before answering.
    case connectionClosed = 3
    /// A reply whose shape is not the one the method returns.
    case unexpectedReply = 4
    /// A message larger than bmvault accepts (``BusConnection/maximumMessageBytes``).
    case messageTooLarge = 5

    static let domain = "bmvault-dbus"

    var error: KeystoreError { .failure(domain: Self.domain, code: rawValue) }
}
