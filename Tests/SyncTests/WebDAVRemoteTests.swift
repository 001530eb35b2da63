import Foundation
import Testing
import Journal
@testable import Sync
@testable import VaultStore
import TestSupport

/// The WebDAV remote against a real server: lighttpd with mod_webdav on loopback, with
/// basic auth (``WebDAVServer``). Devices sync through it exactly as through a folder.
@Suite struct WebDAVRemoteTests {
    static let credentials = WebDAVCredentials(user: "reader", password: "correct horse")

    static func remote(_ server: WebDAVServer, _ cluster: Cluster, credentials: WebDAVCredentials = credentials,
                       url: String? = nil) -> WebDAVRemote {
        WebDAVRemote(name: remoteName, url: url ?? server.url, vaultID: cluster.metadata.vaultID, credentials: credentials)
    }

    /// The suite tests something only if the server really refuses a second create-once PUT
    /// and a replace whose ETag is stale.
    @Test func theServerRefusesASecondCreateAndAStaleReplace() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let remote = Self.remote(server, cluster)
        let device = String(repeating: "ab", count: 16)
        #expect(try remote.writeOperation("0001.key.op", of: device, bytes: Array("first".utf8)))
        #expect(try !remote.writeOperation("0001.key.op", of: device, bytes: Array("second".utf8)))
        #expect(try remote.readOperation("0001.key.op", of: device) == Array("first".utf8))
        // Another writer replaces the acknowledgement between this remote's read and write:
        // the write is refused once (412), re-read, and then lands.
        try remote.writeAcknowledgement(Array("one".utf8), of: device)
        let other = Self.remote(server, cluster)
        try other.writeAcknowledgement(Array("two".utf8), of: device)
        try remote.writeAcknowledgement(Array("three".utf8), of: device)
        #expect(try other.readAcknowledgement(of: device) == Array("three".utf8))
        #expect(try remote.operationNames(of: device) == ["0001.key.op"])
        #expect(try remote.devices() == [device])
        #expect(try remote.readDescriptor() == nil)
        try remote.removeOperation("0001.key.op", of: device)
        try remote.removeOperation("0001.key.op", of: device)   // gone already is fine
        #expect(try remote.operationNames(of: device).isEmpty)
    }

    @Test func twoDevicesConvergeThroughTheServerOverOneConnectionEach() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let a = try cluster.addDevice("a", deviceID: deviceID("a"))
        let b = try cluster.addDevice("b", deviceID: deviceID("b"))
        let canary = "CANARY-\(UUID().uuidString)"
        let book = try a.addBook("Book \(canary)")
        var notes: [Annotation] = []
        for index in 0..<40 { notes.append(try a.addNote("note \(index) \(canary)", to: book)) }
        let remoteA = Self.remote(server, cluster)
        try a.sync(through: [remoteA])
        #expect(remoteA.connectionsMade == 1 + WebDAVRemote.parallelRequests, "one, and those of a batch of writes")
        let remoteB = Self.remote(server, cluster)
        try b.sync(through: [remoteB])
        _ = try b.edit(notes[0].id, "edited on B \(canary)")
        _ = try a.addNote("a later note on A \(canary)", to: book)
        for _ in 0..<2 {
            try a.sync(through: [remoteA])
            try b.sync(through: [remoteB])
        }
        try expectConverged([a, b], "through WebDAV")
        #expect(try a.note(notes[0].id).body == "edited on B \(canary)")
        #expect(try a.waitingOperations().isEmpty && b.waitingOperations().isEmpty)
        // Kept alive: one connection, and those of the parallel reads of a pull (made once).
        #expect(remoteA.connectionsMade == 1 + WebDAVRemote.parallelRequests && remoteB.connectionsMade == 1 + WebDAVRemote.parallelRequests,
                "\(remoteA.connectionsMade), \(remoteB.connectionsMade)")
        // The server holds sealed files named by ids: no canary, no title.
        let files = try server.files()
        #expect(files.count > 40)
        #expect(!files.contains { $0.key.contains("CANARY") || $0.value.range(of: Data(canary.utf8)) != nil })
        #expect(!files.contains { $0.value.range(of: Data("Book".utf8)) != nil })
    }

    @Test func errorsSayWhatTheServerMeant() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let wrong = Self.remote(server, cluster, credentials: WebDAVCredentials(user: "reader", password: "wrong"))
        #expect(throws: RemoteError.unauthorized) { try wrong.checkReachable() }
        let nobody = Self.remote(server, cluster, credentials: WebDAVCredentials(user: nil, password: nil))
        #expect(throws: RemoteError.unauthorized) { try nobody.checkReachable() }
        let missing = Self.remote(server, cluster, url: server.url + "/not-there")
        #expect(throws: RemoteError.noSuchFolder) { try missing.checkReachable() }
        try Self.remote(server, cluster).checkReachable()
        // Nothing listening: temporary, so the outbox backs off and tries again.
        let closed = Self.remote(server, cluster, url: "http://127.0.0.1:\(try WebDAVServer.freePort())/bmvault")
        do throws(RemoteError) {
            try closed.checkReachable()
            Issue.record("a closed port was reachable")
        } catch {
            #expect(error == .unreachable(errno: ECONNREFUSED) && error.isTemporary, "\(error)")
        }
        #expect(RemoteError.http(operation: "PUT", status: 503).isTemporary && !RemoteError.http(operation: "PUT", status: 400).isTemporary)
        #expect(RemoteError.unauthorized.errorClass == "unauthorized" && !RemoteError.unauthorized.isTemporary)
    }

    @Test func aListingNamesEntriesByTheirLastSegmentWhateverFormTheHrefTakes() throws {
        let listing = """
            <?xml version="1.0"?>
            <d:multistatus xmlns:d="DAV:">
              <d:response><d:href>https://cloud.example/remote.php/dav/files/ada/bmvault/devices/</d:href>
                <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response>
              <d:response><d:href>/remote.php/dav/files/ada/bmvault/devices/0123456789abcdef0123456789abcdef/</d:href>
                <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response>
              <d:response><d:href>/remote.php/dav/files/ada/bmvault/devices/desktop%20copy.ini</d:href>
                <d:propstat><d:prop><d:resourcetype/></d:prop></d:propstat></d:response>
              <d:response><d:href>
                  https://cloud.example/remote.php/dav/files/ada/bmvault/devices/fedcba9876543210fedcba9876543210/
                </d:href>
                <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response>
              <d:response><d:href>/remote.php/dav/files/ada/bmvault/devices/not%zzdecodable</d:href>
                <d:propstat><d:prop><d:resourcetype/></d:prop></d:propstat></d:response>
              <d:response><d:href>	/remote.php/dav/files/ada/bmvault/devices/caf%C3%A9%2Bnotes \r\n</d:href>
                <d:propstat><d:prop><d:resourcetype/></d:prop></d:propstat></d:response>
            </d:multistatus>
            """
        let entries = try WebDAVRemote.entries(ofListing: Array(listing.utf8), folder: "https://cloud.example/remote.php/dav/files/ada/bmvault/devices/")
        // Whitespace around an href is not part of it; a name that does not decode is no entry.
        #expect(entries == [WebDAVRemote.Entry(name: "0123456789abcdef0123456789abcdef", isFolder: true),
                            WebDAVRemote.Entry(name: "desktop copy.ini", isFolder: false),
                            WebDAVRemote.Entry(name: "fedcba9876543210fedcba9876543210", isFolder: true),
                            WebDAVRemote.Entry(name: "café+notes", isFolder: false)])
        #expect(throws: (any Error).self) { try WebDAVRemote.entries(ofListing: Array("<html/>".utf8), folder: "/") }
    }
}
