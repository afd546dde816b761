/// One part of the browser's screen: the tree, the grid, the inspector, the DAO panel, the
/// SQL console, the staged edits. A pane owns its state; with focus it takes the keys and
/// answers each with `PaneEffect`s, which the browser carries out (focus, status line,
/// commands, other panes). It draws itself into the area the frame gives it, and declares
/// the keys it takes as `KeyCommand`s: it handles a key by looking it up in its `keyMap`, and
/// the help (`H`) and the status line's hints are made from the same maps, so they list
/// exactly what the panes take.
protocol Pane: SendableMetatype {
    /// Handles `key` while the pane has focus; `context` is what it may read of the rest.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect]

    /// Draws the pane into `area` of `screen`; `focused` when it has the keys. Drawing never
    /// changes state.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool)

    /// Every map of keys the pane has (one per state it takes keys in), in the order the
    /// help lists them.
    static var keyMaps: [KeyMap<Self>] { get }

    /// The map that takes the keys in the pane's state now: its hints are the status line's.
    var keyMap: KeyMap<Self> { get }

    /// The status line's hints while the pane has the keys (`keyMap`'s by default).
    var statusHints: [String] { get }

    /// What the help adds after the pane's keys (none by default).
    static var helpAfterKeys: [String] { get }
}

extension Pane {
    /// The status line's hints while the pane has the keys: its map's, unless the pane says
    /// more of its state (a run going on).
    var statusHints: [String] { keyMap.hints }

    /// What the help adds after the pane's keys (the console's dot-commands); none by default.
    static var helpAfterKeys: [String] { [] }
}
