/// A module or table version, `x.x`: compared numerically part by part, so 1.10 > 1.9 and
/// 1.2 == 1.2.0.
public struct DAOVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric parts.
    public let parts: [Int]
    /// The text as written.
    public let text: String

    /// Parses `1`, `1.5`, `3.2.1`; nil for anything else.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let pieces = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        var parts: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(piece) else { return nil }
            parts.append(n)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
        self.text = trimmed
    }

    private func normalized() -> [Int] {
        var p = parts
        while p.count > 1, p.last == 0 { p.removeLast() }
        return p
    }

    public static func == (a: DAOVersion, b: DAOVersion) -> Bool { a.normalized() == b.normalized() }
    public func hash(into hasher: inout Hasher) { hasher.combine(normalized()) }

    public static func < (a: DAOVersion, b: DAOVersion) -> Bool {
        let n = max(a.parts.count, b.parts.count)
        for i in 0..<n {
            let x = i < a.parts.count ? a.parts[i] : 0
            let y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public var description: String { text }
}
