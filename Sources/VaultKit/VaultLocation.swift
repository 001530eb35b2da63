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
    /// else `~/.local/share/bmvault`; always an absolute path, so messages say where.
    ///
    /// A given path starting with `~/` (which the shell leaves alone in `--vault=~/x`) is
    /// under `$HOME`, a relative one under `currentDirectory`, and a path to the database
    /// itself (`.../vault.db`) names its directory.
    public static func resolve(option: String?, environment: [String: String], currentDirectory: String) -> VaultLocation {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        func absolute(_ given: String) -> VaultLocation {
            var path = given
            if let home, path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
            if !path.hasPrefix("/") { path = currentDirectory + "/" + path }
            var components = normalized(path)
            if components.last == databaseName { components.removeLast() }
            return VaultLocation(directory: "/" + components.joined(separator: "/"))
        }
        if let option, !option.isEmpty { return absolute(option) }
        if let given = environment["BMVAULT_HOME"], !given.isEmpty { return absolute(given) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return VaultLocation(directory: data + "/bmvault") }
        return absolute((home ?? ".") + "/.local/share/bmvault")
    }

    /// The components of absolute `path` with `.`, `..` and empty ones worked out, from the
    /// text alone (a link is not followed: the directory is where the reader said).
    private static func normalized(_ path: String) -> [String] {
        var components: [String] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(String(component))
            }
        }
        return components
    }
}
