#if canImport(Glibc)
import Glibc
#endif

/// Named points where a test can make bmvault die at once, as `kill -9` would, to prove
/// that an upgrade or a rekey interrupted exactly there loses nothing.
///
/// Armed only by the environment variable `BMVAULT_TEST_CRASH_AT=<point>` (documented in
/// Docs/MIGRATIONS.md), and only in debug builds (what `Scripts/test` runs): a release
/// build never stops here.
public enum FaultInjection {
    #if DEBUG
    private static let armedPoint: String? = getenv("BMVAULT_TEST_CRASH_AT").map { String(cString: $0) }
    #else
    private static let armedPoint: String? = nil
    #endif

    /// Dies with SIGKILL if `point` is the armed one.
    public static func reach(_ point: @autoclosure () -> String) {
        guard let armedPoint, armedPoint == point() else { return }
        kill(getpid(), SIGKILL)
    }
}
