/// `<trim prefix prefixOverrides suffixOverrides onVoid>`, and its presets `<where>` and
/// `<set>`: renders the body, strips one leading and one trailing override, and writes
/// `prefix` before it; renders nothing when the body is empty.
public struct TrimNode: SQLNode {
    /// What to do when the body renders empty.
    public enum OnVoid: String, Sendable, Equatable {
        /// Run nothing; the call succeeds.
        case quit
        /// Stop rendering here and run the SQL built so far.
        case ignoreAfter
    }

    /// Written before a non-empty body (`WHERE`, `SET`).
    public let prefix: String
    /// Stripped from the start of the body, first match only (`AND `, `OR `).
    public let prefixOverrides: [String]
    /// Stripped from the end of the body, first match only (`,`).
    public let suffixOverrides: [String]
    /// What an empty body does; nil renders nothing and goes on.
    public let onVoid: OnVoid?
    /// The body.
    public let body: any SQLNode
    public let location: SourceLocation

    public init(prefix: String, prefixOverrides: [String], suffixOverrides: [String], onVoid: OnVoid?,
                body: any SQLNode, location: SourceLocation) {
        self.prefix = prefix
        self.prefixOverrides = prefixOverrides
        self.suffixOverrides = suffixOverrides
        self.onVoid = onVoid
        self.body = body
        self.location = location
    }

    /// `<where>`: prefix `WHERE`, strip a leading `AND`/`OR` (any case, then whitespace).
    public static func makeWhere(onVoid: OnVoid?, body: any SQLNode, location: SourceLocation) -> TrimNode {
        TrimNode(prefix: "WHERE", prefixOverrides: ["AND ", "OR "], suffixOverrides: [], onVoid: onVoid, body: body, location: location)
    }

    /// `<set>`: prefix `SET`, strip a trailing comma.
    public static func makeSet(onVoid: OnVoid?, body: any SQLNode, location: SourceLocation) -> TrimNode {
        TrimNode(prefix: "SET", prefixOverrides: [], suffixOverrides: [","], onVoid: onVoid, body: body, location: location)
    }

    /// Splits an override list written `AND |OR ` (`|`-separated, spaces kept).
    public static func parseOverrides(_ text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "|", omittingEmptySubsequences: true).map { piece in
            String(piece.drop(while: { $0 == " " || $0 == "\t" }))
        }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    public func render(into context: inout RenderContext) throws {
        var inner = try context.renderDetached(body)
        inner.stripPrefix(prefixOverrides)
        inner.stripSuffix(suffixOverrides)
        if inner.isBlank {
            if let onVoid { context.halt = onVoid == .quit ? .quit : .ignoreAfter }
            return
        }
        context.buffer.append(text: " " + prefix + (prefix.isEmpty ? "" : " "))
        context.buffer.append(inner)
        context.buffer.append(text: " ")
    }
}
