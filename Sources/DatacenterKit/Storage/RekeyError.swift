import Foundation

/// Why a rekey left a store unchanged: which value could not be re-encrypted.
public enum RekeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value did not open with any key given, or was not an encrypted value of its kind.
    /// `place` names it: `kv session/apiToken`, `dao messages row 3 content`, …
    case value(place: String, reason: String)
    /// A file service's files look encrypted but no key given opens any of them: either the
    /// service is encrypted under a key not given, or its plain files merely start like
    /// encrypted values; the store is left unchanged rather than guess.
    case undecidedFileService(table: String, files: Int)
    /// A file service holds both files that open with the keys given and files that do not
    /// (or plain ones).
    case mixedFileService(table: String, opened: Int, notOpened: Int)
    /// The file is not a store (it has no `datacenter_meta` table) where a store belongs.
    case notAStore(String)

    /// Says what is wrong and where, never a key or a value.
    public var description: String {
        switch self {
        case .value(let place, let reason): return "\(place): \(reason)"
        case .undecidedFileService(let table, let files):
            return "\(table): \(files) file(s) look encrypted but no key given opens them (give the key they are under with --from)"
        case .mixedFileService(let table, let opened, let notOpened):
            return "\(table): \(opened) file(s) open with the keys given but \(notOpened) do not (give every key with --from)"
        case .notAStore(let path): return "\(path) is not a store (no datacenter_meta table)"
        }
    }
}
