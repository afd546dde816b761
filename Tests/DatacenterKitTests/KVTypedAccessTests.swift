import Foundation
import Testing
@testable import DatacenterKit

struct Profile: Codable, Equatable {
    var name: String
    var age: Int
    var tags: [String]
    var avatar: Data?
    var joined: Date
}

/// The typed accessors (`APSharedPreferences`), their defaults and type checks, and
/// `BusinessPreferences`.
@Suite struct KVTypedAccessTests {
    static let profile = Profile(name: "ann", age: 33, tags: ["a", "b"], avatar: Data([1, 2, 3]),
                                 joined: Date(timeIntervalSinceReferenceDate: 700_000_000.25))

    private func makeKV(_ folder: TemporaryFolder) throws -> KVStore {
        try Store(path: folder.file("kv.sqlite"), crypt: KeyRing([.random()])).kv
    }

    @Test(arguments: [false, true])
    func scalarsRoundTrip(encrypted: Bool) throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        let encryption: KVEncryption = encrypted ? .default : .none
        try kv.setString("text", forKey: "s", business: "b", encryption: encryption)
        try kv.set(.integer(-42), forKey: "i", business: "b", encryption: encryption)
        try kv.set(.integer(Int64.max), forKey: "l", business: "b", encryption: encryption)
        try kv.set(.double(0.1), forKey: "d", business: "b", encryption: encryption)
        try kv.set(.bool(true), forKey: "t", business: "b", encryption: encryption)
        try kv.set(.bool(false), forKey: "f", business: "b", encryption: encryption)
        for pass in 0..<2 {
            #expect(try kv.string(forKey: "s", business: "b") == "text", "pass \(pass)")
            #expect(try kv.integer(forKey: "i", business: "b") == -42)
            #expect(try kv.longLong(forKey: "l", business: "b") == .max)
            #expect(try kv.double(forKey: "d", business: "b") == 0.1)
            #expect(try kv.bool(forKey: "t", business: "b") == true)
            #expect(try kv.bool(forKey: "f", business: "b") == false)
            kv.clearMemoryCache()
        }
    }

    @Test func typedSettersStoreTheirEncoding() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        try kv.setInteger(5, forKey: "i", business: "b")
        try kv.setLongLong(1 << 40, forKey: "l", business: "b")
        try kv.setDouble(2.5, forKey: "d", business: "b")
        try kv.setBool(true, forKey: "t", business: "b")
        try kv.setString("s", forKey: "s", business: "b")
        try kv.setObject(.array([.string("x")]), forKey: "p", business: "b")
        try kv.archiveObject(Self.profile, forKey: "a", business: "b")
        try kv.saveJsonObject(Self.profile, forKey: "j", business: "b")
        let encodings = try kv.entries(business: "b").reduce(into: [String: KVEncoding]()) { $0[$1.key] = $1.encoding }
        #expect(encodings == ["i": .integer, "l": .integer, "d": .double, "t": .bool, "s": .string,
                              "p": .plist, "a": .archive, "j": .json])
    }

    @Test func objectForKeyDecodesByTheRecordedEncoding() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        try kv.setInteger(5, forKey: "i", business: "b")
        try kv.setString("5", forKey: "s", business: "b")
        try kv.setBool(true, forKey: "t", business: "b")
        try kv.setObject(.dictionary(["k": .integer(1)]), forKey: "p", business: "b")
        try kv.saveJsonObject(Self.profile, forKey: "j", business: "b", encryption: .default)
        try kv.archiveObject(Self.profile, forKey: "a", business: "b")
        kv.clearMemoryCache()
        #expect(try kv.object(forKey: "i", business: "b") == .integer(5))
        #expect(try kv.object(forKey: "s", business: "b") == .string("5"))
        #expect(try kv.object(forKey: "t", business: "b") == .bool(true))
        #expect(try kv.object(forKey: "p", business: "b") == .plist(.dictionary(["k": .integer(1)])))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try kv.object(forKey: "j", business: "b") == .json(try encoder.encode(Self.profile)))
        guard case .archive(let data)? = try kv.object(forKey: "a", business: "b") else {
            Issue.record("not an archive"); return
        }
        #expect(data.starts(with: Data("bplist".utf8)), "an archive is a binary property list")
        #expect(try kv.object(forKey: "missing", business: "b") == nil)
    }

    @Test(arguments: [false, true])
    func codableValuesRoundTrip(encrypted: Bool) throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        let encryption: KVEncryption = encrypted ? .default : .none
        try kv.archiveObject(Self.profile, forKey: "struct", business: "b", encryption: encryption)
        try kv.archiveObject(42, forKey: "scalar", business: "b", encryption: encryption)
        try kv.archiveObject("a string", forKey: "string", business: "b", encryption: encryption)
        try kv.archiveObject([1.5, 2.5], forKey: "array", business: "b", encryption: encryption)
        try kv.saveJsonObject(Self.profile, forKey: "json", business: "b", encryption: encryption)
        try kv.saveJsonObject(["x": [1, 2]], forKey: "jsonDict", business: "b", encryption: encryption)
        for _ in 0..<2 {
            #expect(try kv.unarchiveObject(Profile.self, forKey: "struct", business: "b") == Self.profile)
            #expect(try kv.unarchiveObject(Int.self, forKey: "scalar", business: "b") == 42)
            #expect(try kv.unarchiveObject(String.self, forKey: "string", business: "b") == "a string")
            #expect(try kv.unarchiveObject([Double].self, forKey: "array", business: "b") == [1.5, 2.5])
            #expect(try kv.jsonObject(Profile.self, forKey: "json", business: "b") == Self.profile)
            #expect(try kv.jsonObject([String: [Int]].self, forKey: "jsonDict", business: "b") == ["x": [1, 2]])
            kv.clearMemoryCache()
        }
        #expect(try kv.unarchiveObject(Profile.self, forKey: "none", business: "b") == nil)
        #expect(try kv.jsonObject(Profile.self, forKey: "none", business: "b") == nil)
    }

    @Test func decodingAsTheWrongCodableTypeIsACodingError() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        try kv.archiveObject("text", forKey: "a", business: "b")
        try kv.saveJsonObject(["not": "a profile"], forKey: "j", business: "b")
        let a = #expect(throws: KVError.self) { try kv.unarchiveObject(Int.self, forKey: "a", business: "b") }
        if case .coding(business: "b", key: "a", _)? = a {} else { Issue.record("got \(String(describing: a))") }
        let j = #expect(throws: KVError.self) { try kv.jsonObject(Profile.self, forKey: "j", business: "b") }
        if case .coding(business: "b", key: "j", _)? = j {} else { Issue.record("got \(String(describing: j))") }
    }

    @Test func propertyListsRoundTrip() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        let value = KVStoreTests.plist
        try kv.setObject(value, forKey: "p", business: "b")
        try kv.setObject(value, forKey: "pe", business: "b", encryption: .default)
        kv.clearMemoryCache()
        #expect(try kv.propertyList(forKey: "p", business: "b") == value)
        #expect(try kv.propertyList(forKey: "pe", business: "b") == value)
        try kv.setObject(nil, forKey: "p", business: "b")
        #expect(try kv.propertyList(forKey: "p", business: "b") == nil)
    }

    @Test func aTypeMismatchThrows() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        try kv.setString("not a number", forKey: "s", business: "b")
        try kv.setInteger(1, forKey: "i", business: "b")
        try kv.setBool(true, forKey: "t", business: "b")
        try kv.saveJsonObject(Self.profile, forKey: "j", business: "b")

        #expect(throws: KVError.typeMismatch(business: "b", key: "s", stored: .string, requested: .integer)) {
            try kv.integer(forKey: "s", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "s", stored: .string, requested: .integer)) {
            try kv.integer(forKey: "s", business: "b", defaultValue: 3)
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "i", stored: .integer, requested: .string)) {
            try kv.string(forKey: "i", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "i", stored: .integer, requested: .bool)) {
            try kv.bool(forKey: "i", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "t", stored: .bool, requested: .integer)) {
            try kv.longLong(forKey: "t", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "s", stored: .string, requested: .double)) {
            try kv.double(forKey: "s", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "j", stored: .json, requested: .archive)) {
            try kv.unarchiveObject(Profile.self, forKey: "j", business: "b")
        }
        #expect(throws: KVError.typeMismatch(business: "b", key: "j", stored: .json, requested: .plist)) {
            try kv.propertyList(forKey: "j", business: "b")
        }
        // An integer reads as a double.
        #expect(try kv.double(forKey: "i", business: "b") == 1.0)
    }

    @Test func defaultsForMissingKeys() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        #expect(try kv.integer(forKey: "none", business: "b") == nil)
        #expect(try kv.integer(forKey: "none", business: "b", defaultValue: 9) == 9)
        #expect(try kv.longLong(forKey: "none", business: "b", defaultValue: -9) == -9)
        #expect(try kv.bool(forKey: "none", business: "b", defaultValue: true) == true)
        #expect(try kv.double(forKey: "none", business: "b", defaultValue: 0.5) == 0.5)
        #expect(try kv.string(forKey: "none", business: "b") == nil)
        #expect(try kv.propertyList(forKey: "none", business: "b") == nil)
        // A stored value wins over the default, including a stored zero or false.
        try kv.setInteger(0, forKey: "zero", business: "b")
        try kv.setBool(false, forKey: "no", business: "b")
        #expect(try kv.integer(forKey: "zero", business: "b", defaultValue: 9) == 0)
        #expect(try kv.bool(forKey: "no", business: "b", defaultValue: true) == false)
        // The same key in another business is another value.
        #expect(try kv.integer(forKey: "zero", business: "other", defaultValue: 9) == 9)
    }

    @Test func businessPreferencesBindTheBusiness() throws {
        let folder = TemporaryFolder()
        let kv = try makeKV(folder)
        let prefs = BusinessPreferences(store: kv, business: "settings")
        try prefs.setString("dark", forKey: "theme")
        try prefs.setInteger(3, forKey: "count")
        try prefs.setLongLong(1 << 50, forKey: "big")
        try prefs.setBool(true, forKey: "on")
        try prefs.setDouble(1.25, forKey: "scale")
        try prefs.setObject(.array([.integer(1)]), forKey: "list")
        try prefs.archiveObject(Self.profile, forKey: "profile")
        try prefs.saveJsonObject(Self.profile, forKey: "profileJSON", encryption: .default)
        #expect(try kv.string(forKey: "theme", business: "settings") == "dark")
        #expect(try prefs.string(forKey: "theme") == "dark")
        #expect(try prefs.integer(forKey: "count") == 3)
        #expect(try prefs.integer(forKey: "missing", defaultValue: 4) == 4)
        #expect(try prefs.longLong(forKey: "big") == 1 << 50)
        #expect(try prefs.bool(forKey: "on") == true)
        #expect(try prefs.bool(forKey: "off", defaultValue: true) == true)
        #expect(try prefs.double(forKey: "scale") == 1.25)
        #expect(try prefs.double(forKey: "nope", defaultValue: 2) == 2)
        #expect(try prefs.object(forKey: "list") == .plist(.array([.integer(1)])))
        #expect(try prefs.unarchiveObject(Profile.self, forKey: "profile") == Self.profile)
        #expect(try prefs.jsonObject(Profile.self, forKey: "profileJSON") == Self.profile)
        #expect(try prefs.allKeys() == ["big", "count", "list", "on", "profile", "profileJSON", "scale", "theme"])
        #expect(try prefs.containsValue(forKey: "theme"))
        #expect(try prefs.removeValue(forKey: "theme"))
        #expect(try !prefs.containsValue(forKey: "theme"))
        #expect(try prefs.removeValues(like: "profile%") == 2)
        #expect(try kv.allBusinesses() == ["settings"])
    }

    @Test func displayAndJSONForms() throws {
        #expect(KVValue.string("s").displayString == "s")
        #expect(KVValue.integer(-3).displayString == "-3")
        #expect(KVValue.bool(true).displayString == "true")
        #expect(KVValue.json(Data(#"{"b":1,"a":[true]}"#.utf8)).displayString == #"{"a":[true],"b":1}"#)
        #expect(KVValue.plist(.dictionary(["d": .data(Data([1, 2]))])).displayString == #"{"d":{"$data":"AQI="}}"#)
        let plist = PropertyListValue.dictionary(["d": .data(Data([1, 2])), "n": .integer(1), "s": .string("x"),
                                                  "t": .date(Date(timeIntervalSince1970: 0))])
        #expect(try PropertyListValue(jsonObject: plist.jsonObject) == plist)
    }
}
