import Journal
import Telemetry
import SyncWire

/// Every other device's acknowledgement, gathered over the remotes of one sync: the
/// devices known to exist, and how far each has applied each device's operations.
struct Acknowledgements {
    let ownDevice: String
    /// Every other device that has left a folder on a remote read this sync.
    private(set) var knownDevices = Set<String>()
    /// Per device, per source device: the furthest acknowledged clock over all remotes.
    private(set) var appliedThrough: [String: [String: HybridTimestamp]] = [:]
    /// When each device (this one included) last synced, by its latest acknowledgement.
    private(set) var lastSynced: [String: Timestamp] = [:]

    init(ownDevice: String) {
        self.ownDevice = ownDevice
    }

    /// Reads every other device's acknowledgement on `remote`. One that does not open is
    /// treated as absent (that device acknowledges nothing), and logged by class.
    mutating func read(from remote: any Remote, opening cipher: OperationCipher) throws(RemoteError) {
        for device in try remote.devices() {
            if device != ownDevice { knownDevices.insert(device) }
            // An acknowledgement that is not a file bmvault writes counts as none: nothing the
            // device did is taken as applied, so nothing is purged on its word.
            let read: [UInt8]?
            do throws(RemoteError) {
                read = try remote.readAcknowledgement(of: device)
            } catch .malformed {
                log.warning("sync.acknowledgement.unreadable", ["remote": .public(remote.name)])
                continue
            }
            guard let sealed = read else { continue }
            guard let plain = try? cipher.open(acknowledgement: sealed, device: device),
                  let acknowledgement = try? Acknowledgement.decode(plain, device: device) else {
                log.warning("sync.acknowledgement.unreadable", ["remote": .public(remote.name)])
                continue
            }
            let at = Timestamp(millisecondsSince1970: acknowledgement.at)
            lastSynced[device] = max(at, lastSynced[device] ?? at)
            for source in acknowledgement.applied.keys {
                guard let clock = acknowledgement.appliedThrough(source) else { continue }
                appliedThrough[device, default: [:]][source] = max(clock, appliedThrough[device]?[source] ?? clock)
            }
        }
    }

    /// Devices (this one included) whose last sync is more than `days` before `now`, with
    /// how many whole days ago it was.
    func silent(forMoreThan days: Int, now: Timestamp) -> [String: Int] {
        var silent: [String: Int] = [:]
        for (device, at) in lastSynced {
            let age = Int((now.millisecondsSince1970 - at.millisecondsSince1970) / 86_400_000)
            if age > days { silent[device] = age }
        }
        return silent
    }

    /// Whether every other known device has applied the change made at `clock` (the device
    /// that made it has it by definition).
    func coverEveryDevice(_ clock: HybridTimestamp) -> Bool {
        knownDevices.allSatisfy { device in
            device == clock.deviceID || (appliedThrough[device]?[clock.deviceID]).map { $0 >= clock } ?? false
        }
    }
}
