#ifndef DATACENTER_CSQLITE_SHIM_H
#define DATACENTER_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro cast of -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type dc_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic; expose the one integer form we use.
static inline int dc_sqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}
#endif
