import DatacenterDAO
import DatacenterKit
import Foundation

/// The DAO part of `datacenter demo`: tables from the example configs, with rows.
///
/// Writes the embedded examples (`DAOExamples`) into `<root>/examples/`, then through them:
/// - `messages` in the current user's store, its `content` column encrypted with the store's
///   default key (the demo key);
/// - `templates` in the common store;
/// - two conversation tables, `conversation_team` and `conversation_bob`, in the current
///   user's store.
/// Each table's config path (under `<root>/examples/`) is recorded in the store's
/// `datacenter_dao_tables`, so a browser finds and decrypts them.
package enum DAODemo {
    /// The conversation tables the demo creates from `conversation.xml`.
    package static let conversationTables = ["conversation_team", "conversation_bob"]

    /// Adds the DAO tables to a demo root built by `DemoStore.build` (opened with the demo key).
    /// - throws: `DAOConfigError`, `DAOError` or a file error.
    package static func build(in center: DataCenter) throws {
        let folder = center.rootPath + "/examples"
        try writeExamples(to: folder)
        let user = center.currentUserId ?? DemoStore.users[0]
        let userStore = try center.store(forUser: user)
        let common = try center.commonStore()

        let messages = DAOObject(config: try DAOConfig(contentsOfFile: folder + "/messages.xml"), store: userStore)
        let day: Int64 = 1_767_225_600 // 2026-01-01
        func message(_ conversation: String, _ sender: String, _ minutes: Int64, _ content: String) -> DAOValue {
            .model("MessageModel", ["conversation": .string(conversation), "sender": .string(sender),
                                    "time": .integer(day + minutes * 60), "content": .string(content)])
        }
        try messages.call("insertMessages", [[
            message("team", "bob@example.com", 0, "Stand-up moved to 10:30"),
            message("team", "alice", 2, "Thanks, see you there"),
            message("team", "carol", 5, "I'll bring the slides"),
            message("bob", "bob@example.com", 60, "Lunch tomorrow?"),
            message("bob", "alice", 61, "Sure — 12:00 at the usual place"),
        ]])
        try messages.call("markRead", [[1, 2]])
        try messages.call("updateFlags", [4, nil, true])

        let templates = DAOObject(config: try DAOConfig(contentsOfFile: folder + "/templates.xml"), store: common)
        try templates.call("installDefaults")
        try templates.call("saveTemplate", ["reminder", "en", "Don't forget: {event} at {time}", .integer(day)])
        try templates.call("saveTemplate", ["welcome", "en", "Welcome back, {name}!", .integer(day)])

        let conversation = DAOObject(config: try DAOConfig(contentsOfFile: folder + "/conversation.xml"), store: userStore)
        conversation.tableName = conversationTables[0]
        try conversation.call("appendAll", [[
            ["sender": "bob@example.com", "text": "Stand-up moved to 10:30", "sent": .integer(day)],
            ["sender": "carol", "text": "I'll bring the slides", "sent": .integer(day + 300)],
        ]])
        conversation.tableName = conversationTables[1]
        try conversation.call("append", ["bob@example.com", "Lunch tomorrow?", .integer(day + 3600)])
        try conversation.call("append", ["alice", "Sure — 12:00 at the usual place", .integer(day + 3660)])
    }

    /// Writes every embedded example into `folder` (created when missing).
    package static func writeExamples(to folder: String) throws {
        // Private, as every file and folder the engine makes (0700, 0600; FORMAT.md, "Modes").
        try PrivateFile.createFolder(atPath: folder)
        for (name, xml) in DAOExamples.all {
            try PrivateFile.write(Data(xml.utf8), toPath: folder + "/" + name)
        }
    }
}
