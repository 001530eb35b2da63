/// A record that could not be read: the reader sees its id, every other record still reads.
public struct UnreadableRecord: Error, Equatable, Sendable {
    public let id: String
    public let field: String

    public init(id: String, field: String) {
        self.id = id
        self.field = field
    }
}
