import CNcursesW
import DatacenterBrowser
import Foundation

/// The terminal edge of the browser: ncurses set up and torn down, a `ScreenGrid` drawn,
/// and keys, clicks, wheel notches and resizes turned into `BrowserEvent`s.
final class CursesTerminal {
    private var pairs: [String: Int16] = [:]
    /// The frame curses holds, as `draw` last gave it (nil once the screen was cleared), and
    /// the theme it was drawn in: the next frame hands curses only what changed.
    private var shown: ScreenGrid?
    private var shownTheme: Theme?
    /// Each role's attributes and colour pair in `shownTheme` (`roleStyle`).
    private var roleStyles: [StyleRole: (attributes: attr_t, pair: Int16)] = [:]
    private var colorCount: Int32 = 0
    private var started = false
    /// True when this edge turned SGR mouse reports on itself and reads them
    /// (`SGRMouseReport`): the terminal's description has the older encoding, in which
    /// clicks beyond column 223 cannot be sent.
    private var readsSGRMouse = false
    /// Characters read past an `ESC` that turned out not to be a mouse report, given back
    /// one at a time before curses is read again.
    private var pending: [wint_t] = []

    /// True between the marks of a bracketed paste: its line breaks arrive as Ctrl-J (a new
    /// line in the console, Enter elsewhere) and its tabs as spaces, not as Enter and Tab.
    private var pasting = false
    /// The text of the paste being read, handed on whole as one `.paste` event when its end
    /// mark comes (or, for a paste longer than what the terminal sent at once, in parts).
    private var pasted: String?

    /// Starts curses: raw keys, no echo, keypad and mouse, colours if the terminal has them.
    ///
    /// The character type comes from the environment, so curses encodes output as the
    /// terminal expects. The grid is laid out with UTF-8 widths (`TerminalText`) and draws
    /// box characters, so when the environment's character type is not UTF-8 (say `LANG`
    /// unset, the "C" locale) it is set to C.UTF-8: curses then counts the same widths the
    /// layout did, instead of taking every non-ASCII character as unprintable. Only the
    /// character type: curses needs no other category, the C library's messages (`strerror`)
    /// stay in the English of the browser's own, and the other categories' files are not
    /// read at each start.
    func start() {
        setlocale(LC_CTYPE, "")
        if dc_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        initscr()
        started = true
        raw()
        nonl()      // Enter arrives as CR, Ctrl-J as LF: the console's editor tells them apart
        noecho()
        keypad(dc_stdscr(), true)
        defineCursorKeysOfBothModes()
        curs_set(0)
        set_escdelay(25)
        if has_colors() {
            start_color()
            use_default_colors()
            colorCount = dc_colors()
        }
        mousemask(dc_mouse_all(), nil)
        mouseinterval(0)
        // ncurses (6.4 at least) flushes its output at every cursor move until the screen
        // has once been left and resumed, so a frame went out as one `write` per line (80
        // of them for a full screen, each waking the terminal). Leaving and resuming at once,
        // before anything is drawn, puts it in its running state: a frame is then one write.
        endwin()
        refresh()
        if dc_terminfo_mouse_is_sgr() == 0 {
            readsSGRMouse = true
            writeToTerminal("\u{1B}[?1006h")
        }
        writeToTerminal("\u{1B}[?2004h")   // bracketed paste: a paste's line breaks are not Enter
    }

    /// The cursor keys (arrows, Home, End) as a terminal sends them in either cursor-key mode.
    ///
    /// The terminal's description names the keypad mode's sequences (`ESC O B` for ↓ on
    /// xterm), which the terminal sends only once curses turned that mode on: curses does so
    /// at its first read, after the first frame, and keys typed before (at start-up) come in
    /// the normal mode's form (`ESC [ B`). Without both, those read as Escape, `[` and `B`.
    private static let cursorKeySequences: [(sequence: String, key: Int32)] = [
        ("A", KEY_UP), ("B", KEY_DOWN), ("C", KEY_RIGHT), ("D", KEY_LEFT), ("H", KEY_HOME), ("F", KEY_END),
    ].flatMap { final, key in [("\u{1B}[" + final, key), ("\u{1B}O" + final, key)] }
        + [("\u{1B}[1~", KEY_HOME), ("\u{1B}[4~", KEY_END)]

    /// Teaches curses every sequence of `cursorKeySequences` (those it knows already stay).
    private func defineCursorKeysOfBothModes() {
        for (sequence, key) in Self.cursorKeySequences where key_defined(sequence) != key {
            _ = define_key(sequence, key)
        }
    }

