import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks a yes-or-no question on the controlling terminal, as `rm -i` does: on the terminal,
/// not stdout, so a pipe's reader never sees it and a script is never answered for.
enum TerminalQuestion {
    /// Shows `question` and reads one line: true for `y` or `yes` (any case), false for
    /// anything else (Enter alone, end of input); nil when there is no terminal to ask on.
    static func ask(_ question: String) -> Bool? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard isatty(fd) == 1 else { return nil }
        write(fd, question, question.utf8.count)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 64, read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let answer = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }
}
