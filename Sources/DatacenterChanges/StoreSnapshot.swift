#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite
import DatacenterKit
import Foundation

/// `datacenter snapshot`: a consistent copy of every store of a root (or of one file, or of
/// a snapshot), to diff against later.
///
/// - Each store is copied with SQLite's backup API in one read transaction, in one step, so
///   the copy is one committed state of it: a transaction half written is never copied, and
///   the copy never restarts under a busy app. In WAL mode the app's writes go on meanwhile;
///   in rollback-journal mode its commits wait until the store is copied.
/// - A copy is encrypted exactly as its source: the same key and the same SQLCipher
///   settings, salt included (so the key is derived once), the pages re-encrypted with fresh
///   IVs. A snapshot never holds plaintext its source did not.
/// - Written whole or not at all: into a partial folder beside the destination (`0700`,
///   named as `PartialFiles` names them, so one left by a killed run is removed by the next),
///   each file `0600` and synced, the manifest last, then renamed into place.
public enum StoreSnapshot {
    /// A step of a snapshot, reported as it starts, for a progress display.
    public enum Step: Sendable, Equatable {
        /// Copying store `name`, the `index`th (from 1) of `count`.
        case copying(name: String, index: Int, count: Int)
        /// Syncing the copies and renaming the folder into place.
        case finishing
    }

    /// Copies every store of `source` into the new folder `destination`, with
    /// `snapshot.json` listing them; returns the manifest.
    /// - throws: `ChangeError` when `destination` exists or its folder does not; a store's
    ///   `DatabaseError` (a wrong key, a damaged file) naming it. Nothing is left behind.
    @discardableResult
    public static func take(of source: ChangeSource, to destination: String, databaseKeys: DatabaseKeyList,
                            busyTimeout: TimeInterval = 5, now: Date = Date(),
                            progress: (Step) -> Void = { _ in }) throws -> SnapshotManifest {
        var status = stat()
        guard lstat(destination, &status) != 0 else {
            throw ChangeError(path: destination, reason: "exists: a snapshot is written to a new folder (choose another, or remove it)")
        }
        let parent = PrivateFile.folder(of: destination)
        guard stat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw ChangeError(path: parent, reason: "no such folder to write the snapshot in")
        }
        PartialFiles.removeStale(inFolder: parent)
        let partial = PartialFiles.partialPath(for: destination)
        guard mkdir(partial, 0o700) == 0 else {
            throw ChangeError(path: parent, reason: "cannot create a folder here: \(String(cString: strerror(errno)))")
        }
        let slot = PartialFiles.register(partial)
        defer { PartialFiles.unregister(slot) }
        do {
            var stores: [SnapshotManifest.Store] = []
            for (index, store) in source.stores.enumerated() {
                progress(.copying(name: store.name, index: index + 1, count: source.stores.count))
                stores.append(try copy(store, into: partial, databaseKeys: databaseKeys, busyTimeout: busyTimeout))
            }
            progress(.finishing)
            let manifest = SnapshotManifest(format: SnapshotManifest.currentFormat, created: now, source: source.path,
                                            kind: source.kind.rawValue, stores: stores)
            let manifestPath = partial + "/" + SnapshotManifest.fileName
            try PrivateFile.write(try manifest.encoded(), toPath: manifestPath)
            for store in stores { try sync(partial + "/" + store.name) }
            try sync(manifestPath)
            syncFolders(below: partial)
            guard rename(partial, destination) == 0 else {
                throw ChangeError(path: destination, reason: "cannot rename the snapshot into place: \(String(cString: strerror(errno)))")
            }
            PrivateFile.syncFolder(parent)
            return manifest
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    /// Copies one store into `folder`, under its name.
    private static func copy(_ store: StoreFile, into folder: String, databaseKeys: DatabaseKeyList,
                             busyTimeout: TimeInterval) throws -> SnapshotManifest.Store {
        let target = folder + "/" + store.name
        try createFolders(for: store.name, in: folder)
        let (db, key) = try databaseKeys.open(path: store.path, mode: .readOnly, busyTimeout: busyTimeout)
        defer { db.close() }
        let copyKey = try key.map { try pinningSalt(of: $0, readFrom: store.path) }
        // The backup reads in one step; a writer holding the store's lock (rollback-journal
        // mode) makes it busy: waited out as any read waits, up to the busy timeout.
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                try db.backup(to: target, overwrite: true, key: copyKey)
                break
            } catch let error as DatabaseError where error.code == SQLITE_BUSY || error.code == SQLITE_LOCKED {
                guard Date() < deadline else { throw error }
                usleep(20_000)
            }
        }
        // The copy keeps the source's journal mode in its header: a copy in WAL mode would need
        // its -shm beside it to be read, so a snapshot on a read-only disk could not be. A
        // snapshot is never written again: rollback-journal mode it is.
        do {
            let copy = try Database(path: target, key: copyKey, mode: .readWrite, busyTimeout: busyTimeout)
            defer { copy.close() }
            // No sync of its own: the whole folder is synced before it is renamed into place.
            try copy.execute("PRAGMA synchronous = OFF; PRAGMA journal_mode = DELETE")
        }
        chmod(target, 0o600)
        var status = stat()
        stat(target, &status)
        return SnapshotManifest.Store(name: store.name, bytes: Int64(status.st_size), encrypted: key != nil)
    }

    /// `key` with the salt of the file at `path` given rather than read: the copy then gets
    /// the same salt, and the key derived for the source serves it too. A key whose settings
    /// give the salt already (a plaintext header) is kept as it is.
    static func pinningSalt(of key: DatabaseKey, readFrom path: String) throws -> DatabaseKey {
        // Read as SQLite reads the file, keeping this process's locks on it (`DatabaseFileHead`).
        guard key.settings.salt == nil, key.settings.plaintextHeaderSize == 0,
              let salt = DatabaseFileHead.read(path, count: 16), salt.count == 16 else { return key }
        var settings = key.settings
        settings.salt = Array(salt)
        return try key.with(settings: settings)
    }

    /// Creates the folders of `name` (`users/<folder>/…`) inside `folder`, `0700`.
    private static func createFolders(for name: String, in folder: String) throws {
        var path = folder
        for component in name.split(separator: "/").dropLast() {
            path += "/" + component
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw ChangeError(path: path, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Flushes a file written to the disk.
    private static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ChangeError(path: path, reason: "cannot open to sync: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ChangeError(path: path, reason: "cannot sync: \(String(cString: strerror(errno)))") }
    }

    /// Syncs `folder` and every folder below it, so their entries survive a power cut.
    private static func syncFolders(below folder: String) {
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            var status = stat()
            if stat(folder + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { PrivateFile.syncFolder(folder + "/" + name) }
        }
        PrivateFile.syncFolder(folder)
    }
}
