import Foundation

/// Why a snapshot or a diff could not be made, naming the file or folder at fault.
public struct ChangeError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file or folder at fault.
    public let path: String
    /// What is wrong with it, in words.
    public let reason: String

    /// The error that `reason` explains about `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
