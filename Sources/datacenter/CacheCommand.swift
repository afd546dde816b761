import ArgumentParser
import DatacenterKit
import Foundation
import DatacenterText

/// `datacenter cache`: the LRU disk caches of a store.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "List and edit the LRU disk caches of a store.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [List.self, Get.self, Remove.self, Clear.self])

    /// The caches of the selected store (common, or `--user`'s), including the caches and
    /// temporary files, with the store holding each.
    static func caches(_ global: GlobalOptions, _ selection: StoreSelection, readOnly: Bool) throws -> [(CacheInfo, Store)] {
        let center = try global.openDataCenter(readOnly: readOnly)
        if let user = selection.user { try KnownUser.require(user, in: center, create: nil) }
        return try center.cacheStorePaths(forUser: selection.user).flatMap { path in
            let store = try center.store(atPath: path)
            return try CacheCatalog.caches(in: store).map { ($0, store) }
        }
    }

    static func find(_ name: String, _ global: GlobalOptions, _ selection: StoreSelection, readOnly: Bool) throws -> (CacheInfo, Store) {
        guard let found = try caches(global, selection, readOnly: readOnly).first(where: { $0.0.name == name }) else {
            throw CLIError("no disk cache named '\(name)'" + (selection.user.map { " for user \($0)" } ?? " in the common store"))
        }
        return found
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List disk caches with their entry counts and sizes.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Flag(help: "Print [{\"name\",\"entries\",\"bytes\",\"capacity\",\"crypted\",\"userDependent\",\"store\"}].") var json = false

        func run() throws {
            let caches = try CacheCommand.caches(global, selection, readOnly: true)
            if json {
                try Output.json(caches.map { info, store in
                    ["name": info.name, "entries": info.entryCount, "bytes": info.byteCount, "capacity": info.capacity,
                     "crypted": info.isEncrypted, "userDependent": info.isUserDependent, "store": store.path] as [String: Any]
                })
                return
            }
            Output.table(["NAME", "ENTRIES", "BYTES", "CAPACITY", "CRYPTED", "USER", "STORE"], caches.map { info, store in
                [Output.safe(info.name), String(info.entryCount), String(info.byteCount), String(info.capacity),
                 info.isEncrypted ? "yes" : "no", info.isUserDependent ? "yes" : "no", store.path]
            })
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a cached value.",
            discussion: ExitStatusHelp.discussion(one: "when the entry is missing, expired, or cannot be decrypted"))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The cache name.") var name: String
        @Argument(help: "The key.") var key: String
        @Flag(help: "Print {\"cache\",\"key\",\"encoding\",\"expires\",\"value\"}.") var json = false

        func run() throws {
            let (info, store) = try CacheCommand.find(name, global, selection, readOnly: true)
            guard let entry = try CacheCatalog.entry(key, of: info, in: store) else {
                throw CLIError("no entry '\(key)' in cache '\(name)'")
            }
            if let expires = entry.expires, expires <= Date() {
                throw CLIError("the entry '\(key)' in cache '\(name)' expired at \(ISO8601DateFormatter().string(from: expires))")
            }
            let value = try CacheCatalog.decode(entry, of: info, crypt: store.kv.defaultCrypt)
            if json {
                try Output.json(["cache": info.name, "key": entry.key, "encoding": entry.encoding,
                                 "expires": entry.expires.map { ISO8601DateFormatter().string(from: $0) as Any } ?? NSNull(),
                                 "value": value.jsonObject] as [String: Any])
            } else {
                Output.line(TerminalText.visible(KVValue.plist(value).displayString))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a cached entry.",
            discussion: ExitStatusHelp.discussion(one: "when the entry is missing"))
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The cache name.") var name: String
        @Argument(help: "The key.") var key: String

        func run() throws {
            let (info, store) = try CacheCommand.find(name, global, selection, readOnly: false)
            guard try CacheCatalog.remove(key, of: info, in: store) else { throw CLIError("no entry '\(key)' in cache '\(name)'") }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry of a cache.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @OptionGroup var selection: StoreSelection
        @Argument(help: "The cache name.") var name: String

        func run() throws {
            let (info, store) = try CacheCommand.find(name, global, selection, readOnly: false)
            let removed = try CacheCatalog.clear(info, in: store)
            Output.line("removed \(removed) entr\(removed == 1 ? "y" : "ies") from \(name)")
        }
    }
}
