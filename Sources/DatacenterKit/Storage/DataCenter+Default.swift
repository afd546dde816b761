import Foundation

/// The shared data center (`[APDataCenter defaultDataCenter]`): configured once by the app,
/// then reached from anywhere.
extension DataCenter {
    private static let defaultSlot = DefaultDataCenterSlot()

    /// The data center `configureDefault` opened (`APDefaultDataCenter`).
    /// - throws: `DefaultDataCenterError.notConfigured` before `configureDefault`: there is
    ///   no implicit root, since the crypt and the database keys are the app's to give.
    public static var `default`: DataCenter {
        get throws { try defaultSlot.center() }
    }

    /// Opens the shared data center at `rootPath` (the parameters are `init`'s) and returns
    /// it; from then on `DataCenter.default` is that one. Call it once, early.
    ///
    /// Called again with the same root (the same folder, however spelled), it returns the
    /// data center already configured, without opening anything: the first call's crypt,
    /// app version and keys stay. Concurrent calls open the root once.
    /// - throws: `DefaultDataCenterError.configuredWithAnotherRoot` when configured already
    ///   at another root (the shared one is never swapped); any error of `init`, after which
    ///   the default stays unconfigured.
    @discardableResult
    public static func configureDefault(rootPath: String = DataCenter.defaultRootPath, crypt: any DataCrypt = KeyRing.empty,
                                        appKey: String? = nil, appVersion: String? = nil, readOnly: Bool = false,
                                        busyTimeout: TimeInterval = 5, databaseKeys: DatabaseKeyList = .empty) throws -> DataCenter {
        try defaultSlot.configure(rootPath: rootPath) {
            try DataCenter(rootPath: rootPath, crypt: crypt, appKey: appKey, appVersion: appVersion, readOnly: readOnly,
                           busyTimeout: busyTimeout, databaseKeys: databaseKeys)
        }
    }
}

/// Where a shared data center is kept: set once, under a lock. `DataCenter.default` uses one;
/// tests make their own.
final class DefaultDataCenterSlot: Sendable {
    private let stored = LockedState<DataCenter?>(nil)

    /// The data center configured, or `DefaultDataCenterError.notConfigured`.
    func center() throws -> DataCenter {
        guard let center = stored.withLock({ $0 }) else { throw DefaultDataCenterError.notConfigured }
        return center
    }

    /// The data center configured at `rootPath`, opened with `open` the first time.
    /// `open` runs with the lock held, so concurrent first calls open the root once.
    func configure(rootPath: String, open: () throws -> DataCenter) throws -> DataCenter {
        let requested = Self.standardized(rootPath)
        return try stored.withLock { stored in
            if let current = stored {
                guard Self.standardized(current.rootPath) == requested else {
                    throw DefaultDataCenterError.configuredWithAnotherRoot(current: current.rootPath, requested: rootPath)
                }
                return current
            }
            let center: DataCenter
            do {
                center = try open()
            } catch {
                DatacenterLog.failure("configuring the default data center", error: error, root: rootPath)
                throw error
            }
            stored = center
            DatacenterLog.event("configured the default data center", root: rootPath)
            return center
        }
    }

    /// `path` absolute, without `.`, `..` or symbolic links, so two spellings of one folder match.
    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
