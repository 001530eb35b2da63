internal import FileIO
import Foundation
import Keystore
import Telemetry
import HTTP
import Sync
public import VaultCrypto
import VaultStore

/// A WebDAV folder as the reader names it: an `https://` URL (or `http://` on this machine
/// only), without a user name, password, query or fragment in it.
public struct WebDAVFolder: Sendable, Equatable {
    /// The URL, without a trailing slash.
    public let url: String
    /// The user name the server asks for, if any (its password is not here).
    public let user: String?
    /// Certificates to trust instead of the system's: an absolute path to a PEM file.
    public let caFile: String?

    /// Whether `location` is a URL rather than a folder path.
    public static func isURL(_ location: String) -> Bool {
        let lowered = location.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Checks what the reader typed; the CA file must be a regular file this user can open
    /// now (opened through FileIO, which refuses a FIFO without waiting on it).
    public init(url: String, user: String?, caFile: String?) throws(VaultError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty else {
            throw .invalidRemoteURL(reason: "it is not an https:// URL")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidRemoteURL(reason: "a user name goes in --user, and a password never on the command line")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .invalidRemoteURL(reason: "a folder's URL has no query (?) or fragment (#)")
        }
        // Plain HTTP would carry the password and the sealed files' names in the clear.
        guard scheme == "https" || ThisMachine.isLoopback(host: host) else {
            throw .invalidRemoteURL(reason: "http:// is for this machine only (localhost, 127.0.0.1, ::1); use https://")
        }
        var trimmed = url
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.url = trimmed
        self.user = user
        if let caFile {
            let path = URL(fileURLWithPath: caFile).standardizedFileURL.path
            do { try FileDescriptor.open(path, .readOnly).close() } catch { throw .caFileUnreadable(path: path) }
            self.caFile = path
        } else {
            self.caFile = nil
        }
    }

    func credentials(password: SecretBytes?) -> WebDAVCredentials {
        Self.credentials(user: user, password: password)
    }

    /// What libcurl is handed: the password as a string (see SECURITY.md, "Secrets in memory").
    static func credentials(user: String?, password: SecretBytes?) -> WebDAVCredentials {
        WebDAVCredentials(user: user, password: password.map { secret in secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } })
    }
}

extension Vault {
    /// Sets up a WebDAV remote: checks that the server answers with these credentials, that
    /// the folder holds no other vault, and that the server refuses a second create of one
    /// name (``WebDAVRemote/probe()``); then keeps the password in the Secret Service and
    /// records the remote (URL, user name, CA file; never the password).
    @discardableResult
    public func addWebDAVRemote(name: String, folder: WebDAVFolder, password: SecretBytes?,
                                carriesFiles: Bool = false) throws(VaultError) -> RemoteRecord {
        let store = try unlockedStore()
        try Self.checkRemoteName(name)
        // A name in use is refused before the server is asked or the keyring touched: the
        // password kept for the remote of that name must stay as it is.
        guard try !store.reading({ tables throws(StoreError) in try tables.remotes.all() }).contains(where: { $0.name == name }) else {
            throw .remoteExists(name: name)
        }
        let remote = WebDAVRemote(name: name, url: folder.url, vaultID: vaultID, credentials: folder.credentials(password: password),
                                  caFile: folder.caFile)
        do throws(RemoteError) {
            try remote.checkReachable()
            if let bytes = try remote.readDescriptor(), try RemoteDescriptor.decode(bytes).vaultId != vaultID {
                throw RemoteError.otherVault
            }
            try remote.probe()
        } catch {
            throw Self.webDAVError(error, remote: name)
        }
        if let password {
            try keystoreCall { () throws(KeystoreError) in try keyStore.storeRemotePassword(password, vaultID: vaultID, remote: name) }
        }
        try storeCall { () throws(StoreError) in
            try store.write { tables throws(StoreError) in try tables.remotes.add(name: name, kind: .webdav, location: folder.url, user: folder.user, caFile: folder.caFile,
                                carriesFiles: carriesFiles) }
        }
        log.notice("sync.remote.added", ["kind": .public("webdav")])
        guard let record = try store.reading({ tables throws(StoreError) in try tables.remotes.all() }).first(where: { $0.name == name }) else {
            throw .remoteNotFound(name: name)
        }
        return record
    }

