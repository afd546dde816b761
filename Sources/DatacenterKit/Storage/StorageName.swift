/// Checks the name of a named custom storage (`DataCenter.customStorage(named:)`), which is
/// also its folder's name under `<root>/storages`.
///
/// A name is kept as it is, so it is refused rather than encoded when it could leave that
/// folder or hide in it: only ASCII letters, digits, `-`, `_` and `.`, not starting with
/// `.` (so never `.`, `..` or a hidden folder), at most `maximumLength` bytes.
public enum StorageName {
    /// The longest name allowed (file systems allow 255 bytes).
    public static let maximumLength = 240

    /// Returns `name` when it can name a storage folder.
    /// - throws: `StorageNameError.invalid` saying why it cannot.
    @discardableResult
    public static func validate(_ name: String) throws -> String {
        guard !name.isEmpty else { throw StorageNameError.invalid(name: name, reason: "a storage name cannot be empty") }
        guard name.utf8.count <= maximumLength else {
            throw StorageNameError.invalid(name: name, reason: "longer than \(maximumLength) bytes")
        }
        guard !name.hasPrefix(".") else {
            throw StorageNameError.invalid(name: name, reason: "a storage name cannot start with '.'")
        }
        for byte in name.utf8 {
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            guard allowed else {
                throw StorageNameError.invalid(name: name, reason: "only letters, digits, '-', '_' and '.' are allowed")
            }
        }
        return name
    }
}

/// Why a storage name was refused.
public enum StorageNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `name` cannot name a storage folder, for `reason`.
    case invalid(name: String, reason: String)

    public var description: String {
        switch self {
        case let .invalid(name, reason): return "invalid storage name \"\(name)\": \(reason)"
        }
    }
}
