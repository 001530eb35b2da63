internal import VaultCrypto

/// The Secret Service calls bmvault makes, over one ``BusConnection`` with one `plain`
/// transfer session.
///
/// why `plain`, not the spec's Diffie-Hellman session: on this kind of machine the 1024-bit
/// exchange costs about 10 ms of every command (both ends), more than the whole rest of a
/// `note add`; and it protects the key only from processes that can read the session bus,
/// which run as the reader and can ask the Secret Service for the key themselves. The key
/// is carried in secure memory on our side. See Docs/SECURITY.md, "The key on the bus".
///
/// Each method queues its call and returns a ``Pending`` reply; ``wait(_:)`` sends what is
/// queued and reads the answer, so independent calls travel together.
final class SecretServiceClient {
    static let service = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    /// The attribute libsecret adds for a schema; kept so items stay found by both.
    static let schemaAttribute = "xdg:schema"
    static let schemaName = "org.bmvault.VaultKey"

    /// A queued call and how to read its reply.
    struct Pending<Value> {
        fileprivate let serial: UInt32
        fileprivate let decode: (Message) throws(KeystoreError) -> Value
    }

    /// An item search's answer: items whose secrets can be read now, and items in locked collections.
    struct Items {
        let unlocked: [String]
        let locked: [String]
    }

    let connection: BusConnection
    private let session: Pending<String>

    /// Connects, waits for gnome-keyring to know us, and queues the opening of a `plain` session.
    init(deadline: Deadline) throws(KeystoreError) {
        connection = try BusConnection(deadline: deadline)
        // why first, and alone: gnome-keyring 42 registers a new client from an idle callback
        // that can run after the client's first call; a first call that needs the client
        // (OpenSession, SearchItems) then aborts the whole daemon, about once in a thousand
        // connections, and every application's unlocked secrets go with it. Reading the
        // service's `Collections` needs no client, and once it is answered the client exists.
        let greeting = MethodCall(destination: Self.service, path: Self.servicePath, interface: "org.freedesktop.DBus.Properties",
                                  member: "Get", signature: "ss") { (body) throws(KeystoreError) in
            try body.string(Self.serviceInterface)
            try body.string("Collections")
        }
        do {
            _ = try connection.reply(to: try connection.send(greeting))
        } catch .failure(let domain, _) where domain != "errno" && !domain.hasPrefix("bmvault-") {
            // A provider without the property said so: an answer is all the greeting is for.
        }
        let call = MethodCall(destination: Self.service, path: Self.servicePath, interface: Self.serviceInterface,
                              member: "OpenSession", signature: "sv") { (body) throws(KeystoreError) in
            try body.string("plain")
            try body.variant(signature: "s") { () throws(KeystoreError) in try body.string("") }
        }
        session = Pending(serial: try connection.send(call)) { (message) throws(KeystoreError) in
            try message.readBody(expecting: "vo") { (reader) throws(KeystoreError) in
                try reader.skip("v")
                return try reader.string()
            }
        }
    }

    /// Sends what is queued and reads `pending`'s reply.
    func wait<Value>(_ pending: Pending<Value>) throws(KeystoreError) -> Value {
        try pending.decode(try connection.reply(to: pending.serial))
    }

    /// Every item under bmvault's schema for `vaultID`, in every collection.
    func searchItems(vaultID: String) throws(KeystoreError) -> Pending<Items> {
        let attributes = Self.attributes(vaultID: vaultID)
        return try queue(member: "SearchItems", signature: "a{ss}", replySignature: "aoao",
                         { (body) throws(KeystoreError) in try body.stringDictionary(attributes) },
                         { (reader) throws(KeystoreError) in Items(unlocked: try reader.objectPaths(), locked: try reader.objectPaths()) })
    }

    /// The collection an alias ("default", "session") names, or nil when the alias is unset.
    func collection(alias: String) throws(KeystoreError) -> Pending<String?> {
        try queue(member: "ReadAlias", signature: "s", replySignature: "o",
                  { (body) throws(KeystoreError) in try body.string(alias) },
                  { (reader) throws(KeystoreError) in
                      let path = try reader.string()
                      return path == "/" ? nil : path
                  })
    }

