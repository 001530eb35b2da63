#if canImport(Glibc)
import Glibc
#endif

/// Where the D-Bus session bus listens: the first `unix:` entry of
/// `DBUS_SESSION_BUS_ADDRESS` that bmvault can connect to, or `$XDG_RUNTIME_DIR/bus` when
/// the variable is unset (as libdbus and GDBus do).
enum BusAddress: Equatable {
    /// A socket file (`unix:path=...`).
    case path(String)
    /// A Linux abstract socket name (`unix:abstract=...`).
    case abstract(String)

    /// The session bus of this process's environment.
    static func session() throws(KeystoreError) -> BusAddress {
        if let value = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }), !value.isEmpty {
            guard let address = parse(value) else { throw .noSessionBus }
            return address
        }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !runtime.isEmpty {
            let path = runtime + "/bus"
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { return .path(path) }
        }
        throw .noSessionBus
    }

    /// The first usable entry of a D-Bus address list (`transport:key=value,...;...`), or
    /// nil when none is a unix socket with a path or an abstract name.
    static func parse(_ text: String) -> BusAddress? {
        for entry in text.split(separator: ";") {
            guard let colon = entry.firstIndex(of: ":"), entry[..<colon] == "unix" else { continue }
            for pair in entry[entry.index(after: colon)...].split(separator: ",") {
                guard let equals = pair.firstIndex(of: "="),
                      let value = unescape(pair[pair.index(after: equals)...]), !value.isEmpty else { continue }
                switch pair[..<equals] {
                case "path": return .path(value)
                case "abstract": return .abstract(value)
                default: continue
                }
            }
        }
        return nil
    }

    /// Undoes the address format's `%XX` escapes; nil for a broken escape.
    private static func unescape(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
