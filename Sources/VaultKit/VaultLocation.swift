/// Where a vault lives: a directory holding `vault.db` (and SQLite's `-wal`/`-shm`).
public struct VaultLocation: Sendable, Equatable {
    public static let databaseName = "vault.db"
    public let directory: String

    public init(directory: String) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
    }

    public var databasePath: String { directory + "/" + Self.databaseName }

    /// The vault directory: `--vault`, else `$BMVAULT_HOME`, else `$XDG_DATA_HOME/bmvault`,
    /// else `~/.local/share/bmvault`.
    public static func resolve(option: String?, environment: [String: String]) -> VaultLocation {
        if let option, !option.isEmpty { return VaultLocation(directory: option) }
        if let home = environment["BMVAULT_HOME"], !home.isEmpty { return VaultLocation(directory: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return VaultLocation(directory: data + "/bmvault") }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "."
        return VaultLocation(directory: home + "/.local/share/bmvault")
    }
}
