import Foundation
import Logging
import Testing
@testable import DatacenterKit

/// The log switch (`DatacenterLog`, `APDataCenterLogSwitch`): silent when off, a handful of
/// events when on, and never a value, a key or a user id. Serialized: the switch is global.
/// Other suites may log while a test here has it on, so lines are picked by their root.
@Suite(.serialized) struct DatacenterLogTests {
    /// A log line as the capturing handler saw it: level, message and metadata.
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
        /// Everything the line says, to search for what must not be there.
        var text: String { "\(level) \(message) " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
    }

    /// A `LogHandler` that keeps every line.
    struct CapturingHandler: LogHandler {
        let lines: Locked<[Line]>
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            lines.withLock { $0.append(Line(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })) }
        }
    }

    /// Runs `body` with the engine logging (or not, per `on`) into a capturing handler, and
    /// returns what was captured; the switch is off again afterwards.
    private func capture(on: Bool, _ body: () throws -> Void) rethrows -> [Line] {
        let lines = Locked<[Line]>([])
        let previous = DatacenterLog.logger
        DatacenterLog.logger = Logger(label: "test") { _ in CapturingHandler(lines: lines) }
        DatacenterLog.isOn = on
        defer {
            DatacenterLog.isOn = false
            DatacenterLog.logger = previous
        }
        try body()
        return lines.current
    }

    /// Everything a data center logs about: open, version change, switches, renew, sign
    /// out, a named storage, a refused user id, a reset.
    private func exercise(_ folder: TemporaryFolder) throws {
        let root = folder.file("root")
        _ = try DataCenter(rootPath: root, appVersion: "1.0")
        let center = try DataCenter(rootPath: root, appVersion: "2.0")
        try center.setCurrentUserId("alice")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId("bob")
        try center.setCurrentUserId(nil)
        _ = try center.customStorage(named: "Contact")
        #expect(throws: StorageError.self) { try center.setCurrentUserId("") }
        try center.reset()
    }

    @Test func offLogsNothing() throws {
        let folder = TemporaryFolder()
        let lines = try capture(on: false) { try exercise(folder) }
        #expect(lines.isEmpty, "logged while off: \(lines.map(\.text))")
    }

    @Test func onLogsTheEventsInOrder() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let lines = try capture(on: true) { try exercise(folder) }.filter { $0.metadata["root"] == root }
        #expect(lines.map(\.message) == [
            "opened the root",
            "emptied the version storage: the app version changed",
            "opened the root",
            "switched the current user",
            "switched the current user",
            "the current user signed in again",
            "signed the current user out",
            "opened a named storage",
            "switching the current user failed",
            "reset the root",
        ])
        #expect(lines.first { $0.message.hasPrefix("emptied") }?.metadata["to"] == "2.0")
        #expect(lines.first { $0.message == "opened a named storage" }?.metadata["storage"] == "Contact")
        let failure = try #require(lines.first { $0.level == .error })
        #expect(failure.metadata["error"] == "StorageError.invalidUserId")
    }

    /// A value, its key and business, a user id, the value key and the database key, all
    /// marked: no line holds any of them, nor the key bytes, even with every event on and
    /// errors that quote them.
    @Test func neverLogsValuesKeysOrUserIds() throws {
        let folder = TemporaryFolder()
        let root = folder.file("root")
        let keyBytes = Data((0..<32).map { UInt8($0) ^ 0xA5 })
        let valueKey = try EncryptionKey(bytes: [UInt8](keyBytes))
        let databaseKeys = try DatabaseKeyList(sqlcipherKeys: ["MARKERDBPASS"])
        let secrets = ["MARKERVALUE", "MARKERKEY", "MARKERBUSINESS", "MARKERUSER", "MARKERDBPASS", "MARKERSTORAGE",
                       keyBytes.map { String(format: "%02x", $0) }.joined(), keyBytes.base64EncodedString()]
        let lines = try capture(on: true) {
            let center = try DataCenter(rootPath: root, crypt: KeyRing([valueKey]), appVersion: "1",
                                        databaseKeys: databaseKeys)
            try center.commonPreferences.setString("MARKERVALUE", forKey: "MARKERKEY", business: "MARKERBUSINESS")
            try center.setCurrentUserId("MARKERUSER")
            try #require(try center.userPreferences).setString("MARKERVALUE", forKey: "MARKERKEY", business: "MARKERBUSINESS")
            #expect(try center.userPreferences?.string(forKey: "MARKERKEY", business: "MARKERBUSINESS") == "MARKERVALUE")
            try center.setCurrentUserId("MARKERUSER")
            try center.setCurrentUserId("other")
            // Errors whose payload quotes the marker: logged by kind only.
            #expect(throws: StorageNameError.self) { try center.customStorage(named: "MARKERSTORAGE/..") }
            #expect(throws: StorageError.self) { try center.setCurrentUserId("MARKERUSER" + String(repeating: "x", count: 300)) }
            try center.reset()
        }
        #expect(lines.contains { $0.metadata["root"] == root }, "the scenario logged nothing: the test would prove nothing")
        for line in lines {
            for secret in secrets {
                #expect(!line.text.contains(secret), "a log line holds \(secret): \(line.text)")
            }
        }
    }

    @Test func errorsAreLoggedByKindNotDescription() {
        #expect(DatacenterLog.kind(of: StorageNameError.invalid(name: "secret", reason: "why")) == "StorageNameError.invalid")
        #expect(DatacenterLog.kind(of: StorageError.noCurrentUser) == "StorageError")
        #expect(DatacenterLog.kind(of: CocoaError(.fileNoSuchFile)) == "CocoaError")
    }
}
