import Foundation
import Testing
@testable import DatacenterKit

/// A data center's events as `NotificationCenter` notifications (the reference's
/// `kAPDataCenter…` names): names, order, payload, removal, and the center they go to.
@Suite struct DataCenterNotificationTests {
    /// What an observer recorded: the name, the user id and `switched` from `userInfo`, and
    /// whether `userInfo` was there at all.
    struct Posted: Equatable, CustomStringConvertible {
        let name: Notification.Name
        let userId: String?
        let switched: Bool?
        let hasUserInfo: Bool
        var description: String { "\(name.rawValue)(\(userId ?? "-"), \(switched.map(String.init) ?? "-"))" }
    }

    static let names: [Notification.Name] = [.dataCenterWillResignLastUser, .dataCenterDidUpdateUser,
                                             .dataCenterDidRenewUser, .dataCenterDidReset]

    /// Observes every data-center name on `notificationCenter` for `center` only; returns the
    /// tokens, to remove them.
    private func observe(_ center: DataCenter, on notificationCenter: NotificationCenter, into log: Locked<[String]>,
                         posted: Locked<[Posted]>) -> [any NSObjectProtocol] {
        Self.names.map { name in
            notificationCenter.addObserver(forName: name, object: center, queue: nil) { note in
                let info = note.userInfo
                let entry = Posted(name: note.name, userId: info?[DataCenterNotificationKey.userId] as? String,
                                   switched: info?[DataCenterNotificationKey.switched] as? Bool, hasUserInfo: info != nil)
                posted.withLock { $0.append(entry) }
                log.withLock { $0.append("notification " + note.name.rawValue) }
            }
        }
    }

    @Test func theNamesAreTheReferences() {
        #expect(Notification.Name.dataCenterWillResignLastUser.rawValue == "kAPDataCenterWillLastUserResign")
        #expect(Notification.Name.dataCenterDidUpdateUser.rawValue == "kAPDataCenterDidUserUpdated")
        #expect(Notification.Name.dataCenterDidRenewUser.rawValue == "kAPDataCenterDidUserRenew")
        #expect(DataCenterNotificationKey.switched == "switched")
    }

    @Test func everyEventIsPostedInOrderWithItsPayload() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        let notifications = NotificationCenter()
        center.notificationCenter = notifications
        let log = Locked<[String]>([])
        let posted = Locked<[Posted]>([])
        center.addObserver { event in log.withLock { $0.append("handler \(event)") } }
        let tokens = observe(center, on: notifications, into: log, posted: posted)
        defer { tokens.forEach(notifications.removeObserver) }

        try center.setCurrentUserId("alice")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId(nil)
        try center.setCurrentUserId(nil)
        try center.reset()

        #expect(posted.current == [
            Posted(name: .dataCenterDidUpdateUser, userId: "alice", switched: true, hasUserInfo: true),
            Posted(name: .dataCenterWillResignLastUser, userId: "alice", switched: nil, hasUserInfo: true),
            Posted(name: .dataCenterDidUpdateUser, userId: "bob", switched: true, hasUserInfo: true),
            Posted(name: .dataCenterDidRenewUser, userId: "bob", switched: nil, hasUserInfo: true),
            Posted(name: .dataCenterWillResignLastUser, userId: "bob", switched: nil, hasUserInfo: true),
            Posted(name: .dataCenterDidUpdateUser, userId: nil, switched: true, hasUserInfo: true),
            Posted(name: .dataCenterDidUpdateUser, userId: nil, switched: false, hasUserInfo: true),
            Posted(name: .dataCenterDidReset, userId: nil, switched: nil, hasUserInfo: false),
        ])
        // Each event reaches the handlers first, then the notification center.
        let lines = log.current
        #expect(lines.count == 16)
        for pair in stride(from: 0, to: lines.count - 1, by: 2) {
            #expect(lines[pair].hasPrefix("handler "), "\(lines)")
            #expect(lines[pair + 1].hasPrefix("notification "), "\(lines)")
        }
    }

    @Test func resetIsAnnouncedAfterTheResetWithNobodySignedIn() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        try center.setCurrentUserId("alice")
        try center.commonPreferences.setString("v", forKey: "k", business: "b")
        let seen = Locked<[String]>([])
        center.addObserver { [weak center] event in
            guard let center else { return }
            let value = try? center.commonPreferences.string(forKey: "k", business: "b")
            seen.withLock { $0.append("\(event) user \(center.currentUserId ?? "-") value \(value ?? "-")") }
        }
        try center.reset()
        #expect(seen.current == ["didReset user - value -"])
    }

    @Test func removedObserversHearNothing() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        let notifications = NotificationCenter()
        center.notificationCenter = notifications
        let log = Locked<[String]>([])
        let posted = Locked<[Posted]>([])
        let handled = Locked(0)
        let token = center.addObserver { _ in handled.withLock { $0 += 1 } }
        let tokens = observe(center, on: notifications, into: log, posted: posted)
        try center.setCurrentUserId("alice")
        #expect(posted.current.count == 1 && handled.current == 1)
        tokens.forEach(notifications.removeObserver)
        center.removeObserver(token)
        try center.setCurrentUserId("bob")
        try center.reset()
        #expect(posted.current.count == 1)
        #expect(handled.current == 1)
    }

    @Test func theDefaultCenterIsUsedUnlessSetAndNilPostsNothing() throws {
        let folder = TemporaryFolder()
        let center = try DataCenter(rootPath: folder.file("root"))
        #expect(center.notificationCenter === NotificationCenter.default)
        let log = Locked<[String]>([])
        let posted = Locked<[Posted]>([])
        // Observed for this data center only: others posting on the default center in
        // parallel are not seen.
        let tokens = observe(center, on: .default, into: log, posted: posted)
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        try center.setCurrentUserId("alice")
        #expect(posted.current.map(\.name) == [.dataCenterDidUpdateUser])
        center.notificationCenter = nil
        try center.setCurrentUserId("bob")
        #expect(posted.current.count == 1, "a data center without a notification center posts nothing")
    }
}
