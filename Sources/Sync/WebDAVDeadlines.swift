#if canImport(Glibc)
import Glibc
#endif
internal import HTTP

extension WebDAVRemote {
    /// How long a WebDAV remote's requests may take (SECURITY.md, "Remotes (sync)"): a server
    /// that keeps answering, however slowly, cannot hold a sync for ever, and one that is
    /// merely slow is not cut off while it moves data at a rate any link reaches.
    public struct Deadlines: Sendable, Equatable {
        /// A transfer that moves less than a byte a second for this long is abandoned.
        public var stallSeconds = 30
        /// Every request ends within `requestSeconds` plus one second for each
        /// `minimumBytesPerSecond` bytes it sends or receives: 4 KiB/s (32 kbit/s) is slower
        /// than any link a sync goes over, and 60 s covers a server's thinking before it
        /// answers (the stall floor cuts a silent one after 30 s anyway).
        public var requestSeconds = 60
        public var minimumBytesPerSecond = 4096
        /// All the requests of one remote object end within this many seconds of its making:
        /// one sync, since each command makes its remotes anew. An hour sends a few GiB of
        /// book files on a slow line; what is left waits for the next sync.
        public var syncSeconds = 3600

        public init(stallSeconds: Int = 30, requestSeconds: Int = 60, minimumBytesPerSecond: Int = 4096, syncSeconds: Int = 3600) {
            self.stallSeconds = stallSeconds
            self.requestSeconds = requestSeconds
            self.minimumBytesPerSecond = minimumBytesPerSecond
            self.syncSeconds = syncSeconds
        }

        /// The defaults; in a debug build, with the changes `BMVAULT_TEST_NETWORK_DEADLINES`
        /// asks for (`stall:S,request:S,rate:BYTES,sync:S`, any of them), so end-to-end tests
        /// of the binary meet a deadline in seconds, not minutes.
        public static let forThisProcess: Deadlines = {
            var deadlines = Deadlines()
            #if DEBUG
            guard let text = getenv("BMVAULT_TEST_NETWORK_DEADLINES") else { return deadlines }
            for directive in String(cString: text).split(separator: ",") {
                let parts = directive.split(separator: ":")
                // A directive that does not parse is a broken test, which must not pass by luck.
                guard parts.count == 2, let value = Int(parts[1]), value > 0 else {
                    fatalError("BMVAULT_TEST_NETWORK_DEADLINES: cannot read \(directive)")
                }
                switch parts[0] {
                case "stall": deadlines.stallSeconds = value
                case "request": deadlines.requestSeconds = value
                case "rate": deadlines.minimumBytesPerSecond = value
                case "sync": deadlines.syncSeconds = value
                default: fatalError("BMVAULT_TEST_NETWORK_DEADLINES: cannot read \(directive)")
                }
            }
            #endif
            return deadlines
        }()

        /// The connection settings that carry these deadlines, the sync's counted from now.
        func apply(to settings: inout HTTPConnection.Settings) {
            settings.stallSeconds = stallSeconds
            settings.requestSeconds = requestSeconds
            settings.minimumBytesPerSecond = minimumBytesPerSecond
            settings.deadline = .now + .seconds(syncSeconds)
        }
    }
}
