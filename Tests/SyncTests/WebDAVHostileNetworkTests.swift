import Foundation
import Synchronization
import Testing
import Journal
@testable import Sync
@testable import VaultStore
import TestSupport

/// Devices syncing through lighttpd behind ``FaultProxy``: connections refused and reset,
/// answers lost after the server applied a write, 5xx answers, answers that stall past the
/// timeout. Whatever happens, a later sync on a quiet network converges with nothing lost.
@Suite struct WebDAVHostileNetworkTests {
    static let credentials = WebDAVCredentials(user: "reader", password: "correct horse")
    /// Retries at once, so a test need not move clocks past a backoff.
    static let noBackoff = Backoff(baseMilliseconds: 0, capMilliseconds: 0)

    static func remote(_ url: String, _ cluster: Cluster) -> WebDAVRemote {
        WebDAVRemote(name: remoteName, url: url + "/bmvault", vaultID: cluster.metadata.vaultID, credentials: credentials,
                     deadlines: WebDAVRemote.Deadlines(stallSeconds: 1))
    }

    /// The answer to an operation's PUT is lost after the server stored it: the retry finds
    /// the file there (412) and counts it as sent; exactly one file, one note on the other device.
    @Test func aWriteAppliedButNeverAnsweredIsANoOpWhenRetried() throws {
        let server = try WebDAVServer()
        let dropped = Mutex(false)
        let proxy = try FaultProxy(upstreamPort: server.port) { _, method, path in
            guard method == "PUT", path.hasSuffix(".op") else { return .pass }
            return dropped.withLock { done in
                defer { done = true }
                return done ? .pass : .dropResponse
            }
        }
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let note = try a.addNote("typed on a bad line", to: try a.addBook("A book"))
        let first = try a.sync(through: [Self.remote(proxy.url, cluster)], backoff: Self.noBackoff)
        #expect(first.failures >= 1 && proxy.faultsChosen.contains(.dropResponse))
        #expect(try server.files().keys.filter { $0.hasSuffix(".op") }.count == 2, "both operations landed, one answer was lost")
        try a.sync(through: [Self.remote(proxy.url, cluster)], backoff: Self.noBackoff)
        #expect(try a.waitingOperations().isEmpty)
        #expect(try server.files().keys.filter { $0.hasSuffix(".op") }.count == 2, "the retry wrote nothing twice")
        try b.sync(through: [Self.remote(server.url.replacingOccurrences(of: "/bmvault", with: ""), cluster)])
        #expect(try b.liveAnnotations().map(\.id) == [note.id])
        try expectConverged([a, b])
    }

    /// Issue 40: a server that answers an operation's PUT with 412 (and then has no such
    /// file), 301 or 308 is broken, not the operation: the upload waits out its backoff (the
    /// sync exits 75), and once the server heals a plain sync delivers and the other device
    /// gets the note. Such answers used to fail the operations for good.
    @Test(arguments: [412, 301, 308])
    func anOddAnswerToAPutIsRetriedOnceTheServerHeals(status: Int) throws {
        let server = try WebDAVServer()
        let direct = server.url.replacingOccurrences(of: "/bmvault", with: "")
        let broken = Mutex(true)
        let proxy = try FaultProxy(upstreamPort: server.port) { _, method, path in
            method == "PUT" && path.hasSuffix(".op") && broken.withLock { $0 } ? .status(status) : .pass
        }
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        let b = try cluster.addDevice("b")
        let note = try a.addNote("sent to a broken server", to: try a.addBook("A book"))
        let first = try a.sync(through: [Self.remote(proxy.url, cluster)])
        #expect(first.pushed == 0 && first.failures == 2 && first.failedForGood == 0, "\(first)")
        #expect(first.shortfall == .leftToRetry(failures: 2, deferred: 0), "exit 75: \(first)")
        #expect(try a.waitingOperations().allSatisfy { $0.state == .pending && $0.nextAttemptAt != nil })

        broken.withLock { $0 = false }
        a.clock.advance(hours: 1)       // past the first backoff (at most 2 s)
        let healed = try a.sync(through: [Self.remote(proxy.url, cluster)])
        #expect(healed.pushed == 2 && healed.shortfall == nil, "\(healed)")
        #expect(try a.waitingOperations().isEmpty)
        try b.sync(through: [Self.remote(direct, cluster)])
        #expect(try b.liveAnnotations().map(\.id) == [note.id])
        try expectConverged([a, b])
    }

