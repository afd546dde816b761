import Foundation

/// Why a whole-file conversion of a database (`DatabaseFileConversion`) was refused or did
/// not finish: the file at fault and what is wrong with it, in plain words. Whatever the
/// error, the source is left as it was and no partial destination remains.
public struct DatabaseConversionError: Error, Sendable, Equatable {
    /// What went wrong, so that a caller can react to the kind of problem.
    public enum Kind: Sendable, Equatable {
        /// The destination exists already; conversions never overwrite a file.
        case destinationExists
        /// Another connection or process uses the file (an in-place rekey needs it alone).
        case inUse
        /// The source cannot be converted as asked (missing, empty, already in that form…).
        case unsuitableSource
        /// The new file did not match the source when checked; it was removed.
        case verificationFailed
        /// Something else: a file that cannot be created, written or renamed.
        case other
    }

    /// The file at fault.
    public let path: String
    /// What is wrong, in plain words.
    public let reason: String
    /// The kind of problem.
    public let kind: Kind

    /// An error about `path`.
    public init(path: String, reason: String, kind: Kind = .other) {
        self.path = path
        self.reason = reason
        self.kind = kind
    }
}

extension DatabaseConversionError: CustomStringConvertible, LocalizedError {
    /// `PATH: reason`, as the command line prints it.
    public var description: String { "\(path): \(reason)" }
    /// The same as `description`.
    public var errorDescription: String? { description }
}
