import Foundation
import Journal
import SyncWire

/// What one device has applied of every other device's operations on a remote, left there
/// (sealed) after each of its syncs: the acknowledgements that let a tombstone's content be
/// purged before the retention period ends. Clocks and device ids only, no content.
struct Acknowledgement: Codable, Equatable {
    static let version = 1

    let v: Int
    let device: String
    /// When the acknowledging device last synced with the remote (wall milliseconds).
    let at: Int64
    /// Per other device: the clock of its last operation such that this device has applied
    /// every one of that device's operations up to it (in file-name order, which is clock order).
    let applied: [String: String]
    /// Whether the device's folder on this remote held, when it wrote this, everything it
    /// had queued (a snapshot of its journal, or its whole history, and every later
    /// operation): a device joining through the remote then misses nothing of it. Absent
    /// from acknowledgements written before bmvault 0.7 (older readers ignore it).
    let complete: Bool?

    init(device: String, at: Timestamp, applied: [String: HybridTimestamp], complete: Bool) {
        v = Self.version
        self.device = device
        self.at = at.millisecondsSince1970
        self.applied = applied.mapValues(\.description)
        self.complete = complete
    }

    /// The clock up to which this device has applied `source`'s operations, if any.
    func appliedThrough(_ source: String) -> HybridTimestamp? {
        applied[source].flatMap { try? HybridTimestamp(parsing: $0) }
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(self)) ?? Data())
    }

    /// Reads an acknowledgement, refusing one that names another device or is from a newer format.
    static func decode(_ plaintext: [UInt8], device: String) throws(RemoteError) -> Acknowledgement {
        guard let acknowledgement = try? JSONDecoder().decode(Acknowledgement.self, from: Data(plaintext)),
              acknowledgement.device == device else { throw .malformed(what: "acknowledgement") }
        guard acknowledgement.v <= version else { throw .malformed(what: "acknowledgement from a newer bmvault") }
        return acknowledgement
    }

    /// The acknowledgement a device owes for what it has applied: for each other device, the
    /// clock of the last of its operation files before the first one not applied yet.
    static func watermarks(listed: [String: [String]], applied: (String) -> Set<String>) -> [String: HybridTimestamp] {
        var marks: [String: HybridTimestamp] = [:]
        for (device, names) in listed {
            let keys = applied(device)
            for name in names {
                guard let key = OperationFileName.idempotencyKey(in: name), keys.contains(key),
                      let clock = OperationFileName.clock(in: name) else { break }
                marks[device] = clock
            }
        }
        return marks
    }
}
