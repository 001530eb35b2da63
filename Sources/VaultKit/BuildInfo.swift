/// Facts about this build of bmvault.
public enum BuildInfo {
    /// The bmvault version, printed by `--version` and recorded with every migration.
    public static let version = "0.18.1"
}
