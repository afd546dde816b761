/// Where something stands in a DAO config file: every parsed node and every error keeps one.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The config file's path as it was given.
    public let file: String
    /// 1-based line.
    public let line: Int
    /// 1-based column (1 when the parser does not know it).
    public let column: Int

    /// A position in `file`; leave `column` at 1 when it is not known.
    public init(file: String, line: Int, column: Int = 1) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the shape compilers use, so editors can jump to it.
    public var description: String { "\(file):\(line):\(column)" }
}
