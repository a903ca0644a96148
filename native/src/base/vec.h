/* Growth of heap arrays (internal): amortised doubling with every size computation overflow-checked. */
#ifndef SC_VEC_H
#define SC_VEC_H

#include <stddef.h>

/*
 * Make room for `need` items of `size` bytes in *items, an array of *cap items. When it has to grow,
 * the capacity doubles (from `first` for an empty array) until it holds `need`, so n pushes cost O(n).
 * SC_ELIMIT when the bytes would overflow size_t, SC_ENOMEM when realloc fails; on failure *items and
 * *cap are unchanged (still owned by the caller) and the message names `what`.
 */
int sc_vec_reserve(void **items, size_t *cap, size_t need, size_t size, size_t first, const char *what);

/* sc_vec_reserve for a typed array `arr` (any T *) and its size_t capacity; sets rc. */
#define SC_VEC_RESERVE(rc, arr, cap, need, first, what)                                       \
    do {                                                                                      \
        void *vec_items_ = (arr);                                                             \
        (rc) = sc_vec_reserve(&vec_items_, &(cap), (need), sizeof *(arr), (first), (what));   \
        (arr) = vec_items_;                                                                   \
    } while (0)

#endif
