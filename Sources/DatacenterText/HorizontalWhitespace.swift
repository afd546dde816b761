/// Trimming of spaces and tabs without Foundation's `CharacterSet`.
///
/// `trimmingCharacters(in: .whitespaces)` costs a few microseconds a call on Linux (it goes
/// through `CharacterSet`); the browser trims every line of its built-in themes at each
/// start, where it took most of the themes' half millisecond. This trims the same
/// characters, scalar by scalar as Foundation does: U+0009 (tab), the Unicode space
/// separators (general category Zs: the space, U+00A0, U+3000, …) and U+200B (zero width
/// space, which Foundation counts in), not line breaks.
extension String {
    /// The text without the tabs and space separators at its start and end, exactly as
    /// `trimmingCharacters(in: .whitespaces)` returns it.
    package func trimmingHorizontalWhitespace() -> String {
        Substring(self).trimmingHorizontalWhitespace()
    }
}

extension Substring {
    /// The text without the tabs and space separators at its start and end, exactly as
    /// `trimmingCharacters(in: .whitespaces)` returns it.
    package func trimmingHorizontalWhitespace() -> String {
        // Concrete, not generic over `StringProtocol`: unspecialized across the module
        // boundary, the generic version walked the scalars through witness tables and cost
        // more than Foundation's.
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, HorizontalWhitespace.contains(scalars[start]) { start = scalars.index(after: start) }
        while end > start {
            let last = scalars.index(before: end)
            guard HorizontalWhitespace.contains(scalars[last]) else { break }
            end = last
        }
        // Sliced as scalars: a space before a combining mark goes and the mark stays, as
        // Foundation does it (a `Character` slice would round to the whole cluster).
        return String(Substring(scalars[start..<end]))
    }
}

/// The characters `CharacterSet.whitespaces` holds: tab, the space separators and U+200B
/// (a test holds this to Foundation's set, scalar by scalar).
package enum HorizontalWhitespace {
    /// True for U+0009, U+200B and a scalar of general category Zs.
    @inline(__always)
    package static func contains(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value == 0x20 || scalar.value == 0x09 }
        return scalar.value == 0x200B || scalar.properties.generalCategory == .spaceSeparator
    }
}
