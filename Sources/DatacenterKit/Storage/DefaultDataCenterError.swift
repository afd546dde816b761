import Foundation

/// Why the shared data center (`DataCenter.default`) could not be had.
public enum DefaultDataCenterError: Error, Sendable, Equatable {
    /// `DataCenter.default` was used before `DataCenter.configureDefault`.
    case notConfigured
    /// `configureDefault` was called again with another root: the shared data center is
    /// never swapped under the code already using it.
    case configuredWithAnotherRoot(current: String, requested: String)
}

extension DefaultDataCenterError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notConfigured:
            return "the default data center is not configured: call DataCenter.configureDefault(rootPath:…) first"
        case let .configuredWithAnotherRoot(current, requested):
            return "the default data center is already configured at \(current); it cannot be configured again at \(requested)"
        }
    }
    public var errorDescription: String? { description }
}
