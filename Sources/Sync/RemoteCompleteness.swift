import Telemetry
import SyncWire

/// How much of the journal a remote holds for a device joining through it, by what each
/// device's acknowledgement there says of its own folder (clocks and flags only).
public struct RemoteCompleteness: Sendable, Equatable {
    /// Device folders on the remote.
    public var devices = 0
    /// Devices whose last acknowledgement says their folder held everything they had: a
    /// snapshot of their journal (or their whole history) and every later change.
    public var complete = 0

    /// Devices whose folder may lack part of what they have: a sync that did not finish,
    /// one still owing a snapshot, or a bmvault older than 0.7, which does not say.
    public var incomplete: Int { devices - complete }

    public init() {}

    /// Reads every device's acknowledgement on `remote`. One that is missing or does not
    /// open counts as incomplete.
    public static func read(from remote: any Remote, opening cipher: OperationCipher) throws(RemoteError) -> RemoteCompleteness {
        var completeness = RemoteCompleteness()
        for device in try remote.devices() {
            completeness.devices += 1
            let sealed: [UInt8]?
            do throws(RemoteError) {
                sealed = try remote.readAcknowledgement(of: device)
            } catch .malformed {
                sealed = nil
            }
            guard let sealed, let plain = try? cipher.open(acknowledgement: sealed, device: device),
                  let acknowledgement = try? Acknowledgement.decode(plain, device: device) else { continue }
            if acknowledgement.complete == true { completeness.complete += 1 }
        }
        log.notice("sync.remote.completeness", ["devices": .integer(completeness.devices), "complete": .integer(completeness.complete)])
        return completeness
    }
}
