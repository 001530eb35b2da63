/// A reading session with the clock of its last change (its recording, an edit or its
/// deletion), which ``SessionEditPolicy`` reads.
public struct SessionVersion: Hashable, Sendable {
    public var session: ReadingSession
    public var clock: HybridTimestamp

    public init(_ session: ReadingSession, clock: HybridTimestamp) {
        self.session = session
        self.clock = clock
    }
}
