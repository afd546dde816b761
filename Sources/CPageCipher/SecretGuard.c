/*
 * Keeping keys out of core dumps: the process is made not dumpable and its core size limit
 * set to 0 once it holds a secret (SecretGuard in DatacenterKit calls this).
 */
#include "CPageCipher.h"

#include <sys/prctl.h>
#include <sys/resource.h>

int dc_protect_secrets(void) {
    int rc = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    struct rlimit limit;
    if (getrlimit(RLIMIT_CORE, &limit) == 0) {
        limit.rlim_cur = 0;
        if (setrlimit(RLIMIT_CORE, &limit) != 0) rc = -1;
    } else {
        rc = -1;
    }
    return rc;
}

int dc_process_is_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

long dc_core_size_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_CORE, &limit) != 0) return -1;
    return limit.rlim_cur == RLIM_INFINITY ? -2 : (long)limit.rlim_cur;
}