    /// Each fault alone, as the remote reports it: a stall past the timeout is `timedOut`, a
    /// reset or an empty answer an I/O failure, a 5xx the server's.
    @Test func eachFaultIsReportedAsTemporary() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let cases: [(FaultProxy.Fault, RemoteError)] = [
            (.stall(seconds: 3), .timedOut), (.refuse, .io(operation: "http", errno: EIO)),
            (.resetMidRequest, .io(operation: "http", errno: EIO)), (.dropResponse, .io(operation: "http", errno: EIO)),
            (.status(503), .http(operation: "PROPFIND", status: 503)),
        ]
        for (fault, expected) in cases {
            let proxy = try FaultProxy(upstreamPort: server.port) { _, _, _ in fault }
            do throws(RemoteError) {
                try Self.remote(proxy.url, cluster).checkReachable()
                Issue.record("\(fault) went unnoticed")
            } catch {
                #expect(error == expected, "\(fault): \(error)")
            }
        }
    }

    /// Issue 40: an answer trickled at 4 bytes a second never falls under the stall floor (a
    /// byte a second), yet the request ends as `timedOut` once it has taken longer than its
    /// deadline allows for the bytes it moved (here 1 s plus a second per 1,000 bytes).
    @Test func aTrickledAnswerRunsOutOfItsRequestsTime() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.sync(through: [Self.remote(server.url.replacingOccurrences(of: "/bmvault", with: ""), cluster)])
        let proxy = try FaultProxy(upstreamPort: server.port) { _, method, _ in method == "GET" ? .trickle(bytesPerSecond: 4) : .pass }
        let remote = WebDAVRemote(name: remoteName, url: proxy.url + "/bmvault", vaultID: cluster.metadata.vaultID, credentials: Self.credentials,
                                  deadlines: WebDAVRemote.Deadlines(stallSeconds: 2, requestSeconds: 1, minimumBytesPerSecond: 1000))
        try remote.checkReachable()
        let started = ContinuousClock.now
        #expect(throws: RemoteError.timedOut) { try remote.readDescriptor() }
        #expect(started.duration(to: .now) < .seconds(5), "the trickle was cut at its deadline")
        #expect(proxy.faultsChosen.contains(.trickle(bytesPerSecond: 4)))
    }

    /// Issue 40: every request of one remote (one sync) ends by the sync's deadline, however
    /// long its own would be: one under way is cut there, and none starts after it.
    @Test func aSyncEndsByItsTotalDeadline() throws {
        let server = try WebDAVServer()
        let cluster = try Cluster()
        let a = try cluster.addDevice("a")
        try a.sync(through: [Self.remote(server.url.replacingOccurrences(of: "/bmvault", with: ""), cluster)])
        let proxy = try FaultProxy(upstreamPort: server.port) { _, method, _ in method == "GET" ? .trickle(bytesPerSecond: 4) : .pass }
        let remote = WebDAVRemote(name: remoteName, url: proxy.url + "/bmvault", vaultID: cluster.metadata.vaultID, credentials: Self.credentials,
                                  deadlines: WebDAVRemote.Deadlines(stallSeconds: 60, requestSeconds: 60, syncSeconds: 2))
        let started = ContinuousClock.now
        try remote.checkReachable()
        #expect(throws: RemoteError.timedOut) { try remote.readDescriptor() }
        let elapsed = started.duration(to: .now)
        #expect(elapsed >= .milliseconds(1900) && elapsed < .seconds(5), "cut at the sync's deadline: \(elapsed)")
        let asked = proxy.faultsChosen.count
        #expect(throws: RemoteError.timedOut) { try remote.checkReachable() }
        #expect(proxy.faultsChosen.count == asked, "nothing is sent once the sync's time is up")
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func threeDevicesConvergeWhateverTheNetworkDoes(seed: UInt64) throws {
        let server = try WebDAVServer()
        let direct = server.url.replacingOccurrences(of: "/bmvault", with: "")
        let random = Mutex(SeededGenerator(seed: seed))
        let faults: [FaultProxy.Fault] = [.refuse, .resetMidRequest, .dropResponse, .status(500), .status(503), .status(502)]
        let proxy = try FaultProxy(upstreamPort: server.port) { _, _, _ in
            random.withLock { generator in
                let roll = Int.random(in: 0..<100, using: &generator)
                if roll < 2 { return .stall(seconds: 3) }
                return roll < 25 ? faults.randomElement(using: &generator) ?? .pass : .pass
            }
        }
        let cluster = try Cluster()
        let devices = try (["a", "b", "c"] as [Character]).map { name in try cluster.addDevice(String(name), deviceID: deviceID(name)) }
        let canary = "CANARY-\(seed)-\(UUID().uuidString)"
        let book = try devices[0].addBook("Shared \(canary)")
        try devices[0].sync(through: [Self.remote(direct, cluster)])
        var written: [EntityID] = []
        var actions = SeededGenerator(seed: seed &* 31)
        for round in 0..<6 {
            for device in devices {
                _ = try? device.sync(through: [Self.remote(proxy.url, cluster)], backoff: Self.noBackoff)
                let live = try device.liveAnnotations()
                if live.isEmpty || Bool.random(using: &actions) || (try? try device.store.read { tables throws(StoreError) in try tables.books.book(book.id) }) == nil {
                    if (try? try device.store.read { tables throws(StoreError) in try tables.books.book(book.id) }) != nil {
                        written.append(try device.addNote("round \(round) on \(device.name) \(canary)", to: book).id)
                    }
                } else if let target = live.randomElement(using: &actions) {
                    device.clock.advance(seconds: 1)
                    _ = try device.edit(target.id, "edited in round \(round) on \(device.name) \(canary)")
                }
            }
        }
        // A quiet network: every device syncs straight to the server until nothing moves.
        for _ in 0..<6 {
            var moved = 0
            for device in devices {
                let summary = try device.sync(through: [Self.remote(direct, cluster)], backoff: Self.noBackoff)
                moved += summary.pushed + summary.pulled + summary.deferred + summary.failures
            }
            if moved == 0 { break }
        }
        try expectConverged(devices, "seed \(seed)")
        let ids = Set(try devices[0].liveAnnotations().map(\.id))
        #expect(ids.isSuperset(of: written), "seed \(seed): a note written on some device was lost")
        for device in devices { #expect(try device.waitingOperations().isEmpty, "seed \(seed): \(device.name)'s outbox") }
        #expect(proxy.faultsChosen.contains { $0 != .pass }, "seed \(seed): the network did misbehave")
        for (path, bytes) in try server.files() {
            #expect(bytes.range(of: Data(canary.utf8)) == nil && !path.contains("CANARY"), "\(path)")
        }
    }
}
