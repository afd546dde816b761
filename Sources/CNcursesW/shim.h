#ifndef DATACENTER_CNCURSESW_SHIM_H
#define DATACENTER_CNCURSESW_SHIM_H
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <ncursesw/curses.h>

/* Swift 6 rejects reads of mutable C globals and cannot import function-like macros. */
static inline WINDOW *dc_stdscr(void) { return stdscr; }
static inline int dc_lines(void) { return LINES; }
static inline int dc_cols(void) { return COLS; }
static inline int dc_color_pair(int n) { return COLOR_PAIR(n); }
#endif
