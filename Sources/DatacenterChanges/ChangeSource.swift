import DatacenterKit
import Foundation

/// What a snapshot copies, or one side of a diff: a root (its stores found as the engine
/// finds them), a snapshot (a folder holding `snapshot.json`), or one SQLite file.
public struct ChangeSource: Sendable {
    /// Which of the three a path is.
    public enum Kind: String, Sendable {
        /// A data-center root.
        case root
        /// A snapshot's folder (`datacenter snapshot`).
        case snapshot
        /// One SQLite file.
        case file
    }

    /// Which kind of source this is.
    public let kind: Kind
    /// The path as given.
    public let path: String
    /// Its stores, by name.
    public let stores: [StoreFile]
    /// A snapshot's manifest; nil for a root or a file.
    public let manifest: SnapshotManifest?

    /// The source at `path`. A folder is a snapshot when it holds `snapshot.json`, a root
    /// otherwise (opened read-only, with `keys` and `databaseKeys` as any command opens it).
    /// - throws: `ChangeError` when `path` is missing, is neither, or is a damaged snapshot;
    ///   what opening the root throws.
    /// `path` with every symbolic link of it followed (`realpath`), or nil when it does not resolve.
    static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func at(_ path: String, keys: KeyRing = .empty, databaseKeys: DatabaseKeyList = .empty,
                          busyTimeout: TimeInterval = 5) throws -> ChangeSource {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ChangeError(path: path, reason: errno == ENOENT ? "no such file or folder" : String(cString: strerror(errno)))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return ChangeSource(kind: .file, path: path, stores: [StoreFile(name: PrivateFile.name(of: path), path: path)], manifest: nil)
        case S_IFDIR:
            let manifestPath = path + "/" + SnapshotManifest.fileName
            if FileManager.default.fileExists(atPath: manifestPath) {
                let data: Data
                do { data = try RegularFile.contents(atPath: manifestPath, limit: 16 << 20) } catch let error as FileAccessError {
                    throw ChangeError(path: manifestPath, reason: error.reason)
                }
                let manifest = try SnapshotManifest.decode(data, path: manifestPath)
                let stores = manifest.stores.map { StoreFile(name: $0.name, path: path + "/" + $0.name) }
                for store in stores where !FileManager.default.fileExists(atPath: store.path) {
                    throw ChangeError(path: store.path, reason: "missing from the snapshot (its manifest lists it)")
                }
                // A snapshot's stores are its own files: a link out of its folder is not followed.
                let folder = Self.resolved(path)
                for store in stores {
                    let target = Self.resolved(store.path)
                    guard let folder, let target, target.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/") else {
                        throw ChangeError(path: store.path, reason: "leads outside the snapshot's folder (to \(target ?? "nowhere")): "
                                            + "a snapshot's stores are files of its own, so it is not read")
                    }
                }
                return ChangeSource(kind: .snapshot, path: path, stores: stores, manifest: manifest)
            }
            let center = try DataCenter(rootPath: path, crypt: keys, readOnly: true, busyTimeout: busyTimeout, databaseKeys: databaseKeys)
            let stores = center.namedDatabaseFiles().map { StoreFile(name: $0.name, path: $0.path) }
            guard !stores.isEmpty || FileManager.default.fileExists(atPath: path + "/datacenter.json") else {
                throw ChangeError(path: path, reason: "neither a root (no store, no datacenter.json), a snapshot (no \(SnapshotManifest.fileName)) nor a database file")
            }
            return ChangeSource(kind: .root, path: path, stores: stores.sorted { $0.name < $1.name }, manifest: nil)
        default:
            throw ChangeError(path: path, reason: "not a regular file or a folder")
        }
    }

    /// The stores of `a` and `b` paired by name (a side without it: nil). Two sides that are
    /// one store each (two files, or a file and a snapshot of one) pair whatever their names.
    public static func pairs(_ a: ChangeSource, _ b: ChangeSource) -> [(name: String, a: StoreFile?, b: StoreFile?)] {
        if a.stores.count == 1, b.stores.count == 1, a.kind == .file || b.kind == .file {
            return [(b.stores[0].name, a.stores[0], b.stores[0])]
        }
        let left = Dictionary(a.stores.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let right = Dictionary(b.stores.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(left.keys).union(right.keys).sorted().map { ($0, left[$0], right[$0]) }
    }
}
