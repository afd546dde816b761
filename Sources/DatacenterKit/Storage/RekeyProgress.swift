import Foundation

/// Where a rekey is, for a progress bar: which store of how many, and how many values of
/// that store have been looked at.
public struct RekeyProgress: Sendable, Equatable {
    /// Stores finished so far.
    public let storesDone: Int
    /// Stores in all.
    public let storeCount: Int
    /// The store being worked on (or the last one, when all are done).
    public let store: String
    /// Values of that store looked at so far.
    public let values: Int

    /// The fraction of stores finished, 0 to 1.
    public var fraction: Double { storeCount == 0 ? 1 : Double(storesDone) / Double(storeCount) }
}
