import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter kv`: read and write the key-value store.
struct KVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Read and write key-value entries of a store.",
        subcommands: [Set.self, Get.self, List.self, Remove.self])

    /// The value types `kv set --type` accepts, named as the JSON output names them.
    enum ValueType: String, ExpressibleByArgument, CaseIterable {
        case string, int, double, bool, json, plist

        static func name(of encoding: KVEncoding) -> String {
            encoding == .integer ? "int" : encoding.rawValue
        }

        func parse(_ text: String) throws -> KVValue {
            switch self {
            case .string: return .string(text)
            case .int:
                guard let v = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw CLIError("'\(text)' is not an integer") }
                return .integer(v)
            case .double:
                guard let d = Double(text.trimmingCharacters(in: .whitespaces)) else { throw CLIError("'\(text)' is not a number") }
                return .double(d)
            case .bool:
                switch text.lowercased() {
                case "true", "yes", "1": return .bool(true)
                case "false", "no", "0": return .bool(false)
                default: throw CLIError("'\(text)' is not a boolean (true/false, yes/no, 1/0)")
                }
            case .json:
                let data = Data(text.utf8)
                do { _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
                    throw CLIError("the value is not valid JSON")
                }
                return .json(data)
            case .plist:
                let object: Any
                do { object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) } catch {
                    throw CLIError("a plist value is written as JSON ({\"$data\": base64} for data, {\"$date\": ISO 8601} for dates); this is not valid JSON")
                }
                do { return .plist(try PropertyListValue(jsonObject: object)) } catch {
                    throw CLIError("\(error)")
                }
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store a value.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business (namespace).") var business: String
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value, as text (JSON for json and plist).") var value: String
        @Option(help: "The value type.") var type: ValueType = .string
        @Flag(help: "Encrypt with the default key (--key or DATACENTER_KEY).") var encrypt = false
        @Flag(help: "Mark the value purgeable: cache cleaning may delete it.") var purgeable = false

        func run() throws {
            let center = try global.openDataCenter()
            let store = try selection.store(in: center)
            let parsed = try type.parse(value)
            if encrypt, (store.defaultCrypt as? KeyRing)?.isEmpty ?? false {
                throw CLIError("--encrypt needs a key: pass --key or set DATACENTER_KEY")
            }
            try store.set(parsed, forKey: key, business: business, encryption: encrypt ? .default : .none,
                          options: purgeable ? .purgeable : [])
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a value.",
            discussion: "Exit status 1 when the key is missing or the value cannot be decrypted.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business.") var business: String
        @Argument(help: "The key.") var key: String
        @Flag(help: "Print {\"business\",\"key\",\"type\",\"encrypted\",\"purgeable\",\"value\"}.") var json = false

        func run() throws {
            let store = try selection.store(in: global.openDataCenter(readOnly: true))
            guard let entry = try store.entry(forKey: key, business: business) else {
                throw CLIError("no value for key '\(key)' in business '\(business)'")
            }
            let value = try store.decode(entry)
            if json {
                try Output.json(KVCommand.jsonObject(entry, value: value))
            } else {
                Output.line(value.displayString)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entries, decrypting what the keys open.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Option(help: "Only this business.") var business: String?
        @Flag(help: "Print a JSON array of entries (locked ones carry \"locked\": reason and no value).") var json = false

        func run() throws {
            let store = try selection.store(in: global.openDataCenter(readOnly: true))
            let entries = try store.entries(business: business)
            let decoded: [(KVEntry, Result<KVValue, Error>)] = entries.map { entry in
                (entry, Result { try store.decode(entry) })
            }
            if json {
                try Output.json(decoded.map { entry, result in
                    switch result {
                    case .success(let value): return KVCommand.jsonObject(entry, value: value)
                    case .failure(let error): return KVCommand.jsonObject(entry, lockedBecause: error)
                    }
                })
                return
            }
            Output.table(["BUSINESS", "KEY", "TYPE", "FLAGS", "SIZE", "VALUE"], decoded.map { entry, result in
                let value: String
                switch result {
                case .success(let v): value = Output.safe(v.displayString)
                case .failure(let error): value = "[locked: \(KVCommand.lockReason(error))]"
                }
                return [Output.safe(entry.business, limit: 30), Output.safe(entry.key, limit: 40), ValueType.name(of: entry.encoding),
                        KVCommand.flags(entry.options), String(entry.byteCount), value]
            })
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a value.",
            discussion: "Exit status 1 when the key is missing.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business.") var business: String
        @Argument(help: "The key.") var key: String

        func run() throws {
            let store = try selection.store(in: global.openDataCenter())
            guard try store.removeValue(forKey: key, business: business) else {
                throw CLIError("no value for key '\(key)' in business '\(business)'")
            }
        }
    }

    /// Flags as letters: E default-encrypted, C custom-encrypted, P purgeable.
    static func flags(_ options: KVOptions) -> String {
        var s = ""
        if options.contains(.defaultEncrypted) { s += "E" }
        if options.contains(.customEncrypted) { s += "C" }
        if options.contains(.purgeable) { s += "P" }
        return s.isEmpty ? "-" : s
    }

    static func jsonObject(_ entry: KVEntry, value: KVValue) -> [String: Any] {
        var object = baseObject(entry)
        object["value"] = value.jsonObject
        return object
    }

    static func jsonObject(_ entry: KVEntry, lockedBecause error: Error) -> [String: Any] {
        var object = baseObject(entry)
        object["value"] = NSNull()
        object["locked"] = lockReason(error)
        return object
    }

    private static func baseObject(_ entry: KVEntry) -> [String: Any] {
        ["business": entry.business, "key": entry.key, "type": ValueType.name(of: entry.encoding),
         "encrypted": entry.options.isEncrypted, "purgeable": entry.options.contains(.purgeable)]
    }

    static func lockReason(_ error: Error) -> String {
        switch error {
        case KVError.cannotDecrypt(_, _, .noKey): return "no key"
        case KVError.cannotDecrypt(_, _, .wrongKey): return "wrong key"
        case KVError.needsCustomCrypt: return "custom crypt"
        default: return "\(error)"
        }
    }
}
