/// Where the frame puts things on a screen of a size: the header on the first line, the
/// status line on the last, the tree on the left (hidden with `\`, sized with `<` `>`) and
/// the pane with focus on its right.
struct FrameLayout {
    /// The screen's width in cells.
    var width: Int
    /// The screen's height in lines.
    var height: Int
    /// The tree's width set with `<` `>` in the tree; nil: a third of the screen.
    var treeWidthChosen: Int?
    /// True while `\` hides the tree (the panes on its right take the whole width).
    var treeHidden = false

    /// Lines available to the panes (between the header and the status line).
    var bodyHeight: Int { max(0, height - 2) }
    /// Rows of data the grid shows (below its column header).
    var visibleRowCount: Int { max(1, bodyHeight - 1) }
    /// Columns of the tree: a third of the screen, kept between 14 and 40, or what `<` `>`
    /// chose (at least 10, leaving the pane 20); 0 while hidden.
    var treeWidth: Int {
        if treeHidden { return 0 }
        guard let chosen = treeWidthChosen else { return min(40, max(14, width / 3)) }
        return max(0, min(max(10, chosen), width - 20))
    }
    /// The tree's place: the left column, between the header and the status line.
    var treeArea: PaneArea { PaneArea(x: 0, y: 1, width: treeWidth, height: bodyHeight) }
    /// The right-hand pane's place, right of the tree and its border (the whole width while
    /// the tree is hidden).
    var paneArea: PaneArea {
        let left = treeWidth == 0 ? 0 : treeWidth + 1
        return PaneArea(x: left, y: 1, width: width - left, height: bodyHeight)
    }
}

/// What the status line says: the message now, if any (an error in the error colour), and
/// the last one said, which `Ctrl-P` shows whole after it is gone.
struct StatusLine {
    /// What the status line says, if anything.
    var message: (text: String, isError: Bool)? {
        didSet { if let message { last = message.text } }
    }
    /// The last thing said, kept after it is cleared (a long message is cut at the screen's width).
    var last: String?
}

/// The themes `t` cycles through, the one in use, and the theme files that could not be used.
struct ThemeChoice {
    /// The themes, never empty.
    let themes: [Theme]
    /// The index in `themes` of the one in use.
    var index = 0
    /// The theme files skipped, each with its file, line and what is wrong.
    let errors: [ThemeError]
    /// The theme in use.
    var theme: Theme { themes[index] }
}
