import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks for a secret on the controlling terminal without echoing it, as `ssh` and `sudo` do:
/// the prompt goes to the terminal, not stdout, so the secret never appears on screen, in a
/// pipe, or in the shell's history or `ps`.
enum PassphrasePrompt {
    /// What the user did at the prompt.
    enum Answer: Equatable {
        /// Typed a secret and pressed Enter.
        case entered(String)
        /// Pressed Ctrl-C, Esc, or Ctrl-D on an empty line.
        case cancelled
    }

    /// Shows `prompt` on the terminal and reads one line with echo off; nil when there is no
    /// terminal to ask on.
    static func ask(_ prompt: String) -> Answer? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var raw = saved
        // No echo, byte by byte, and Ctrl-C read as a byte: the terminal is always restored.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSAFLUSH, &raw) == 0 else { return nil }
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            write(fd, "\n", 1)
        }
        write(fd, prompt, prompt.utf8.count)
        var line = LineBytes()
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
            if let answer = line.take(byte) { return answer }
        }
        return .cancelled
    }

    /// The line being typed, edited as a terminal's cooked mode would.
    struct LineBytes {
        private(set) var bytes: [UInt8] = []

        /// Takes one byte typed; returns the answer once the line is finished.
        mutating func take(_ byte: UInt8) -> Answer? {
            switch byte {
            case 0x0D, 0x0A: return .entered(String(decoding: bytes, as: UTF8.self))
            case 0x03, 0x1B: return .cancelled                       // Ctrl-C, Esc
            case 0x04: return bytes.isEmpty ? .cancelled : nil       // Ctrl-D
            case 0x15: bytes.removeAll()                             // Ctrl-U
            case 0x7F, 0x08:                                         // Backspace: one character
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
            default: if byte >= 0x20 || byte == 0x09 { bytes.append(byte) }
            }
            return nil
        }
    }
}
