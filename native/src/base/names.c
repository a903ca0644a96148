/* Names of commit kinds and strategies, and the default retry policy. */
#include <strings.h>

#include "snapcommit/error.h"
#include "snapcommit/types.h"

static const char *const kind_names[] = {"APPEND", "COMPACT", "OVERWRITE", "ANALYZE"};
static const char *const strategy_names[] = {"auto", "rename", "conditional", "head", "tracker"};

const char *sc_commit_kind_name(sc_commit_kind kind) {
    if ((unsigned)kind >= sizeof kind_names / sizeof *kind_names) return NULL;
    return kind_names[kind];
}

int sc_commit_kind_parse(sc_commit_kind *out, const char *name) {
    for (unsigned i = 0; i < sizeof kind_names / sizeof *kind_names; i++) {
        if (strcasecmp(name, kind_names[i]) == 0) {
            *out = (sc_commit_kind)i;
            return 0;
        }
    }
    return SC_EINVAL;
}

const char *sc_strategy_name(sc_strategy_kind kind) {
    if ((unsigned)kind >= sizeof strategy_names / sizeof *strategy_names) return NULL;
    return strategy_names[kind];
}

int sc_strategy_parse(sc_strategy_kind *out, const char *name) {
    for (unsigned i = 0; i < sizeof strategy_names / sizeof *strategy_names; i++) {
        if (strcasecmp(name, strategy_names[i]) == 0) {
            *out = (sc_strategy_kind)i;
            return 0;
        }
    }
    return SC_EINVAL;
}

void sc_retry_policy_default(sc_retry_policy *out) {
    out->max_retries = SC_RETRY_UNBOUNDED;
    out->min_wait_ms = 10;
    out->max_wait_ms = 10000;
    out->timeout_ms = SC_COMMIT_DEFAULT_TIMEOUT_MS;
}
