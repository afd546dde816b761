/// The lines entered at one prompt (SQL run in the console, queries searched for), oldest
/// first, that ↑ and ↓ walk through in a `LineEditor`.
///
/// In memory only, and bounded: past `capacity` lines the oldest go, so a long session
/// cannot grow it without end. A line equal to the newest one is not recorded again, so
/// running the same statement ten times costs one ↑, not ten.
///
/// Walking keeps the line that was being typed (the draft): the first step back saves it,
/// and stepping forward past the newest line gives it back, so looking something up in the
/// history never loses what was typed. Edits made to a recalled line are dropped when
/// walking on: the entries stay as they were entered.
package struct LineHistory: Equatable, Sendable {
    /// How many lines a history keeps unless told otherwise: enough for a working session,
    /// small enough that keeping it costs nothing.
    package static let defaultCapacity = 200

    /// The most lines kept (at least 1); recording one more drops the oldest.
    package let capacity: Int

    /// The lines, oldest first.
    package private(set) var entries: [String]

    /// The entry being shown while walking (an index into `entries`), or nil when the
    /// editor shows the draft: the line being typed.
    package private(set) var position: Int?

    /// The line that was being typed when the walk began, given back when walking forward
    /// past the newest entry. Meaningful only while `position` is not nil.
    package private(set) var draft = ""

    /// A history holding the last `capacity` lines of `entries` (oldest first), with
    /// adjacent repeats and blank lines left out as `record` would: so an existing list of
    /// lines (such as a console's) can be carried over as it is.
    package init(capacity: Int = LineHistory.defaultCapacity, entries: [String] = []) {
        self.capacity = max(1, capacity)
        self.entries = []
        for line in entries { record(line) }
    }

    /// True while ↑ has moved away from the draft and not come back.
    package var isWalking: Bool { position != nil }

    /// Adds `line` as the newest entry, unless it is blank (empty or only whitespace:
    /// nothing worth recalling) or equal to the newest one, and ends any walk (the next ↑
    /// starts again from the newest). Drops the oldest entries beyond `capacity`.
    package mutating func record(_ line: String) {
        stopWalking()
        guard !line.allSatisfy(\.isWhitespace), entries.last != line else { return }
        entries.append(line)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// One step back (↑): the entry before the one shown, or the newest when the walk
    /// begins, in which case `current` (the line being typed) is kept as the draft. Nil,
    /// and nothing changes, when there is nothing older.
    package mutating func older(current: String) -> String? {
        let next = (position ?? entries.count) - 1
        guard next >= 0 else { return nil }
        if position == nil { draft = current }
        position = next
        return entries[next]
    }

    /// One step forward (↓): the entry after the one shown, or the draft when stepping past
    /// the newest (which ends the walk). Nil, and nothing changes, when not walking.
    package mutating func newer() -> String? {
        guard let shown = position else { return nil }
        if shown + 1 < entries.count {
            position = shown + 1
            return entries[shown + 1]
        }
        let saved = draft
        stopWalking()
        return saved
    }

    /// Ends a walk without giving the draft back: what the editor shows stays the line
    /// being typed, and the next ↑ starts again from the newest entry.
    package mutating func stopWalking() {
        position = nil
        draft = ""
    }
}
