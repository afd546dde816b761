/// `Ctrl-R` in the console: the history as a list filtered by what is typed (any part of
/// a line, any case), newest first, as a shell's reverse search lists it. `↑ ↓` (or
/// `Ctrl-R` again) move in the list, `Enter` puts the line chosen in the input, `Esc`
/// leaves the input as it was.
struct HistorySearch: Equatable {
    /// The text typed to filter the lines.
    private(set) var query = ""
    /// The position of the line chosen among the matches.
    private(set) var selected = 0
    /// The history's lines, oldest first.
    let entries: [String]

    /// What became of a key.
    enum Outcome: Equatable {
        case searching
        case cancelled
        case chosen(String)
    }

    /// The lines holding the query, newest first, each once.
    var matches: [String] {
        var seen = Set<String>()
        let lowered = query.lowercased()
        return entries.reversed().filter { (lowered.isEmpty || $0.lowercased().contains(lowered)) && seen.insert($0).inserted }
    }

    /// One key.
    mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape: return .cancelled
        case .enter:
            let found = matches
            return found.indices.contains(selected) ? .chosen(found[selected]) : .cancelled
        case .up, .character("\u{12}"): selected = min(selected + 1, max(0, matches.count - 1))
        case .down: selected = max(0, selected - 1)
        case .backspace:
            if !query.isEmpty { query.removeLast() }
            selected = 0
        case .character(let c) where !c.isASCII || (c.asciiValue.map { $0 >= 0x20 && $0 != 0x7F } ?? false):
            query.append(c)
            selected = 0
        default: break
        }
        return .searching
    }
}
