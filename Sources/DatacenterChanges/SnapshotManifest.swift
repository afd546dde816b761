import Foundation

/// What `snapshot.json` records of a snapshot: when it was taken, of what, and which stores
/// it holds. It holds no key and no value: a snapshot's secrets are its stores', encrypted
/// as the source's are.
public struct SnapshotManifest: Codable, Sendable, Equatable {
    /// The manifest's file name in a snapshot's folder.
    public static let fileName = "snapshot.json"
    /// The format of the manifest (1).
    public static let currentFormat = 1

    /// One store copied.
    public struct Store: Codable, Sendable, Equatable {
        /// Its name (its path below the root, or the file's name), which is also its path in
        /// the snapshot's folder.
        public let name: String
        /// The copy's size in bytes.
        public let bytes: Int64
        /// True when the copy is encrypted (as its source is).
        public let encrypted: Bool
    }

    /// The manifest's format.
    public let format: Int
    /// When the snapshot was taken (when its first store was copied).
    public let created: Date
    /// The root or file copied, as given.
    public let source: String
    /// What was copied: `root`, `file`, or `snapshot` (a snapshot of a snapshot).
    public let kind: String
    /// The stores copied, by name.
    public let stores: [Store]

    /// The manifest as written: indented JSON, keys sorted, the time in ISO 8601.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// The manifest in `data`.
    /// - throws: `DecodingError` when it is not one, `ChangeError` for a format this
    ///   version does not read.
    public static func decode(_ data: Data, path: String) throws -> SnapshotManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let manifest: SnapshotManifest
        do { manifest = try decoder.decode(SnapshotManifest.self, from: data) } catch {
            throw ChangeError(path: path, reason: "not a snapshot manifest (\(error))")
        }
        guard manifest.format == currentFormat else {
            throw ChangeError(path: path, reason: "snapshot format \(manifest.format), which this version does not read (it reads \(currentFormat))")
        }
        for store in manifest.stores where store.name.isEmpty || store.name.hasPrefix("/")
            || store.name.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) {
            throw ChangeError(path: path, reason: "names a store outside its folder: \(store.name)")
        }
        return manifest
    }
}