    /// Replaces the password kept for a WebDAV remote, after the server has accepted it.
    public func setRemotePassword(name: String, password: SecretBytes) throws(VaultError) {
        guard let record = try remotes().first(where: { $0.name == name }) else { throw .remoteNotFound(name: name) }
        guard record.kind == .webdav else { throw .remoteHasNoPassword(name: name) }
        let folder = try WebDAVFolder(url: record.location, user: record.user, caFile: record.caFile)
        do throws(RemoteError) {
            try WebDAVRemote(name: name, url: folder.url, vaultID: vaultID, credentials: folder.credentials(password: password),
                             caFile: folder.caFile).checkReachable()
        } catch {
            throw Self.webDAVError(error, remote: name, settingUp: false)
        }
        try keystoreCall { () throws(KeystoreError) in try keyStore.storeRemotePassword(password, vaultID: vaultID, remote: name) }
    }

    /// Where the password a WebDAV remote is used with came from.
    enum RemotePasswordOrigin {
        /// The Secret Service, or a remote that needs none (a folder, no user name).
        case keyring
        /// Given for this sync: typed, or printed by a command.
        case given
        /// Nowhere: the requests go without one.
        case none
    }

    /// The remote a record names, ready for a sync. A WebDAV remote's password comes from
    /// the Secret Service; where none is kept (or there is no keyring: the headless path),
    /// from `askPassword` (the CLI's `BMVAULT_REMOTE_PASSWORD_COMMAND`, or the terminal; it
    /// keeps nothing); without one the server is asked without it, and its refusal is the
    /// remote's error (``sync(remote:retryFailed:allowMassDelete:askPassword:progress:)``
    /// says which, from the origin).
    func makeRemote(_ record: RemoteRecord,
                    askPassword: (RemoteRecord) -> SecretBytes? = { _ in nil }) -> (remote: any Remote, origin: RemotePasswordOrigin) {
        switch record.kind {
        case .folder:
            return (FolderRemote(name: record.name, location: record.location, vaultID: vaultID), .keyring)
        case .webdav:
            var password = keptPassword(of: record)
            var origin = RemotePasswordOrigin.keyring
            if password == nil, record.user != nil {
                password = askPassword(record)
                origin = password == nil ? .none : .given
            }
            return (WebDAVRemote(name: record.name, url: record.location, vaultID: vaultID,
                                 credentials: WebDAVFolder.credentials(user: record.user, password: password), caFile: record.caFile),
                    origin)
        }
    }

    /// The WebDAV remotes (all, or the one named) that need a password no keyring keeps
    /// (none is kept, or there is no keyring): what a sync will ask `askPassword` for.
    public func remotesWithoutKeptPassword(named name: String? = nil) throws(VaultError) -> [RemoteRecord] {
        try remotes().filter { record in
            record.kind == .webdav && record.user != nil && (name == nil || record.name == name) && keptPassword(of: record) == nil
        }
    }

    /// The password the Secret Service keeps for a remote; nil when none is, or no keyring answers.
    private func keptPassword(of record: RemoteRecord) -> SecretBytes? {
        (try? keyStore.remotePassword(vaultID: vaultID, remote: record.name)).flatMap { $0 }
    }

    /// A WebDAV failure at set-up, said about the remote: TLS with libcurl's reason. A
    /// refused password while `settingUp` (`remote add`, `init --join`: no remote is
    /// recorded) is `unauthorized.setup`, whose advice is not `remote password`.
    static func webDAVError(_ error: RemoteError, remote: String?, settingUp: Bool = true) -> VaultError {
        if case .tls(let reason) = error { return .remoteTLS(name: remote, reason: reason) }
        if settingUp, case .unauthorized = error { return .remote(name: remote ?? joinedRemoteName, errorClass: "unauthorized.setup") }
        return .remote(name: remote ?? joinedRemoteName, errorClass: error.errorClass)
    }

    static func checkRemoteName(_ name: String) throws(VaultError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw .invalidRemoteName
        }
    }
}
