#ifndef DATACENTER_CSQLITE_SHIM_H
#define DATACENTER_CSQLITE_SHIM_H
/// The system library is built with it (Debian's is, for the session extension): it declares
/// `sqlite3_preupdate_hook`, which records what a commit changes so that it can be undone.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast of -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type dc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic; expose the one integer form we use.
static inline int dc_sqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}
#endif
