import DatacenterTestSupport
import Foundation
import Testing

/// A mistyped user ID creates nothing: reads say the user does not exist and list the
/// root's users; writes and `users switch` refuse unless `--create`. `users rm` deletes a
/// user, asking unless `--yes`.
@Suite struct UnknownUserTests {
    /// A root whose users are alice (current) and bob.
    private func rootWithAliceAndBob(_ scratch: TemporaryFolder) throws -> String {
        let root = scratch.file("root")
        for user in ["bob", "alice"] {
            let made = try CLI.run(["kv", "set", "b", "k", user, "--user", user, "--create", "--root", root])
            #expect(made.status == 0, "\(made.stderr)")
        }
        #expect(try CLI.run(["users", "switch", "alice", "--root", root]).status == 0)
        return root
    }

    private func userFolders(_ root: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root + "/users").sorted()
    }

    @Test func anUnknownUserIsRefusedAndNothingIsCreated() throws {
        let scratch = TemporaryFolder()
        let root = try rootWithAliceAndBob(scratch)
        let config = scratch.file("t.xml")
        try """
            <module name="Items" initializer="createTable" tableName="items" version="1.0">
              <update id="createTable">create table if not exists ${T} (id integer primary key, name text)</update>
              <insert id="add" arguments="name">insert into ${T} (name) values (#{name})</insert>
            </module>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let writes: [[String]] = [
            ["kv", "set", "b", "k", "v", "--user", "alcie"],
            ["kv", "rm", "b", "k", "--user", "alcie"],
            ["dao", "call", config, "add", "--args", #"["x"]"#, "--user", "alcie"],
            ["users", "switch", "alcie"],
        ]
        for command in writes {
            let result = try CLI.run(command + ["--root", root])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("no user 'alcie' under \(root) (its users: alice, bob)"), "\(command): \(result.stderr)")
            let offersCreate = command.first != "kv" || command[1] == "set"
            #expect(result.stderr.contains("give --create") == offersCreate, "\(command): \(result.stderr)")
        }
        for command in [["kv", "get", "b", "k", "--user", "alcie"], ["kv", "list", "--user", "alcie"],
                        ["cache", "list", "--user", "alcie"], ["export", root, "kv", "--user", "alcie"]] {
            let result = try CLI.run(command + (command[0] == "export" ? [] : ["--root", root]))
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("no user 'alcie'") && result.stderr.contains("its users: alice, bob"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("--create"), "a read offers no --create: \(result.stderr)")
        }
        #expect(try userFolders(root) == ["alice", "bob"])
        #expect(try CLI.run(["users", "--root", root]).stdout == "* alice\n  bob\n")

        // A root that does not exist is not created by a refused write.
        let missing = scratch.file("missing")
        let refused = try CLI.run(["kv", "set", "b", "k", "v", "--user", "bob", "--root", missing])
        #expect(refused.stderr.contains("no user 'bob' under \(missing) (it has no users); give --create"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test func createMakesTheUsersStore() throws {
        let scratch = TemporaryFolder()
        let root = try rootWithAliceAndBob(scratch)
        #expect(try CLI.run(["users", "switch", "carol", "--create", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "k", "v", "--user", "dave", "--create", "--root", root]).status == 0)
        #expect(try userFolders(root) == ["alice", "bob", "carol", "dave"])
        #expect(try CLI.run(["users", "--root", root]).stdout == "  alice\n  bob\n* carol\n  dave\n")
        #expect(try CLI.run(["kv", "get", "b", "k", "--user", "dave", "--root", root]).stdout == "v\n")
    }

    @Test func usersRemoveAsksUnlessYes() throws {
        let scratch = TemporaryFolder()
        let root = try rootWithAliceAndBob(scratch)
        // No terminal to ask on (the tests run without one): refused, nothing deleted.
        let unasked = try CLI.run(["users", "rm", "bob", "--root", root])
        #expect(unasked.status == 1)
        #expect(unasked.stderr.contains("give --yes"), "\(unasked.stderr)")
        #expect(try userFolders(root) == ["alice", "bob"])

        let removed = try CLI.run(["users", "rm", "bob", "--yes", "--root", root])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try userFolders(root) == ["alice"])
        #expect(try CLI.run(["users", "--root", root]).stdout == "* alice\n")

        let unknown = try CLI.run(["users", "rm", "bob", "-y", "--root", root])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no user 'bob' under \(root) (its users: alice)"), "\(unknown.stderr)")

        // The current user: no one is current afterwards, and no store comes back.
        #expect(try CLI.run(["users", "rm", "alice", "-y", "--root", root]).status == 0)
        #expect(try CLI.run(["users", "--root", root]).stdout == "")
        #expect(try userFolders(root) == [])
        let state = try #require(try CLI.json(String(contentsOfFile: root + "/datacenter.json", encoding: .utf8)) as? [String: Any])
        #expect(state["currentUserId"] == nil)
    }
}
