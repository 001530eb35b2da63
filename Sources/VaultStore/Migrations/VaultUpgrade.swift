import Journal
import Telemetry

/// The whole procedure that brings an older vault up to date, around ``MigrationRunner``:
///
/// 1. take the upgrade lock (one upgrading process at a time) and re-read the version;
/// 2. check there is room for a snapshot and the upgrade, before touching anything;
/// 3. keep the original: `VACUUM INTO` a snapshot beside the vault (written under a
///    temporary name, flushed, then renamed), unless one from an interrupted upgrade exists;
/// 4. run the migrations in one verified transaction;
/// 5. only then remove the snapshot.
///
/// On failure the vault is at its old version, the snapshot stays, and the error names it.
struct VaultUpgrade {
    let path: String
    let runner: MigrationRunner

    /// Extra room an upgrade may need beyond the snapshot: a tenth of the vault, at least 1 MiB.
    static func growthAllowance(forDatabaseBytes bytes: Int64) -> Int64 {
        max(bytes / 10, 1 << 20)
    }

    static func snapshotPath(for path: String, version: Int) -> String {
        "\(path).v\(version).snapshot"
    }

    func run(_ database: Database, events: (MigrationEvent) -> Void) throws(StoreError) {
        let lock = try FileLock(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let from = try MigrationRunner.version(of: database)
        let to = runner.migrations.count
        guard from < to else { return }
        let started = runner.clock.now()

        removeUnfinishedSnapshots()
        let snapshot = existingSnapshot() ?? Self.snapshotPath(for: path, version: from)
        if !FileSystem.exists(snapshot) {
            try checkFreeSpace(includingSnapshot: true)
            try takeSnapshot(database, to: snapshot)
        } else {
            try checkFreeSpace(includingSnapshot: false)
        }
        events(.upgrading(from: from, to: to, snapshot: snapshot))
        log.notice("store.upgrade.started", ["from": .integer(from), "to": .integer(to)])

        do {
            try runner.migrate(database, events: events)
        } catch {
            log.error("store.upgrade.failed", ["from": .integer(from), "to": .integer(to), "reason": .public(Self.describe(error))])
            throw .upgradeFailed(from: from, to: to, snapshot: snapshot, reason: Self.describe(error))
        }
        FaultInjection.reach("upgrade:committed")
        FileSystem.remove(snapshot)
        try? FileSystem.synchronize(FileSystem.directory(of: path))
        let elapsed = runner.clock.now().millisecondsSince1970 - started.millisecondsSince1970
        log.notice("store.upgrade.finished", ["from": .integer(from), "to": .integer(to), "ms": .integer(elapsed)])
        events(.upgraded(from: from, to: to, milliseconds: elapsed))
    }

    private func checkFreeSpace(includingSnapshot: Bool) throws(StoreError) {
        let databaseBytes = FileSystem.size(path) + FileSystem.size(path + "-wal")
        let needed = (includingSnapshot ? databaseBytes : 0) + Self.growthAllowance(forDatabaseBytes: databaseBytes)
        let available = try FileSystem.availableBytes(at: FileSystem.directory(of: path))
        guard available >= needed else {
            log.error("store.upgrade.refused", ["reason": .public("insufficientSpace"), "neededBytes": .integer(needed),
                                                "availableBytes": .integer(available)])
            throw .insufficientSpace(needed: needed, available: available)
        }
    }

    /// Copies the database, consistent and compacted, to `snapshot`: written as
    /// `snapshot.partial`, flushed, then renamed, so a half-written copy is never mistaken
    /// for the original.
    private func takeSnapshot(_ database: Database, to snapshot: String) throws(StoreError) {
        let partial = snapshot + ".partial"
        FileSystem.remove(partial)
        do {
            try database.run("VACUUM INTO ?", [.text(partial)])
            try FileSystem.restrictToOwner(partial)
            try FileSystem.synchronize(partial)
            FaultInjection.reach("upgrade:snapshot-written")
            try FileSystem.rename(partial, to: snapshot)
            try FileSystem.synchronize(FileSystem.directory(of: path))
        } catch {
            FileSystem.remove(partial)
            throw error
        }
        FaultInjection.reach("upgrade:snapshot-taken")
    }

    /// A snapshot left by an interrupted upgrade: the vault is still at that version
    /// (upgrades are atomic), so the oldest one is the original worth keeping.
    private func existingSnapshot() -> String? {
        Self.snapshots(of: path).first
    }

    /// Snapshots beside the vault at `path`, oldest version first.
    static func snapshots(of path: String) -> [String] {
        let directory = FileSystem.directory(of: path)
        let prefix = FileSystem.fileName(of: path) + ".v"
        let suffix = ".snapshot"
        return FileSystem.entries(of: directory)
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix(prefix), name.hasSuffix(suffix),
                      let version = Int(name.dropFirst(prefix.count).dropLast(suffix.count)) else { return nil }
                return (version, directory + "/" + name)
            }
            .sorted { $0.0 < $1.0 }
            .map(\.1)
    }

    /// Removes snapshots of a vault that is already at the newest version: their upgrade
    /// committed and was verified, and only the removal was interrupted.
    static func removeLeftoverSnapshots(of path: String) {
        let leftovers = snapshots(of: path)
        guard !leftovers.isEmpty else { return }
        leftovers.forEach(FileSystem.remove)
        try? FileSystem.synchronize(FileSystem.directory(of: path))
    }

    private func removeUnfinishedSnapshots() {
        let directory = FileSystem.directory(of: path)
        let prefix = FileSystem.fileName(of: path) + ".v"
        for name in FileSystem.entries(of: directory) where name.hasPrefix(prefix) && name.hasSuffix(".snapshot.partial") {
            FileSystem.remove(directory + "/" + name)
        }
    }

    private static func describe(_ error: StoreError) -> String {
        switch error {
        case .diskFull: "the disk filled up"
        case .busy: "another process kept the vault busy"
        case .upgradeCheckFailed(let check): "the check \(check) failed"
        case .migrationChanged(let id): "migration \(id) differs from the one recorded"
        case .database(let code, let message): "SQLite error \(code): \(message)"
        case .io(let operation, let code): "\(operation) failed (errno \(code))"
        default: "\(error)"
        }
    }
}