    /// Writes a control sequence straight to the terminal, past curses (which draws only
    /// what its screen holds).
    private func writeToTerminal(_ text: String) {
        let sequence = Array(text.utf8)
        var written = 0
        while written < sequence.count {
            let result = sequence[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if result < 0 { if errno == EINTR { continue } else { return } }
            written += result
        }
    }

    /// Restores the terminal; safe to call twice.
    func stop() {
        guard started else { return }
        started = false
        if readsSGRMouse { writeToTerminal("\u{1B}[?1006l") }
        writeToTerminal("\u{1B}[?2004l")
        endwin()
    }

    var size: (width: Int, height: Int) { (Int(dc_cols()), Int(dc_lines())) }

    /// True once the terminal has hung up (its window closed, its session killed): input
    /// then reads as end-of-file at once, and the loop must end rather than spin.
    var hasHungUp: Bool {
        var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) >= 0 else { return false }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// Draws the grid in the theme's colours and shows it. Each cell is handed to curses as
    /// one `cchar_t` holding all its scalars (a spacing one and the zero-width ones after
    /// it), so curses counts the same widths as the layout and a ZWJ sequence reaches the
    /// terminal whole. Curses keeps at most `CCHARW_MAX` (5) scalars a cell: zero-width
    /// scalars beyond that, which only stacked combining marks reach, are not drawn.
    func draw(_ grid: ScreenGrid, theme: Theme) {
        if theme != shownTheme {
            shownTheme = theme
            roleStyles = [:]
            shown = nil
        }
        let capacity = Int(dc_cchar_max())
        var wide = [wchar_t](repeating: 0, count: capacity + 1)
        let lines = Int(dc_lines()), columns = Int(dc_cols())
        // Only the cells that changed since the last frame: curses holds the others already.
        // Cells side by side mostly share a role: the last one's style is kept at hand.
        var last: (role: StyleRole, style: (attributes: attr_t, pair: Int16))?
        grid.forEachCellToDraw(after: shown) { x, y, cell in
            guard y < lines, x < columns else { return }
            let style: (attributes: attr_t, pair: Int16)
            if let last, last.role == cell.role { style = last.style } else { style = roleStyle(cell.role, in: theme) }
            last = (cell.role, style)
            var count = 0
            for scalar in cell.text.unicodeScalars where count < capacity {
                wide[count] = wchar_t(bitPattern: scalar.value)
                count += 1
            }
            wide[count] = 0
            _ = dc_put_cell(Int32(y), Int32(x), wide, style.attributes, style.pair)
        }
        shown = grid
        refresh()
    }

    /// The attributes and colour pair of `role` in `theme`, worked out once per theme: a
    /// frame asks for them thousands of times.
    private func roleStyle(_ role: StyleRole, in theme: Theme) -> (attributes: attr_t, pair: Int16) {
        if let known = roleStyles[role] { return known }
        let style = theme.style(role)
        let worked = (attributes(style), pair(style))
        roleStyles[role] = worked
        return worked
    }

    /// Puts `text` on the terminal's clipboard with OSC 52 (`CellCopy.osc52`), written
    /// straight to the terminal after curses has drawn, so it lands between two frames.
    func copyToClipboard(_ text: String) {
        writeToTerminal(CellCopy.osc52(text))
    }

    private func attributes(_ style: CellStyle) -> attr_t {
        var a: attr_t = 0
        if style.bold { a |= dc_attr_bold() }
        if style.dim { a |= dc_attr_dim() }
        if style.underline { a |= dc_attr_underline() }
        if style.reverse { a |= dc_attr_reverse() }
        if colorCount == 0, !style.reverse, style.background != .terminalDefault { a |= dc_attr_reverse() }
        return a
    }

    /// A colour pair for the style's colours, allocated on first use.
    private func pair(_ style: CellStyle) -> Int16 {
        guard colorCount > 0 else { return 0 }
        func index(_ color: TerminalColor) -> Int16 {
            guard let i = color.standardIndex else { return -1 }
            return Int16(colorCount >= 16 ? i : i % 8)
        }
        let fg = index(style.foreground), bg = index(style.background)
        let key = "\(fg):\(bg)"
        if let existing = pairs[key] { return existing }
        let number = Int16(pairs.count + 1)
        guard Int32(number) < dc_color_pairs() else { return 0 }
        init_pair(number, fg, bg)
        pairs[key] = number
        return number
    }

    /// A resize event when the terminal's size changed since curses last knew it. Polled,
    /// because a SIGWINCH does not always reach curses in a multithreaded process.
    func pollResize() -> BrowserEvent? {
        var rows: Int32 = 0, cols: Int32 = 0
        guard dc_terminal_size(&rows, &cols) == 0, rows != dc_lines() || cols != dc_cols() else { return nil }
        resize_term(rows, cols)
        clear()
        shown = nil
        return .resize(width: Int(cols), height: Int(rows))
    }

    /// A pipe whose write end wakes `waitForInput` from any thread (`wakeUp()`): the command
    /// runner's results reach the screen at once, not at the loop's next look at the keys.
    private lazy var wakePipe: (read: Int32, write: Int32) = {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return (-1, -1) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }()

    /// The function that wakes `waitForInput` (safe from any thread).
    func wakeUpFunction() -> @Sendable () -> Void {
        let fd = wakePipe.write
        return {
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)     // non-blocking: a full pipe already wakes the loop
        }
    }