    /// The secrets of `items`, each copied into secure memory. Items the provider leaves
    /// out (it could not unlock them) are simply absent.
    func secrets(of items: [String]) throws(KeystoreError) -> Pending<[String: SecretBytes]> {
        let session = try wait(self.session)
        return try queue(member: "GetSecrets", signature: "aoo", replySignature: "a{o(oayays)}",
                         { (body) throws(KeystoreError) in
                             try body.array(elementAlignment: 4) { () throws(KeystoreError) in
                                 for item in items { try body.string(item) }
                             }
                             try body.string(session)
                         },
                         { (reader) throws(KeystoreError) in
                             var secrets: [String: SecretBytes] = [:]
                             try reader.array(elementAlignment: 8) { (entry) throws(KeystoreError) in
                                 try entry.align(8)
                                 let item = try entry.string()
                                 try entry.align(8)
                                 _ = try entry.string()      // session
                                 _ = try entry.byteArray()   // parameters (none for plain)
                                 let value = try entry.byteArray()
                                 _ = try entry.string()      // content type
                                 do throws(CryptoError) {
                                     secrets[item] = try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: entry.bytes[value]))
                                 } catch {
                                     throw .crypto(error)
                                 }
                             }
                             return secrets
                         })
    }

    /// Whether the collection at `path` is locked.
    func isLocked(collection path: String) throws(KeystoreError) -> Pending<Bool> {
        try property(of: path, interface: Self.collectionInterface, name: "Locked", type: "b") { (reader) throws(KeystoreError) in
            try reader.bool()
        }
    }

    /// When the item at `path` was created, in seconds since 1970.
    func creationTime(of path: String) throws(KeystoreError) -> Pending<UInt64> {
        try property(of: path, interface: Self.itemInterface, name: "Created", type: "t") { (reader) throws(KeystoreError) in
            try reader.uint64()
        }
    }

    /// Deletes the item at `path`. A provider that wants to prompt first counts as locked:
    /// bmvault never shows prompts (its timeout would cancel one mid-typing anyway).
    func delete(item path: String) throws(KeystoreError) -> Pending<Void> {
        try queue(path: path, interface: Self.itemInterface, member: "Delete", signature: "", replySignature: "o",
                  { _ in },
                  { (reader) throws(KeystoreError) in
                      guard try reader.string() == "/" else { throw .keyringLocked }
                  })
    }

    /// Stores `secret` as a new item in the collection at `collectionPath`, replacing any
    /// item there with the same attributes.
    ///
    /// why a path, not an alias: given a missing or locked collection a provider may create
    /// or unlock it behind a prompt; the caller resolves and checks the collection first.
    func createItem(in collectionPath: String, label: String, vaultID: String, secret: UnsafeRawBufferPointer,
                    contentType: String) throws(KeystoreError) -> Pending<Void> {
        let session = try wait(self.session)
        let attributes = Self.attributes(vaultID: vaultID)
        // The secret is written into the call's secure buffer now, not when it is sent.
        return try queue(path: collectionPath, interface: Self.collectionInterface, member: "CreateItem",
                         signature: "a{sv}(oayays)b", replySignature: "oo",
                         { (body) throws(KeystoreError) in
                             try body.array(elementAlignment: 8) { () throws(KeystoreError) in
                                 try body.structure { () throws(KeystoreError) in
                                     try body.string(Self.itemInterface + ".Label")
                                     try body.variant(signature: "s") { () throws(KeystoreError) in try body.string(label) }
                                 }
                                 try body.structure { () throws(KeystoreError) in
                                     try body.string(Self.itemInterface + ".Attributes")
                                     try body.variant(signature: "a{ss}") { () throws(KeystoreError) in
                                         try body.stringDictionary(attributes)
                                     }
                                 }
                             }
                             try body.structure { () throws(KeystoreError) in
                                 try body.string(session)
                                 try body.byteArray(UnsafeRawBufferPointer(start: nil, count: 0))
                                 try body.byteArray(secret)
                                 try body.string(contentType)
                             }
                             try body.bool(true)
                         },
                         { (reader) throws(KeystoreError) in
                             _ = try reader.string()  // the item
                             guard try reader.string() == "/" else { throw .keyringLocked }
                         })
    }

    // MARK: - Private

    private static func attributes(vaultID: String) -> [(String, String)] {
        [("vault-id", vaultID), (schemaAttribute, schemaName)]
    }

    private func property<Value>(of path: String, interface: String, name: String, type: String,
                                 _ read: @escaping (inout WireReader) throws(KeystoreError) -> Value) throws(KeystoreError) -> Pending<Value> {
        try queue(path: path, interface: "org.freedesktop.DBus.Properties", member: "Get", signature: "ss", replySignature: "v",
                  { (body) throws(KeystoreError) in
                      try body.string(interface)
                      try body.string(name)
                  },
                  { (reader) throws(KeystoreError) in
                      guard try reader.signature() == type else { throw BusProtocolFailure.unexpectedReply.error }
                      return try read(&reader)
                  })
    }

    private func queue<Value>(path: String = servicePath, interface: String = serviceInterface, member: String,
                              signature: String, replySignature: String,
                              _ write: @escaping (WireWriter) throws(KeystoreError) -> Void,
                              _ read: @escaping (inout WireReader) throws(KeystoreError) -> Value) throws(KeystoreError) -> Pending<Value> {
        let call = MethodCall(destination: Self.service, path: path, interface: interface, member: member,
                              signature: signature, body: write)
        return Pending(serial: try connection.send(call)) { (message) throws(KeystoreError) in
            try message.readBody(expecting: replySignature, read)
        }
    }
}
