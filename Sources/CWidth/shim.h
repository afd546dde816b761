#ifndef DATACENTER_CWIDTH_SHIM_H
#define DATACENTER_CWIDTH_SHIM_H
#include <locale.h>
#include <stddef.h>

/* The C library's column count of one wide character. <wchar.h> declares it only under
   _XOPEN_SOURCE, which the Swift importer's view of the C library does not define. */
extern int wcwidth(wchar_t character);

/* wcwidth(scalar) answered for `locale` (a UTF-8 one), whatever this thread's locale is:
   the thread's locale is switched around the call only (uselocale is per thread). */
static inline int dc_wcwidth_in(locale_t locale, unsigned int scalar) {
    locale_t previous = uselocale(locale);
    int width = wcwidth((wchar_t)scalar);
    if (previous != (locale_t)0) uselocale(previous);
    return width;
}
#endif
