import Foundation
import Testing

@Suite struct KVCommandTests {
    /// Each type with its input text and the JSON text of the value `get --json` must print.
    @Test(arguments: [
        ("string", "hello world", "\"hello world\""),
        ("int", "-42", "-42"),
        ("double", "2.5", "2.5"),
        ("bool", "yes", "true"),
    ])
    func setThenGetRoundTripsEachScalarType(type: String, input: String, expectedJSON: String) throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        // `--` ends the options, so a value like -42 is not read as one.
        let set = try CLI.run(["kv", "set", "biz", "k", "--type", type, "--root", root, "--", input])
        #expect(set.status == 0, "\(set.stderr)")
        let get = try CLI.run(["kv", "get", "biz", "k", "--root", root, "--json"])
        #expect(get.status == 0, "\(get.stderr)")
        let object = try #require(try CLI.json(get.stdout) as? [String: Any])
        #expect(Set(object.keys) == ["business", "key", "type", "encrypted", "purgeable", "value"])
        #expect(object["business"] as? String == "biz")
        #expect(object["key"] as? String == "k")
        #expect(object["type"] as? String == type)
        #expect(object["encrypted"] as? Bool == false)
        #expect(object["purgeable"] as? Bool == false)
        let expected = try CLI.json(expectedJSON) as? NSObject
        #expect((object["value"] as? NSObject)?.isEqual(expected) == true, "value was \(String(describing: object["value"]))")
    }

    @Test func jsonAndPlistValuesKeepTheirStructure() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "b", "j", #"{"a":[1,2],"s":"x"}"#, "--type", "json", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "set", "b", "p", #"{"d":{"$data":"AAEC"},"n":3}"#, "--type", "plist", "--root", root]).status == 0)
        let j = try #require(try CLI.json(try CLI.run(["kv", "get", "b", "j", "--json", "--root", root]).stdout) as? [String: Any])
        let jv = try #require(j["value"] as? [String: Any])
        #expect(jv["a"] as? [Int] == [1, 2])
        #expect(jv["s"] as? String == "x")
        let p = try #require(try CLI.json(try CLI.run(["kv", "get", "b", "p", "--json", "--root", root]).stdout) as? [String: Any])
        #expect(p["type"] as? String == "plist")
        let pv = try #require(p["value"] as? [String: Any])
        #expect((pv["d"] as? [String: String])?["$data"] == "AAEC")
        #expect(pv["n"] as? Int == 3)
    }

    @Test func plainGetPrintsTheValueAlone() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "b", "k", "line", "--root", root])
        let get = try CLI.run(["kv", "get", "b", "k", "--root", root])
        #expect(get.stdout == "line\n")
    }

    @Test func missingKeyExitsOneWithAnErrorLine() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "b", "k", "v", "--root", root])
        let get = try CLI.run(["kv", "get", "b", "nope", "--root", root])
        #expect(get.status == 1)
        #expect(get.stderr.hasPrefix("error: "))
        #expect(get.stderr.contains("nope"))
        #expect(get.stdout.isEmpty)
    }

    @Test func badValueForTypeIsAUserError() throws {
        let scratch = TemporaryFolder()
        let result = try CLI.run(["kv", "set", "b", "k", "twelve", "--type", "int", "--root", scratch.file("root")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not an integer"))
    }

    @Test func globalOptionsMayComeBeforeTheSubcommand() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["--root", root, "kv", "set", "b", "k", "v"]).status == 0)
        #expect(try CLI.run(["--root=\(root)", "kv", "get", "b", "k"]).stdout == "v\n")
    }

    @Test func rootDefaultsToTheEnvironment() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("envroot")
        #expect(try CLI.run(["kv", "set", "b", "k", "v"], environment: ["DATACENTER_ROOT": root]).status == 0)
        #expect(FileManager.default.fileExists(atPath: root + "/common.sqlite"))
    }

    @Test func userOptionWritesToThatUsersStore() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        #expect(try CLI.run(["kv", "set", "b", "k", "mine", "--create", "--user", "ann", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "get", "b", "k", "--user", "ann", "--root", root]).stdout == "mine\n")
        #expect(try CLI.run(["kv", "get", "b", "k", "--root", root]).status == 1)
    }

    @Test func removeDeletesAndMissingRemoveFails() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "b", "k", "v", "--root", root])
        #expect(try CLI.run(["kv", "rm", "b", "k", "--root", root]).status == 0)
        #expect(try CLI.run(["kv", "get", "b", "k", "--root", root]).status == 1)
        #expect(try CLI.run(["kv", "rm", "b", "k", "--root", root]).status == 1)
    }

    @Test func listShowsEntriesAndFilterByBusiness() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "one", "a", "1", "--type", "int", "--root", root])
        _ = try CLI.run(["kv", "set", "two", "b", "x", "--purgeable", "--root", root])
        let all = try #require(try CLI.json(try CLI.run(["kv", "list", "--json", "--root", root]).stdout) as? [[String: Any]])
        #expect(all.map { $0["key"] as? String } == ["a", "b"])
        #expect(all[1]["purgeable"] as? Bool == true)
        let two = try #require(try CLI.json(try CLI.run(["kv", "list", "--business", "two", "--json", "--root", root]).stdout) as? [[String: Any]])
        #expect(two.count == 1)
        let table = try CLI.run(["kv", "list", "--root", root])
        #expect(table.stdout.contains("BUSINESS"))
        #expect(table.stdout.contains("two"))
    }

    @Test func controlCharactersAreShownVisiblyInTheTable() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        _ = try CLI.run(["kv", "set", "b", "k", "red \u{1b}[31mtext\nnext", "--root", root])
        let table = try CLI.run(["kv", "list", "--root", root])
        #expect(!table.stdout.contains("\u{1b}"))
        #expect(table.stdout.contains("\\u{1b}[31mtext\\nnext"))
    }
}

extension KVCommandTests {
    /// A stored escape sequence (a title change, a bell, colours) never reaches the terminal
    /// from `kv get`: it is printed escaped, whole; `--json` keeps the exact value.
    @Test func getEscapesControlCharacters() throws {
        let scratch = TemporaryFolder()
        let root = scratch.file("root")
        let hostile = "\u{1b}]0;owned\u{7}\u{1b}[31mred\u{1b}[0m\nline two"
        #expect(try CLI.run(["kv", "set", "b", "k", hostile, "--root", root]).status == 0)
        let text = try CLI.run(["kv", "get", "b", "k", "--root", root])
        #expect(text.status == 0)
        #expect(!text.stdout.contains("\u{1b}") && !text.stdout.contains("\u{7}"))
        #expect(text.stdout == "\\u{1b}]0;owned\\u{7}\\u{1b}[31mred\\u{1b}[0m\\nline two\n")
        let json = try #require(try CLI.json(try CLI.run(["kv", "get", "b", "k", "--json", "--root", root]).stdout) as? [String: Any])
        #expect(json["value"] as? String == hostile)
    }
}
