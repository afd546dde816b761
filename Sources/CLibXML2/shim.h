#ifndef DATACENTER_CLIBXML2_SHIM_H
#define DATACENTER_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU; ICU's types then clash with Foundation's copy in a clean
   build ("'UErrorCode' has different definitions"). We never use libxml2's ICU encodings. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/// xmlFree is a mutable C global (a function pointer); Swift 6 rejects reading it directly.
static inline void dc_xml_free(void *p) { xmlFree(p); }
#endif