    /// Waits until a key is ready, the wake-up pipe is written, a signal (a resize) comes,
    /// or `milliseconds` pass; empties the pipe.
    func waitForInput(milliseconds: Int32) {
        var descriptors = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        _ = poll(&descriptors, wakePipe.read >= 0 ? 2 : 1, milliseconds)
        if descriptors[1].revents & Int16(POLLIN) != 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(wakePipe.read, &buffer, buffer.count) > 0 {}
        }
    }

    /// The next event, or nil when none came within `timeout` milliseconds.
    func nextEvent(timeout milliseconds: Int32) -> BrowserEvent? {
        while true {
            let event = readEvent(timeout: pasted == nil ? milliseconds : 0)
            if pasting, pasted == nil { pasted = "" }                 // the start mark was read
            guard let text = pasted else { return event }
            switch event {
            case .key(.character(let character))?: pasted = text + String(character)
            case .key(.enter)?: pasted = text + "\n"
            case .some: continue                                      // a function key inside a paste: dropped
            case nil:
                // The end mark, or nothing more sent for now: the text so far goes on whole.
                if !pasting { pasted = nil } else if text.isEmpty { return nil } else { pasted = "" }
                return text.isEmpty ? nil : .paste(text)
            }
        }
    }

    /// The next event curses has, as keys: `nextEvent` gathers a paste's into one.
    private func readEvent(timeout milliseconds: Int32) -> BrowserEvent? {
        if !pending.isEmpty { return event(forCharacter: pending.removeFirst()) }
        if let resize = pollResize() { return resize }
        timeout(milliseconds)
        var character: wint_t = 0
        let status = get_wch(&character)
        if status == ERR { return nil }
        if status != KEY_CODE_YES, character == 27 { return eventAfterEscape() }
        if status == KEY_CODE_YES {
            switch Int32(character) {
            case KEY_UP: return .key(.up)
            case KEY_DOWN: return .key(.down)
            case KEY_LEFT: return .key(.left)
            case KEY_RIGHT: return .key(.right)
            case KEY_PPAGE: return .key(.pageUp)
            case KEY_NPAGE: return .key(.pageDown)
            case KEY_HOME: return .key(.home)
            case KEY_END: return .key(.end)
            case KEY_ENTER: return .key(.enter)
            case KEY_BTAB: return .key(.backTab)
            case KEY_BACKSPACE: return .key(.backspace)
            case KEY_DC: return .key(.control("d"))     // Delete: the line editor's delete-forward
            case KEY_RESIZE:
                clear()
                shown = nil
                let (w, h) = size
                return .resize(width: w, height: h)
            case KEY_MOUSE:
                var event = MEVENT()
                guard getmouse(&event) == OK else { return nil }
                if event.bstate & dc_button4_pressed() != 0 { return .wheel(x: Int(event.x), y: Int(event.y), delta: -1) }
                if event.bstate & dc_button5_pressed() != 0 { return .wheel(x: Int(event.x), y: Int(event.y), delta: 1) }
                if event.bstate & dc_button1_pressed() != 0 { return .click(x: Int(event.x), y: Int(event.y)) }
                return nil
            default: return nil
            }
        }
        return event(forCharacter: character)
    }

    /// What follows an `ESC`: a mouse report's event, the start or end of a paste (bracketed
    /// paste mode), or the Escape key (the characters read after it given back through
    /// `pending`). A report or a paste's mark arrives in one write, so what is not there at
    /// once is not part of one.
    private func eventAfterEscape() -> BrowserEvent? {
        var read: [wint_t] = []
        var characters: [Character] = []
        timeout(0)
        while couldContinue(characters) {
            var character: wint_t = 0
            let status = get_wch(&character)
            guard status == OK, let scalar = Unicode.Scalar(UInt32(character)) else {
                if status == KEY_CODE_YES { ungetch(Int32(character)) } // a function key: curses reads it again
                pending += read
                return .key(.escape)
            }
            read.append(character)
            characters.append(Character(scalar))
            switch String(characters) {
            case Self.pasteStart:
                pasting = true
                return nil
            case Self.pasteEnd:
                pasting = false
                return nil
            default: break
            }
        }
        if readsSGRMouse, case .report(let report, _) = SGRMouseReport.read(characters) { return report.event }
        pending += read
        return .key(.escape)
    }

    /// What follows `ESC` in bracketed paste mode before a paste, and after it.
    private static let pasteStart = "[200~", pasteEnd = "[201~"

    /// True while `characters` (read after an `ESC`) may still become a mouse report or a
    /// paste's mark.
    private func couldContinue(_ characters: [Character]) -> Bool {
        let text = String(characters)
        if Self.pasteStart.hasPrefix(text) || Self.pasteEnd.hasPrefix(text) { return true }
        guard readsSGRMouse, case .incomplete = SGRMouseReport.read(characters) else { return false }
        return true
    }

    /// The event of a character curses read (not a function key).
    private func event(forCharacter character: wint_t) -> BrowserEvent? {
        switch character {
        case 13: return .key(pasting ? .control("j") : .enter)
        case 10: return .key(.control("j"))               // Ctrl-J, or a line break in a paste
        case 27: return .key(.escape)
        case 9: return .key(pasting ? .character(" ") : .tab)
        case 127, 8: return .key(.backspace)
        default:
            guard let scalar = Unicode.Scalar(UInt32(character)) else { return nil }
            return .key(.character(Character(scalar)))
        }
    }
}
