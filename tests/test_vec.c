/* The array growth helper: doubling, room already there, and sizes that cannot fit. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapcommit/error.h"
#include "base/vec.h"

/* Under AddressSanitizer a huge allocation must fail with NULL, as it does in production, not abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

Test(vec, grows_by_doubling_from_the_first_capacity) {
    int *items = NULL;
    size_t cap = 0;
    int rc;
    SC_VEC_RESERVE(rc, items, cap, 1, 4, "test ints");
    cr_assert_eq(rc, 0, "%s", sc_error_message());
    cr_assert_eq(cap, 4);
    for (int i = 0; i < 1000; i++) {
        SC_VEC_RESERVE(rc, items, cap, (size_t)i + 1, 4, "test ints");
        cr_assert_eq(rc, 0, "%s", sc_error_message());
        items[i] = i;
    }
    cr_assert_eq(cap, 1024, "4 doubled until 1000 fit: %zu", cap);
    for (int i = 0; i < 1000; i++) cr_assert_eq(items[i], i, "contents kept across growth");
    /* A large jump doubles as often as needed in one call. */
    SC_VEC_RESERVE(rc, items, cap, 5000, 4, "test ints");
    cr_assert_eq(rc, 0);
    cr_assert_eq(cap, 8192);
    free(items);
}

Test(vec, room_already_there_moves_nothing) {
    size_t cap = 8;
    char *items = malloc(cap);
    char *before = items;
    int rc;
    SC_VEC_RESERVE(rc, items, cap, 8, 64, "test bytes");
    cr_assert_eq(rc, 0);
    cr_assert_eq(items, before);
    cr_assert_eq(cap, 8);
    SC_VEC_RESERVE(rc, items, cap, 0, 64, "test bytes");
    cr_assert_eq(rc, 0);
    cr_assert_eq(cap, 8);
    free(items);
}

Test(vec, sizes_past_size_max_are_elimit_and_change_nothing) {
    uint64_t *items = NULL;
    size_t cap = 0;
    int rc;
    SC_VEC_RESERVE(rc, items, cap, SIZE_MAX / sizeof *items + 1, 16, "test words");
    cr_assert_eq(rc, SC_ELIMIT, "%s", sc_error_name(rc));
    cr_assert(strstr(sc_error_message(), "test words"), "%s", sc_error_message());
    cr_assert_null(items);
    cr_assert_eq(cap, 0);
    /* Doubling near the top stops at the largest count that fits instead of wrapping. */
    void *raw = NULL;
    size_t rcap = SIZE_MAX / 2 + 1;
    rc = sc_vec_reserve(&raw, &rcap, SIZE_MAX, 2, 16, "test pairs");
    cr_assert_eq(rc, SC_ELIMIT, "%s", sc_error_name(rc));
    cr_assert_eq(rcap, SIZE_MAX / 2 + 1);
}

Test(vec, out_of_memory_keeps_the_array) {
    char *items = malloc(16);
    items[0] = 'k';
    size_t cap = 16;
    int rc;
    /* Fits size_t, but no allocator hands out half the address space. */
    SC_VEC_RESERVE(rc, items, cap, SIZE_MAX / 2, 16, "test bytes");
    cr_assert_eq(rc, SC_ENOMEM, "%s", sc_error_name(rc));
    cr_assert(strstr(sc_error_message(), "out of memory growing test bytes"), "%s", sc_error_message());
    cr_assert_eq(cap, 16);
    cr_assert_eq(items[0], 'k');
    free(items);
}
