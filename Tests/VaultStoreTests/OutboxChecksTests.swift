import Testing
@testable import VaultStore
import Sync
import SyncWire
import TestSupport

/// Migration 0005 rewrote the outbox's CHECK constraints as comparisons by editing the
/// schema's text: they must refuse exactly what the `IN (...)` lists refused, and the
/// connection must be defensive again once the upgrade is done.
@Suite struct OutboxChecksTests {
    /// One outbox row with these three values, the rest valid.
    func insert(_ store: Store, entity: String, action: String, state: String, key: String) throws(StoreError) {
        try store.database.run("""
            INSERT INTO outbox (entity, entity_id, action, payload, base_version, idempotency_key, created_at, state)
            VALUES (?, 'id', ?, x'00', 0, ?, 0, ?)
            """, [.text(entity), .text(action), .text(key), .text(state)])
    }

    @Test func theChecksAcceptEveryKnownValueAndRefuseAnyOther() throws {
        let fixture = try makeFixture()
        defer { fixture.directory.remove() }
        let store = fixture.store
        var count = 0
        for entity in OutboxEntity.allCases {
            for action in ["create", "update", "delete"] {
                for state in OutboxState.allCases {
                    count += 1
                    try insert(store, entity: entity.rawValue, action: action, state: state.rawValue, key: "k\(count)")
                }
            }
        }
        for (entity, action, state) in [("note", "create", "pending"), ("book", "merge", "pending"),
                                        ("book", "create", "waiting"), ("Book", "create", "pending"),
                                        ("book", "create", "done "), ("", "create", "pending")] {
            count += 1
            #expect("\(entity) \(action) \(state) was accepted") {
                try insert(store, entity: entity, action: action, state: state, key: "k\(count)")
            } throws: { error in
                guard case .database(let code, _)? = error as? StoreError else { return false }
                return code == 275   // SQLITE_CONSTRAINT_CHECK
            }
        }
        var rows = 0
        try store.database.forEachRow("SELECT count(*) FROM outbox") { row in rows = Int(row.int64(0)) }
        #expect(rows == OutboxEntity.allCases.count * 3 * OutboxState.allCases.count)
    }

    @Test func theConnectionThatUpgradedIsDefensiveAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try Database(path: directory.file("v4.db"), create: true)
        try MigrationRunner(migrations: Array(Migrations.all.prefix(4)), generatorVersion: testGeneratorVersion,
                            clock: TestClock()).migrate(database)
        try MigrationRunner(migrations: Migrations.all, generatorVersion: testGeneratorVersion, clock: TestClock()).migrate(database)
        #expect(try MigrationRunner.version(of: database) == Migrations.latestVersion)
        try database.execute("PRAGMA writable_schema = ON")
        #expect("the schema is writable after the upgrade") {
            try database.execute("UPDATE sqlite_master SET sql = sql WHERE name = 'outbox'")
        } throws: { error in
            guard case .database(let code, let message)? = error as? StoreError else { return false }
            return code == 1 && message.contains("may not be modified")   // SQLITE_ERROR from defensive mode
        }
    }
}
