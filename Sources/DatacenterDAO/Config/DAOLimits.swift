/// The bounds a config must stay within to load (docs/DAO-DIALECT.md, "Limits").
///
/// A config is input: a small file must not be able to take gigabytes, minutes, or the
/// process's stack. Each bound is checked once, when the config loads (never per render, so
/// rendering costs nothing extra), and exceeding one is a located `DAOConfigError`. The
/// bounds sit far above what a hand-written config uses.
public enum DAOLimits {
    /// How deep `${name}` references may chain: a const or fragment that splices one that
    /// splices one … at most 64 levels. Deeper chains are an error at the const that
    /// exceeds it.
    public static let spliceDepth = 64

    /// The largest text, in UTF-8 bytes, that `${}` splicing may produce for one const,
    /// fragment or statement text: 1 MiB. Consts that double at each level would otherwise
    /// grow exponentially (28 levels of an 875-byte file reach a gigabyte).
    public static let splicedSize = 1 << 20

    /// How deeply an expression may nest: 256 levels, where each parenthesis, each prefix
    /// operator (`not`, unary `-`/`+`) and each operator of a chain (`a + b + c` is two levels)
    /// counts one. The parser and evaluator recurse per level, so this bounds their stack.
    public static let expressionDepth = 256

    /// How deeply elements may nest. libxml2 enforces it (256 without `XML_PARSE_HUGE`,
    /// which the loader never sets) and reports it as malformed XML; the node tree built
    /// from the XML, and every walk over it (render, lint, table preparation), is therefore
    /// at most this deep.
    public static let elementDepth = 256

    /// The most attributes one element may have: 4,096. libxml2 2.9 checks each attribute
    /// against every one before it, so 40,000 on one element took seconds to parse; a
    /// `<const>` declaring many consts can be split over several elements.
    public static let attributesPerElement = 4_096

    /// The longest attribute value, in bytes: 10,000,000, libxml2's own bound (without
    /// `XML_PARSE_HUGE`), checked first so the error names the attribute.
    public static let attributeLength = 10_000_000

    /// "Did you mean" suggestions are looked for only for names of at most 64 characters;
    /// a longer name is no typo of a short one, and comparing it would cost its length
    /// times each candidate's.
    public static let suggestionNameLength = 64
}
