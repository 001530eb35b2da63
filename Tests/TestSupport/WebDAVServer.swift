import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real WebDAV server for tests: lighttpd with mod_webdav (Debian's `lighttpd` and
/// `lighttpd-mod-webdav`, which Scripts/install puts in place), on a free loopback port, with
/// its own configuration, document root and basic-auth users in a temporary directory.
/// Stopped and removed when released.
public final class WebDAVServer {
    public static let lighttpd = "/usr/sbin/lighttpd"
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: lighttpd) && FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_webdav.so")
            && FileManager.default.fileExists(atPath: "/usr/lib/lighttpd/mod_openssl.so") && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    public let directory: TemporaryDirectory
    public let port: Int
    /// The folder that `url` names, on disk: what the server holds, to look at in a test.
    public let folder: String
    /// `http://127.0.0.1:<port>/bmvault` (`https://` with TLS), an existing folder on the server.
    public var url: String { "\(certificateFile == nil ? "http" : "https")://127.0.0.1:\(port)/bmvault" }
    /// With TLS: the server's self-signed certificate (PEM), what `--ca-file` is given.
    public let certificateFile: String?
    private let process: Process

    /// Starts the server with these basic-auth users (name, password); with `tls`, on HTTPS
    /// with a self-signed certificate for 127.0.0.1 made by `openssl` (Debian's
    /// `lighttpd-mod-openssl` serves it).
    public init(users: [(String, String)] = [("reader", "correct horse")], tls: Bool = false) throws {
        // Never skipped: a suite that cannot find its server fails, saying how to get one.
        guard Self.isInstalled else {
            throw ServerFailure(message: "lighttpd with mod_webdav and mod_openssl, or openssl, is not installed: run Scripts/install")
        }
        directory = try TemporaryDirectory("webdav")
        let root = directory.file("root")
        folder = root + "/bmvault"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("uploads"), withIntermediateDirectories: true)
        try directory.write(users.map { "\($0.0):\($0.1)\n" }.joined(), to: "users")
        var tlsSettings = ""
        if tls {
            let made = Process()
            made.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            made.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory.file("key.pem"),
                              "-out", directory.file("cert.pem"), "-days", "2", "-subj", "/CN=127.0.0.1",
                              "-addext", "subjectAltName=IP:127.0.0.1"]
            made.standardOutput = FileHandle.nullDevice
            made.standardError = FileHandle.nullDevice
            try made.run()
            made.waitUntilExit()
            guard made.terminationStatus == 0 else { throw ServerFailure(message: "openssl could not make a certificate") }
            tlsSettings = """
                server.modules += ("mod_openssl")
                ssl.engine = "enable"
                ssl.pemfile = "\(directory.file("cert.pem"))"
                ssl.privkey = "\(directory.file("key.pem"))"

                """
            certificateFile = directory.file("cert.pem")
        } else {
            certificateFile = nil
        }
        var lastFailure = ""
        // A free port, found by binding port 0; another process may take it before lighttpd
        // does, so a start that fails is tried again on another.
        for _ in 0..<5 {
            let port = try Self.freePort()
            try directory.write("""
                server.modules = ("mod_webdav", "mod_auth", "mod_authn_file")
                server.document-root = "\(root)"
                server.bind = "127.0.0.1"
                server.port = \(port)
                server.upload-dirs = ("\(directory.file("uploads"))")
                server.errorlog = "\(directory.file("error.log"))"
                webdav.activate = "enable"
                webdav.is-readonly = "disable"
                auth.backend = "plain"
                auth.backend.plain.userfile = "\(directory.file("users"))"
                auth.require = ("" => ("method" => "basic", "realm" => "bmvault tests", "require" => "valid-user"))
                \(tlsSettings)
                """, to: "lighttpd.conf")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.lighttpd)
            process.arguments = ["-D", "-f", directory.file("lighttpd.conf")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            Self.stop(process)
            lastFailure = (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? "no error log"
        }
        directory.remove()
        throw ServerFailure(message: "lighttpd did not start: \(lastFailure)")
    }

    deinit {
        Self.stop(process)
        directory.remove()
    }

    /// SIGKILL: lighttpd started by a test process may have SIGTERM blocked (the mask is
    /// inherited), and a test server has nothing to flush.
    private static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Every file under the served folder, by path relative to it, with its bytes.
    public func files() throws -> [String: Data] {
        var found: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return found }
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found[path] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
            }
        }
        return found
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// A port nothing listens on now, found by binding port 0 on loopback.
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ServerFailure(message: "no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw ServerFailure(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the port within 5 s, while `process` runs.
    static func waitUntilListening(port: Int, process: Process) -> Bool {
        for _ in 0..<250 {
            guard process.isRunning else { return false }
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }
}
