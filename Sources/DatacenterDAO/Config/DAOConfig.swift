import DatacenterKit
import Foundation

/// The `<module>` element's attributes.
public struct DAOModuleInfo: Sendable, Equatable {
    /// `name`.
    public let name: String
    /// `initializer`: an `update` method run before first use of a table.
    public let initializer: String?
    /// `tableName`: the default for `${T}`; may be empty (set at run time).
    public let tableName: String
    /// `version`; nil when the module does not version its table.
    public let version: DAOVersion?
    /// `resetOnUpgrade`: drop and re-create instead of running upgrades.
    public let resetOnUpgrade: Bool
    /// `upgradeMinVersion`: older tables are reset instead of upgraded.
    public let upgradeMinVersion: DAOVersion?
}

/// A `<map id result>` with its `<result property column>` entries.
public struct DAOMap: Sendable, Equatable {
    /// The map id (`:id` in a `result`).
    public let id: String
    /// The model type name the rows become.
    public let className: String
    /// Property → column, for the properties that differ from their column.
    public let columnsByProperty: [String: String]
    /// Where the map is.
    public let location: SourceLocation

    /// The property a column fills (its mapped property, or the column's own name).
    public func property(forColumn column: String) -> String {
        columnsByProperty.first { $0.value == column }?.key ?? columnsByProperty.first { $0.value.lowercased() == column.lowercased() }?.key ?? column
    }

    /// The column feeding a property.
    public func column(forProperty property: String) -> String { columnsByProperty[property] ?? property }
}

/// An `<upgrade toVersion>` block.
public struct DAOUpgrade: Sendable {
    /// The version the table has after this block.
    public let toVersion: DAOVersion
    /// The statements.
    package let body: DAOMethodBody
    /// Where the block is.
    public let location: SourceLocation
}

/// A loaded config: immutable, parsed once, rendered per call.
///
/// For example:
/// ```swift
/// let config = try DAOConfig(contentsOfFile: "demo.xml")
/// let call = try Renderer.render(config.method("find", arity: 2), arguments: [1, 2], tableName: "t")
/// ```
public struct DAOConfig: Sendable {
    /// The config file's path as given.
    public let path: String
    /// The module attributes.
    public let module: DAOModuleInfo
    /// `<const>` values, spliced (as text) where `${name}` appears.
    public let consts: [String: String]
    /// `<sql>` fragments, spliced where `${id}` appears.
    public let fragments: [String: String]
    /// `<map>`s by id.
    public let maps: [String: DAOMap]
    /// `<crypt>` rules.
    package let cryptRules: Set<DAOCryptRule>
    /// `<upgrade>` blocks in ascending `toVersion`.
    public let upgrades: [DAOUpgrade]
    /// Every method in file order.
    public let methods: [DAOMethod]
    /// The overloads of each method id, in file order: built once at load so a call finds
    /// its method without filtering `methods`.
    private let overloadsByID: [String: [DAOMethod]]

    /// Loads and compiles the config at `path`.
    /// - throws: `DAOConfigError` naming `file:line:column` and the fault.
    public init(contentsOfFile path: String) throws {
        self = try ConfigParser.parse(try Self.read(path), file: path)
    }

    /// The bytes of the config file at `path`: a regular file only (a FIFO or device would
    /// block the read), of at most 64 MiB.
    /// - throws: `DAOConfigError` (`.unreadable`) saying why, in plain words.
    static func read(_ path: String) throws(DAOConfigError) -> Data {
        do { return try RegularFile.contents(atPath: path) } catch let error as FileAccessError {
            throw DAOConfigError(.unreadable(error.reason), at: SourceLocation(file: path, line: 1))
        } catch {
            throw DAOConfigError(.unreadable("\(error)"), at: SourceLocation(file: path, line: 1))
        }
    }

    /// Compiles a config held in memory; `file` names it in errors.
    public init(xml: String, file: String = "<memory>") throws {
        self = try ConfigParser.parse(Data(xml.utf8), file: file)
    }

    init(path: String, module: DAOModuleInfo, consts: [String: String], fragments: [String: String],
         maps: [String: DAOMap], cryptRules: Set<DAOCryptRule>, upgrades: [DAOUpgrade], methods: [DAOMethod]) {
        self.path = path
        self.module = module
        self.consts = consts
        self.fragments = fragments
        self.maps = maps
        self.cryptRules = cryptRules
        self.upgrades = upgrades
        self.methods = methods
        self.overloadsByID = Dictionary(grouping: methods, by: \.id)
    }

    /// The methods named `id` (one per arity), in file order.
    public func overloads(of id: String) -> [DAOMethod] { overloadsByID[id] ?? [] }

    /// The method named `id` taking `arity` arguments.
    /// - throws: `DAOError.unknownMethod` (with a suggestion) or `.wrongArgumentCount`.
    public func method(_ id: String, arity: Int) throws -> DAOMethod {
        let candidates = overloads(of: id)
        for candidate in candidates where candidate.arity == arity { return candidate }
        guard !candidates.isEmpty else {
            throw DAOError.unknownMethod(id, suggestion: DidYouMean.suggest(id, among: Set(methods.map(\.id))))
        }
        throw DAOError.wrongArgumentCount(method: id, given: arity, accepted: candidates.map(\.arity).sorted())
    }

    /// The method ids in file order, each once (`allMethodsList`).
    public var methodNames: [String] {
        var seen = Set<String>()
        return methods.compactMap { seen.insert($0.id).inserted ? $0.id : nil }
    }

    /// The columns holding encrypted values: for each crypt rule, the column a map of that
    /// class feeds the property from, or the property's own name.
    public var encryptedColumns: [String] {
        var columns = Set<String>()
        for rule in cryptRules {
            let mapped = maps.values.filter { $0.className == rule.className }.map { $0.column(forProperty: rule.property) }
            if mapped.isEmpty { columns.insert(rule.property) } else { columns.formUnion(mapped) }
        }
        return columns.sorted()
    }
}
