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
        // Nothing listening: unreachable, like a folder that is not mounted.
        let closed = Self.remote(server, cluster, url: "http://127.0.0.1:\(try WebDAVServer.freePort())/bmvault")
        do throws(RemoteError) {
            try closed.checkReachable()
            Issue.record("a closed port was reachable")
        } catch {
            #expect(error == .unreachable(errno: ECONNREFUSED), "\(error)")
        }
        #expect(RemoteError.http(operation: "PUT", status: 503).errorClass == "http.PUT.503")
        #expect(RemoteError.unauthorized.errorClass == "unauthorized")
    }

    /// A Nextcloud-style listing of `devices/`: hrefs as paths and as full URLs, whitespace
    /// around one, names to percent-decode and one that does not decode (also what
    /// ``WireFuzzTests`` mutates).
    static let sampleListing = """
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
    static let sampleListingFolder = "https://cloud.example/remote.php/dav/files/ada/bmvault/devices/"

    @Test func aListingNamesEntriesByTheirLastSegmentWhateverFormTheHrefTakes() throws {
        let listing = Self.sampleListing
        // Whitespace around an href is not part of it; a name that does not decode is no entry.
        // The answer is read as it arrives, in pieces of any size.
        for size in [1, 7, 4096] {
            let entries = try Self.entries(ofListing: Array(listing.utf8), folder: Self.sampleListingFolder, pieces: size)
            #expect(entries == [WebDAVListing.Entry(name: "0123456789abcdef0123456789abcdef", isFolder: true),
                                WebDAVListing.Entry(name: "desktop copy.ini", isFolder: false),
                                WebDAVListing.Entry(name: "fedcba9876543210fedcba9876543210", isFolder: true),
                                WebDAVListing.Entry(name: "café+notes", isFolder: false)], "in pieces of \(size)")
        }
        for notAListing in ["<html/>", "<d:multistatus xmlns:d=\"DAV:\"><d:response>", "", "not xml"] {
            #expect(throws: RemoteError.malformed(what: "a listing that is not WebDAV's")) {
                try Self.entries(ofListing: Array(notAListing.utf8), folder: "/", pieces: 3)
            }
        }
    }

    /// `listing` fed to a ``WebDAVListing`` in pieces of `pieces` bytes.
    static func entries(ofListing listing: [UInt8], folder: String, pieces: Int) throws(RemoteError) -> [WebDAVListing.Entry] {
        let reader = WebDAVListing(folder: folder)
        for start in stride(from: 0, to: listing.count, by: pieces) {
            guard listing[start..<min(start + pieces, listing.count)].withUnsafeBytes({ reader.read($0) }) else { break }
        }
        return try reader.finish()
    }

    /// A listing of `count` operation files in `devices/<id>/`, made `perChunk` entries at a
    /// time as it is read, so the test never holds it whole either.
    struct GeneratedListing: Sequence, IteratorProtocol {
        static let folder = "/dav/bmvault/devices/0123456789abcdef0123456789abcdef/"
        let count: Int
        var made = 0
        var finished = false

        init(count: Int) { self.count = count }

        mutating func next() -> [UInt8]? {
            if finished { return nil }
            // First the folder's own response, as servers send it.
            var text = made > 0 ? "" : "<?xml version=\"1.0\"?>\n<d:multistatus xmlns:d=\"DAV:\"><d:response><d:href>\(Self.folder)</d:href>"
                + "<d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response>\n"
            for index in made..<Swift.min(made + 1000, count) {
                text += "<d:response><d:href>\(Self.folder)\(String(format: "%016d", index)).0123456789abcdef.op</d:href>"
                    + "<d:propstat><d:prop><d:resourcetype/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\n"
            }
            made = Swift.min(made + 1000, count)
            if made == count {
                text += "</d:multistatus>\n"
                finished = true
            }
            return Array(text.utf8)
        }
    }

    /// Issue 40: a listing is parsed as it arrives, never held whole; 100,000 entries (about
    /// 18 MB) are read, each entry kept and nothing else.
    @Test func aLongListingIsReadAsItArrives() throws {
        let reader = WebDAVListing(folder: GeneratedListing.folder)
        var bytes = 0
        for chunk in GeneratedListing(count: 100_000) {
            bytes += chunk.count
            #expect(chunk.withUnsafeBytes { reader.read($0) })
        }
        let entries = try reader.finish()
        #expect(bytes > 15_000_000)
        #expect(entries.count == 100_000 && entries.allSatisfy { !$0.isFolder && $0.name.hasSuffix(".op") })
        #expect(entries.last?.name == String(format: "%016d", 99_999) + ".0123456789abcdef.op")
    }

    /// Issue 40: past the cap on entries (here lowered to 10,000) the listing is refused as
    /// soon as the entry after the last allowed one is read: what the server sends after it is
    /// not read, and what was kept is bounded by the cap. The cap is far lower than the
    /// bytes allowed (1,000,000 entries, 512 MiB).
    @Test func aListingPastTheEntryCapIsRefusedAsItArrives() throws {
        #expect(WebDAVListing.largestEntryCount == 1_000_000 && WebDAVListing.largestByteCount == 512 << 20)
        let reader = WebDAVListing(folder: GeneratedListing.folder, entryLimit: 10_000)
        var chunks = 0
        for chunk in GeneratedListing(count: 1_000_000) {
            chunks += 1
            guard chunk.withUnsafeBytes({ reader.read($0) }) else { break }
        }
        #expect(throws: RemoteError.listingTooLarge) { try reader.finish() }
        #expect(chunks == 11, "refused within the chunk that held entry 10,001, of 1,000")
        #expect(reader.entries.count <= 10_000)
        #expect(RemoteError.listingTooLarge.errorClass == "listingTooLarge")
    }

    /// Issue 40, through the server: a device folder with more files than a listing may name
    /// (the cap lowered to 500 for the test) is refused with its own error; at the cap it is read.
    @Test func aFolderListingMoreEntriesThanTheCapIsRefused() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let device = "0123456789abcdef0123456789abcdef"
        let folder = server.folder + "/bmvault-\(cluster.metadata.vaultID)/devices/\(device)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<500 {
            FileManager.default.createFile(atPath: folder + "/" + String(format: "%016d", index) + ".0123456789abcdef.op", contents: Data())
        }
        let remote = Self.remote(server, cluster)
        remote.largestListing = 500
        #expect(try remote.operationNames(of: device).count == 500)
        FileManager.default.createFile(atPath: folder + "/" + String(format: "%016d", 500) + ".0123456789abcdef.op", contents: Data())
        #expect(throws: RemoteError.listingTooLarge) { try remote.operationNames(of: device) }
        // The connection is still usable after a listing refused midway.
        #expect(try remote.devices() == [device])
    }
}
