/* Growth of heap arrays: one place for the doubling and its overflow checks. */
#include "base/vec.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/error_internal.h"

int sc_vec_reserve(void **items, size_t *cap, size_t need, size_t size, size_t first, const char *what) {
    if (need <= *cap) return 0;
    size_t max = SIZE_MAX / (size ? size : 1);
    if (need > max) return sc_error_set(SC_ELIMIT, "%s: %zu items do not fit in memory", what, need);
    size_t ncap = *cap ? *cap : (first ? first : 1);
    while (ncap < need) ncap = ncap > max / 2 ? max : ncap * 2;
    void *p = realloc(*items, ncap * size);
    if (!p) return sc_error_set(SC_ENOMEM, "out of memory growing %s to %zu items", what, ncap);
    *items = p;
    *cap = ncap;
    return 0;
}
