import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The C library's `wcwidth`, looked up by name and called under a C.UTF-8 locale: the
/// columns ncursesw (and the terminal) give text, computed apart from `TerminalText`, so
/// width tests compare the tool against the platform rather than against itself.
public enum LibCWidth {
    private typealias Function = @convention(c) (Int32) -> Int32
    nonisolated(unsafe) private static let function = unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), "wcwidth")!, to: Function.self)
    nonisolated(unsafe) private static let locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)!

    /// `wcwidth(scalar)`: -1, 0, 1 or 2.
    public static func width(_ scalar: Unicode.Scalar) -> Int {
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return Int(function(Int32(bitPattern: scalar.value)))
    }

    /// The sum of `wcwidth` over the scalars: where ncursesw puts what follows.
    public static func columns(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width($1) }
    }
}
