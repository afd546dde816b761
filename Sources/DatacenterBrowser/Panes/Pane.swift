/// One part of the browser's screen: the tree, the grid, the inspector, the DAO panel, the
/// SQL console, the staged edits. A pane owns its state; with focus it takes the keys and
/// answers each with `PaneEffect`s, which the browser carries out (focus, status line,
/// commands, other panes). It draws itself into the area the frame gives it, and declares
/// the keys it takes: the help (`H`) is built from these declarations, so it lists what the
/// panes take.
protocol Pane: SendableMetatype {
    /// Handles `key` while the pane has focus; `context` is what it may read of the rest.
    mutating func handle(_ key: Key, context: PaneContext) -> [PaneEffect]

    /// Draws the pane into `area` of `screen`; `focused` when it has the keys. Drawing never
    /// changes state.
    func draw(into screen: inout ScreenGrid, area: PaneArea, focused: Bool)

    /// The help's lines for the keys this pane takes (two-space indent, keys, then what they
    /// do), in the order the help shows them.
    static var keyHelp: [String] { get }
}
