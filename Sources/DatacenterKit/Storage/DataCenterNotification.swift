import Foundation

/// The names a data center posts its events under on its `notificationCenter`, for apps
/// that listen with `NotificationCenter` rather than `addObserver`. The raw names are the
/// reference's (`kAPDataCenter…`); the object of each notification is the `DataCenter`, so
/// an observer can listen to one data center only. The keys of `userInfo` are in
/// `DataCenterNotificationKey`.
extension Notification.Name {
    /// The current user's store is about to be left for another user
    /// (`kAPDataCenterWillLastUserResign`); `userInfo[userId]` is the user leaving.
    public static let dataCenterWillResignLastUser = Notification.Name("kAPDataCenterWillLastUserResign")
    /// The current user changed, possibly to nobody (`kAPDataCenterDidUserUpdated`);
    /// `userInfo[switched]` is true when the user differs from the previous one, and
    /// `userInfo[userId]` is the new user (absent when nobody is signed in).
    public static let dataCenterDidUpdateUser = Notification.Name("kAPDataCenterDidUserUpdated")
    /// The current user signed in again without a switch (`kAPDataCenterDidUserRenew`);
    /// `userInfo[userId]` is that user.
    public static let dataCenterDidRenewUser = Notification.Name("kAPDataCenterDidUserRenew")
    /// The data center was reset (`reset()`): every store is gone and nobody is signed in.
    /// Not in the reference, which announces no reset; no `userInfo`.
    public static let dataCenterDidReset = Notification.Name("DatacenterDidReset")
}

/// The `userInfo` keys of a data center's notifications (`Notification.Name.dataCenter…`).
public enum DataCenterNotificationKey {
    /// The user the notification is about, a `String`: the user leaving, signed in, or
    /// signed in again. Absent when the new user is nobody.
    public static let userId = "userId"
    /// A `Bool`, in `dataCenterDidUpdateUser` only: true when the user changed (the
    /// reference's `@"switched"`).
    public static let switched = "switched"
}

extension DataCenter.Event {
    /// The notification name this event is posted under.
    public var notificationName: Notification.Name {
        switch self {
        case .willResignLastUser: return .dataCenterWillResignLastUser
        case .didUpdateUser: return .dataCenterDidUpdateUser
        case .didRenewUser: return .dataCenterDidRenewUser
        case .didReset: return .dataCenterDidReset
        }
    }

    /// The `userInfo` this event is posted with (keys in `DataCenterNotificationKey`), or
    /// nil when it has none.
    public var notificationUserInfo: [String: any Sendable]? {
        switch self {
        case .willResignLastUser(let userId), .didRenewUser(let userId):
            return [DataCenterNotificationKey.userId: userId]
        case let .didUpdateUser(userId, switched):
            var info: [String: any Sendable] = [DataCenterNotificationKey.switched: switched]
            if let userId { info[DataCenterNotificationKey.userId] = userId }
            return info
        case .didReset:
            return nil
        }
    }
}
