internal import FileIO
import Foundation
import Keystore
public import VaultStore
import VaultCrypto
#if canImport(Glibc)
import Glibc
#endif

/// What `bmvault diagnostics` shows: enough to answer "why did it not sync / migrate /
/// unlock" without one word of content, one key byte, one title or one file name.
public struct DiagnosticsReport: Sendable {
    public let bmvaultVersion: String
    public let libsodiumVersion: String
    public let operatingSystem: String
    public let kernel: String
    /// The vault, if one could be inspected.
    public let vault: VaultInspection?
    /// Why not, as an error case name, when it could not.
    public let vaultProblem: String?
    /// `key found`, `no key`, `keyring locked`, or the error case when unreachable.
    public let secretService: String
    public let secretServiceReachable: Bool
}

extension Vault {
    /// Gathers the diagnostics for the vault at `location`, changing nothing (no migration,
    /// no unlock, no removal of an expired key).
    public static func diagnostics(at location: VaultLocation, keyStore: any KeyStore) -> DiagnosticsReport {
        var inspection: VaultInspection?
        var problem: String?
        do {
            inspection = try VaultInspection(ofVaultAt: location.databasePath)
        } catch {
            problem = String(describing: error).prefix { $0 != "(" }.description
        }
        var keyState = "not checked (no vault)"
        var reachable = false
        if let vaultID = try? VaultMetadata(ofVaultAt: location.databasePath).vaultID {
            do {
                switch try keyStore.lookup(vaultID: vaultID) {
                case .found(let stored):
                    keyState = stored.expiresAtMilliseconds > Int64(Date().timeIntervalSince1970 * 1000) ? "key found" : "key found, expired"
                case .notFound: keyState = "no key (locked)"
                case .keyringLocked: keyState = "keyring locked"
                }
                reachable = true
            } catch {
                keyState = "unreachable: \(error.caseName)"
            }
        }
        var system = utsname()
        uname(&system)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        }
        return DiagnosticsReport(bmvaultVersion: BuildInfo.version, libsodiumVersion: CryptoLibrary.version,
                                 operatingSystem: operatingSystemName(),
                                 kernel: "\(field(system.sysname)) \(field(system.release)) \(field(system.machine))",
                                 vault: inspection, vaultProblem: problem,
                                 secretService: keyState, secretServiceReachable: reachable)
    }

    /// `PRETTY_NAME` from /etc/os-release.
    private static func operatingSystemName() -> String {
        guard let bytes = try? FileSystem.readFile(at: "/etc/os-release"), let text = String(validating: bytes, as: UTF8.self) else {
            return "unknown"
        }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "unknown"
    }
}
