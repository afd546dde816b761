import Foundation

/// The themes shipped in `themes/`, compiled into the binary so that `--theme light` works
/// wherever the binary is run. A test holds each text equal to its file in `themes/`: edit
/// the file, then copy it here.
package enum BuiltInThemes {
    /// Each shipped theme's name and file text, `default` first.
    package static let files: [(name: String, text: String)] = [
        ("default", #"""
            # The default theme: the terminal's own background, colour for meaning.
            header        = black   cyan
            status        = black   white
            tree          = default default
            tree-selected = black   cyan     bold
            grid          = default default
            grid-header   = cyan    default  bold
            grid-selected = black   white
            decrypted     = green   default
            locked        = red     default  bold
            null          = bright-black default
            blob          = magenta default
            marker        = yellow  default
            staged        = yellow  default  bold
            error         = white   red      bold
            dialog        = black   white
            changed       = black   yellow
            """# + "\n"),
        ("high-contrast", #"""
            # Maximum contrast: white on black, meaning carried by attributes as well as colour.
            header        = black   bright-white bold
            status        = black   bright-white
            tree          = bright-white black
            tree-selected = black   bright-yellow bold
            grid          = bright-white black
            grid-header   = bright-white black   bold underline
            grid-selected = black   bright-yellow bold
            decrypted     = bright-green black   bold
            locked        = bright-red black     bold reverse
            null          = bright-white black   dim
            blob          = bright-magenta black bold
            marker        = bright-yellow black  bold
            staged        = bright-yellow black  bold underline
            error         = bright-white red     bold
            dialog        = black   bright-white bold
            changed       = black   bright-yellow bold
            """# + "\n"),
        ("light", #"""
            # For light terminal backgrounds.
            header        = white   blue
            status        = black   bright-white
            tree          = black   default
            tree-selected = white   blue     bold
            grid          = black   default
            grid-header   = blue    default  bold
            grid-selected = black   bright-cyan
            decrypted     = green   default  bold
            locked        = red     default  bold
            null          = bright-black default
            blob          = magenta default
            marker        = #b35900 default
            staged        = #b35900 default  bold
            error         = white   red      bold
            dialog        = black   bright-white
            changed       = black   #ffd27f
            """# + "\n"),
    ]
}
