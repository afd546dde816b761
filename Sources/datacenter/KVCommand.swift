import ArgumentParser
import DatacenterKit
import Foundation
import DatacenterText

/// `datacenter kv`: read and write the key-value store.
struct KVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Read and write key-value entries of a store.",
            discussion: ExitStatusHelp.discussion(),
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
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Store a value.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business (namespace).") var business: String
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value, as text (JSON for json and plist).") var value: String
        @Option(help: "The value type.") var type: ValueType = .string
        @Flag(help: "Encrypt with the default key (--key or DATACENTER_KEY).") var encrypt = false
        @Flag(help: "Mark the value purgeable: cache cleaning may delete it.") var purgeable = false
        @Flag(help: KnownUser.createHelp) var create = false

        func run() throws {
            let store = try selection.openStore(global, readOnly: false, create: create)
            let parsed = try type.parse(value)
            if encrypt, (store.defaultCrypt as? KeyRing)?.isEmpty ?? false {
                throw CLIError("--encrypt needs a key: pass --key or --app-key, or set DATACENTER_KEY or DATACENTER_APP_KEY")
            }
            try store.set(parsed, forKey: key, business: business, encryption: encrypt ? .default : .none,
                          options: purgeable ? .purgeable : [])
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a value.",
            discussion: ExitStatusHelp.discussion("Control characters in the value are printed escaped (\\n, \\u{1b}…); --json gives the exact value.", one: "when the key is missing or the value cannot be decrypted"))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business.") var business: String
        @Argument(help: "The key.") var key: String
        @Flag(help: "Print {\"business\",\"key\",\"type\",\"encrypted\",\"purgeable\",\"value\"}.") var json = false

        func run() throws {
            let store = try selection.openStore(global, readOnly: true)
            guard let entry = try store.entry(forKey: key, business: business) else {
                throw CLIError("no value for key '\(key)' in business '\(business)'")
            }
            let value = try store.decode(entry)
            if json {
                try Output.json(KVCommand.jsonObject(entry, value: value))
            } else {
                // Whole, but with control characters escaped: stored data never drives the
                // terminal (`--json` gives the exact value).
                Output.line(TerminalText.visible(value.displayString))
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List entries, decrypting what the keys open.",
            discussion: ExitStatusHelp.discussion("A damaged entry (unknown encoding, a value that does not decode) is listed as <damaged: reason> (JSON: \"damaged\": reason) and the others as usual; the exit status stays 0 and stderr carries a warning."))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Option(help: "Only this business.") var business: String?
        @Flag(help: "Print a JSON array of entries (locked ones carry \"locked\": reason and no value).") var json = false

        func run() throws {
            let store = try selection.openStore(global, readOnly: true)
            // A first pass reads every row's metadata but no value: it gives the table its
            // exact column widths. Then the rows stream, one decoded at a time. A damaged row
            // (unknown encoding, undecodable value) is listed with its reason and the listing
            // goes on; a warning on stderr counts them (exit status 0).
            var widths = List.header.map(\.displayWidth)
            try store.forEachEntryMetadataOrDamagedRow(business: business) { item in
                if !json {
                    let cells: [String]
                    switch item {
                    case .success(let entry):
                        cells = [List.businessCell(entry.business), List.keyCell(entry.key), ValueType.name(of: entry.encoding),
                                 KVCommand.flags(entry.options), String(entry.byteCount)]
                    case .failure(let row):
                        cells = [List.businessCell(row.business), List.keyCell(row.key), List.damagedType,
                                 KVCommand.flags(row.options), String(row.byteCount)]
                    }
                    for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], cell.displayWidth) }
                }
                return true
            }
            var damaged = 0
            if json {
                let array = Output.JSONArrayStream()
                try store.forEachEntryOrDamagedRow(business: business) { item in
                    switch item {
                    case .success(let entry):
                        let decoded = Result(catching: { try store.decode(entry) })
                        if case .failure(let error) = decoded, KVCommand.damageReason(error) != nil { damaged += 1 }
                        try array.appendEncoded(KVCommand.jsonText(entry, decoded: decoded))
                    case .failure(let row):
                        damaged += 1
                        array.appendEncoded(KVCommand.jsonText(row))
                    }
                    return true
                }
                array.finish()
            } else {
                let table = Output.StreamedTable(header: List.header, widths: widths)
                try store.forEachEntryOrDamagedRow(business: business) { item in
                    switch item {
                    case .success(let entry):
                        let value: String
                        switch Result(catching: { try store.decode(entry) }) {
                        case .success(let v): value = Output.safe(v.displayString)
                        case .failure(let error):
                            if let why = KVCommand.damageReason(error) {
                                damaged += 1
                                value = List.damagedCell(why)
                            } else {
                                value = "[locked: \(KVCommand.lockReason(error))]"
                            }
                        }
                        table.row([List.businessCell(entry.business), List.keyCell(entry.key), ValueType.name(of: entry.encoding),
                                   KVCommand.flags(entry.options), String(entry.byteCount), value])
                    case .failure(let row):
                        damaged += 1
                        table.row([List.businessCell(row.business), List.keyCell(row.key), List.damagedType,
                                   KVCommand.flags(row.options), String(row.byteCount), List.damagedCell(row.reason)])
                    }
                    return true
                }
            }
            if damaged > 0 {
                Output.error("warning: \(damaged) damaged entr\(damaged == 1 ? "y" : "ies") listed as " +
                             (json ? "\"damaged\": reason" : "<damaged: reason>") + " (the others are intact)")
            }
        }

        /// The TYPE cell of a row whose encoding is unknown.
        static let damagedType = "?"
        /// The VALUE cell of a damaged row.
        static func damagedCell(_ reason: String) -> String { "<damaged: " + Output.safe(reason) + ">" }

        static let header = ["BUSINESS", "KEY", "TYPE", "FLAGS", "SIZE", "VALUE"]
        static func businessCell(_ business: String) -> String { Output.safe(business, limit: 30) }
        static func keyCell(_ key: String) -> String { Output.safe(key, limit: 40) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a value.",
            discussion: ExitStatusHelp.discussion(one: "when the key is missing"))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The business.") var business: String
        @Argument(help: "The key.") var key: String

        func run() throws {
            let store = try selection.openStore(global, readOnly: false)
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

    /// The `jsonObject` of an entry as JSON text, exactly as `Output.json` writes that object
    /// (keys sorted), but written directly: the fixed keys and the plain scalars need no
    /// dictionary, and only a nested value (JSON, property list, double) goes through
    /// `JSONSerialization` — which sorts dictionary keys slowly on this platform.
    static func jsonText(_ entry: KVEntry, decoded: Result<KVValue, Error>) throws -> String {
        var text = "{\"business\":" + Output.jsonString(entry.business)
        if case .failure(let error) = decoded, let why = damageReason(error) { text += ",\"damaged\":" + Output.jsonString(why) }
        text += ",\"encrypted\":" + (entry.options.isEncrypted ? "true" : "false")
        text += ",\"key\":" + Output.jsonString(entry.key)
        if case .failure(let error) = decoded, damageReason(error) == nil {
            text += ",\"locked\":" + Output.jsonString(lockReason(error))
        }
        text += ",\"purgeable\":" + (entry.options.contains(.purgeable) ? "true" : "false")
        text += ",\"type\":" + Output.jsonString(ValueType.name(of: entry.encoding)) + ",\"value\":"
        switch decoded {
        case .failure: text += "null"
        case .success(.string(let string)): text += Output.jsonString(string)
        case .success(.integer(let integer)): text += String(integer)
        case .success(.bool(let bool)): text += bool ? "true" : "false"
        case .success(let value): text += try Output.jsonFragment(value.jsonObject)
        }
        return text + "}"
    }

    /// Why a value is damaged (stored bytes that do not decode as their encoding), or nil
    /// for any other failure (a lock). The entry's `business/key: ` prefix is dropped.
    static func damageReason(_ error: Error) -> String? {
        guard case KVError.corruptValue(let why) = error else { return nil }
        if let colon = why.range(of: ": ") { return String(why[colon.upperBound...]) }
        return why
    }

    /// A damaged row as `jsonText` writes entries: `"value": null` and `"damaged": reason`,
    /// `type` the encoding as stored.
    static func jsonText(_ row: KVDamagedRow) -> String {
        "{\"business\":" + Output.jsonString(row.business) + ",\"damaged\":" + Output.jsonString(row.reason)
            + ",\"encrypted\":" + (row.options.isEncrypted ? "true" : "false") + ",\"key\":" + Output.jsonString(row.key)
            + ",\"purgeable\":" + (row.options.contains(.purgeable) ? "true" : "false")
            + ",\"type\":" + Output.jsonString(row.encodingName) + ",\"value\":null}"
    }

    static func lockReason(_ error: Error) -> String {
        switch error {
        case KVError.cannotDecrypt(_, _, .noKey): return "no key"
        case KVError.cannotDecrypt(_, _, .wrongKey): return "wrong key"
        case KVError.cannotDecrypt(_, _, .misplaced): return "misplaced"
        case KVError.needsCustomCrypt: return "custom crypt"
        default: return "\(error)"
        }
    }
}
