import Foundation
import Journal
import VaultStore

/// One operation as a remote file: the clear parts a device needs to apply it, and the
/// record's state, all inside one envelope sealed with the vault key and bound to the
/// operation's idempotency key. The file name, `<clock>.<idempotency key>.op`, sorts in
/// clock order and makes a second upload of the same operation land on the same name.
struct OperationFile: Codable {
    static let version = 1

    let v: Int
    let key: String
    let device: String
    let entity: String
    let action: String
    let entityId: String
    let hlc: String
    let base: String?
    /// The record after the change, as JSON text.
    let payload: String

    static func name(clock: HybridTimestamp, idempotencyKey: String) -> String {
        "\(clock.description).\(idempotencyKey).op"
    }

    /// The idempotency key in a file name, without reading the file.
    static func idempotencyKey(inName name: String) -> String? {
        let parts = name.split(separator: ".")
        guard parts.count == 3, parts[2] == "op" else { return nil }
        return String(parts[1])
    }

    /// The clock in a file name, without reading the file.
    static func clock(inName name: String) -> HybridTimestamp? {
        let parts = name.split(separator: ".")
        guard parts.count == 3, parts[2] == "op" else { return nil }
        return try? HybridTimestamp(parsing: String(parts[0]))
    }

    init(_ operation: OutgoingOperation, device: String) {
        v = Self.version
        key = operation.idempotencyKey
        self.device = device
        entity = operation.entity.rawValue
        action = operation.action.rawValue
        entityId = operation.entityID
        hlc = operation.clock.description
        base = operation.base?.description
        payload = String(decoding: operation.payload, as: UTF8.self)
    }

    func encoded() -> [UInt8] {
        Array((try? JSONEncoder().encode(self)) ?? Data())
    }

    /// Reads an opened file back; the key in its name must be the one inside.
    static func decode(_ plaintext: [UInt8], expectedKey: String, device: String) throws(RemoteError) -> IncomingOperation {
        guard let file = try? JSONDecoder().decode(OperationFile.self, from: Data(plaintext)) else {
            throw .malformed(what: "operation")
        }
        guard file.v <= version else { throw .malformed(what: "operation from a newer bmvault") }
        guard file.key == expectedKey, file.device == device,
              let entity = OutboxEntity(rawValue: file.entity), let action = OutboxAction(rawValue: file.action),
              let clock = try? HybridTimestamp(parsing: file.hlc) else { throw .malformed(what: "operation") }
        let base: HybridTimestamp?
        if let text = file.base {
            guard let parsed = try? HybridTimestamp(parsing: text) else { throw .malformed(what: "operation") }
            base = parsed
        } else {
            base = nil
        }
        return IncomingOperation(idempotencyKey: file.key, deviceID: file.device, entity: entity, action: action,
                                 entityID: file.entityId, clock: clock, base: base, payload: Array(file.payload.utf8))
    }
}
