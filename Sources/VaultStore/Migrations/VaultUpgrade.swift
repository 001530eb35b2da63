import Journal
import Telemetry

/// The whole procedure that brings an older vault up to date, around ``MigrationRunner``:
///
/// 1. take the upgrade lock (one upgrading process at a time) and re-read the version;
/// 2. check there is room for a snapshot and the upgrade, before touching anything;
/// 3. keep the original: copy it, page by page, to a snapshot beside the vault (written
///    under a temporary name, flushed, then renamed), unless one from an interrupted upgrade exists;
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
        let lock = try FileLock.acquire(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let from = try MigrationRunner.version(of: database)
        let to = runner.migrations.count
        guard from < to else { return }
        let started = runner.clock.now()

        Self.removeLeftovers(of: path, olderThan: from)
        // A snapshot of this very version, from an upgrade that was interrupted, is the
        // original: keep it. (Upgrades are atomic, so the vault is still at `from`.)
        let snapshot = Self.snapshotPath(for: path, version: from)
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
        do {
            try FileSystem.synchronizeDirectory(FileSystem.directory(of: path))
        } catch {
            // The upgrade is committed; a snapshot that comes back after a crash is removed
            // at a later open (`removeLeftovers`), so this is worth a line, not a failure.
            log.warning("store.upgrade.snapshotRemovalNotFlushed", ["reason": .public(Self.describe(error))])
        }
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

    /// Copies the database, consistent, to `snapshot`: written as
    /// `snapshot.partial`, flushed, then renamed, so a half-written copy is never mistaken
    /// for the original.
    private func takeSnapshot(_ database: Database, to snapshot: String) throws(StoreError) {
        let partial = snapshot + ".partial"
        FileSystem.remove(partial)
        do {
            try database.copy(to: partial)
            try FileSystem.restrictToOwner(partial)
            try FileSystem.synchronizeFile(partial)
            FaultInjection.reach("upgrade:snapshot-written")
            try FileSystem.rename(partial, to: snapshot)
            try FileSystem.synchronizeDirectory(FileSystem.directory(of: path))
        } catch {
            FileSystem.remove(partial)
            throw error
        }
        FaultInjection.reach("upgrade:snapshot-taken")
    }

    /// Snapshots beside the vault at `path`, as (version, path), oldest first.
    static func snapshots(of path: String) -> [(version: Int, path: String)] {
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
    }

    /// Removes what finished or abandoned work left beside the vault: snapshots of versions
    /// below `version` (their upgrade committed; only the removal was interrupted), partial
    /// snapshots, and copies from an interrupted `migrate --dry-run`. Call with the lock held.
    static func removeLeftovers(of path: String, olderThan version: Int) {
        let directory = FileSystem.directory(of: path)
        let name = FileSystem.fileName(of: path)
        var removed = false
        for snapshot in snapshots(of: path) where snapshot.version < version {
            FileSystem.remove(snapshot.path)
            removed = true
        }
        for entry in FileSystem.entries(of: directory)
        where (entry.hasPrefix(name + ".v") && entry.hasSuffix(".snapshot.partial")) || entry.hasPrefix(name + ".rehearsal-") {
            FileSystem.remove(directory + "/" + entry)
            removed = true
        }
        // Unflushed, a removed leftover may come back after a crash, and is removed again.
        if removed { try? FileSystem.synchronizeDirectory(directory) }
    }

    /// At the newest version: clean up after earlier upgrades, unless another process holds
    /// the lock (it may be upgrading, or rehearsing, right now).
    static func removeLeftoversIfIdle(of path: String, version: Int) {
        let directory = FileSystem.directory(of: path)
        let name = FileSystem.fileName(of: path)
        // The common case costs one directory read and takes no lock.
        guard FileSystem.entries(of: directory).contains(where: { $0.hasPrefix(name + ".v") || $0.hasPrefix(name + ".rehearsal-") }),
              let lock = try? FileLock.acquireIfFree(path: path + ".lock") else { return }
        withExtendedLifetime(lock) { removeLeftovers(of: path, olderThan: version + 1) }
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
