/// A file from a remote that is not what bmvault writes, or was written by a newer bmvault:
/// `what` names the kind of document ("operation", "operation from a newer bmvault"). The
/// engine reports it as its remote's `RemoteError.malformed`.
public struct MalformedDocument: Error, Equatable, Sendable {
    public let what: String

    public init(what: String) {
        self.what = what
    }
}
