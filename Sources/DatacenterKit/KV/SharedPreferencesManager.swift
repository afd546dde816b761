import Foundation

/// Android's `SharedPreferencesManager`: the one `AndroidSharedPreferences` of a store and
/// group, so that every part of an app reads through the same changes applied and not yet
/// written (`SharedPreferencesManager.getInstance(context, GROUP_ID)`).
///
/// An instance is kept while something holds it (the manager holds it weakly); once none
/// does and its writes are done, the next `getInstance` makes a new one, which has nothing
/// pending then.
public enum SharedPreferencesManager {
    private struct Key: Hashable {
        let store: ObjectIdentifier
        let group: String
    }
    private struct WeakInstance {
        weak var instance: AndroidSharedPreferences?
    }
    private static let instances = LockedState([Key: WeakInstance]())

    /// The one instance for `group` of `store`: the same object for the same store and group.
    public static func getInstance(_ store: KVStore, _ group: String) -> AndroidSharedPreferences {
        instances.withLock { instances in
            let key = Key(store: ObjectIdentifier(store), group: group)
            // An instance holds its store, so a live one can only be this store's.
            if let live = instances[key]?.instance, live.store === store { return live }
            instances = instances.filter { $0.value.instance != nil }
            let made = AndroidSharedPreferences(store: store, group: group)
            instances[key] = WeakInstance(instance: made)
            return made
        }
    }

    /// The one instance for `group` of the data center's common store (Android's context
    /// stands for the app's data, which is `commonPreferences` here).
    public static func getInstance(_ dataCenter: DataCenter, _ group: String) throws -> AndroidSharedPreferences {
        getInstance(try dataCenter.commonPreferences, group)
    }
}
