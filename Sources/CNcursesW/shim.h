#ifndef DATACENTER_CNCURSESW_SHIM_H
#define DATACENTER_CNCURSESW_SHIM_H
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/* Swift 6 rejects reads of mutable C globals and cannot import function-like macros. */
static inline WINDOW *dc_stdscr(void) { return stdscr; }
static inline int dc_lines(void) { return LINES; }
static inline int dc_cols(void) { return COLS; }
static inline int dc_color_pair(int n) { return COLOR_PAIR(n); }
static inline attr_t dc_attr_bold(void) { return A_BOLD; }
static inline attr_t dc_attr_dim(void) { return A_DIM; }
static inline attr_t dc_attr_underline(void) { return A_UNDERLINE; }
static inline attr_t dc_attr_reverse(void) { return A_REVERSE; }
static inline int dc_colors(void) { return COLORS; }
static inline int dc_color_pairs(void) { return COLOR_PAIRS; }
static inline mmask_t dc_mouse_all(void) { return ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION; }
static inline mmask_t dc_button1_pressed(void) { return BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON1_RELEASED; }
static inline mmask_t dc_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t dc_button5_pressed(void) { return BUTTON5_PRESSED; }

#include <sys/ioctl.h>
#include <unistd.h>
/* The terminal's size as the kernel knows it (0 when unknown). */
static inline int dc_terminal_size(int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

#include <langinfo.h>
#include <string.h>
/* True when the terminal's description says its mouse reports are SGR (xterm's mode 1006),
   which curses then decodes itself; false for the older byte encoding (tmux, screen). */
static inline int dc_terminfo_mouse_is_sgr(void) {
    const char *kmous = tigetstr("kmous");
    return kmous != NULL && kmous != (char *)-1 && strcmp(kmous, "\033[<") == 0;
}

/* True when the current LC_CTYPE encodes characters as UTF-8. */
static inline int dc_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset != NULL && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

/* The most wide characters one cell holds: a spacing one and the zero-width ones after it. */
static inline int dc_cchar_max(void) { return CCHARW_MAX; }

/* Writes one cell: a NUL-terminated wide string, one spacing code point then zero-width ones
   (setcchar keeps at most CCHARW_MAX of them). */
static inline int dc_put_cell(int y, int x, const wchar_t *text, attr_t attributes, short pair) {
    cchar_t cell;
    if (setcchar(&cell, text, attributes, pair, NULL) != OK) return ERR;
    return mvadd_wch(y, x, &cell);
}
#endif
