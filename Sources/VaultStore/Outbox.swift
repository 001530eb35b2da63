public import Journal
public import SyncWire
import VaultCrypto

/// The life of an outbox operation: `pending` until every remote has it, then `done`;
/// `failed` (kept, with its context) when it can never succeed as it is.
public enum OutboxState: String, Sendable, CaseIterable {
    case pending
    case inFlight = "in_flight"
    case done
    case failed
}

/// How an outbox row's payload is written (`outbox.payload_format`).
enum OutboxPayloadFormat: Int64 {
    /// bmvault 0.3 to 0.5: the record's JSON, sealed for the outbox. Converted to
    /// ``operation`` the first time it is sent.
    case record = 1
    /// The whole operation (``OperationDocument``) sealed for the remotes: sent as it is.
    case operation = 2
}

 
/// One operation in the outbox, as `bmvault outbox` shows it: never its payload.
public struct OutboxEntry: Sendable, Equatable {
    public let id: Int64
    public let entity: OutboxEntity
    public let action: OutboxAction
    public let state: OutboxState
    public let attempts: Int
    public let createdAt: Timestamp
    public let nextAttemptAt: Timestamp?
    public let lastErrorClass: String?
}

 