/*
 * Review findings on issue 8's hardening (tests for each fixed defect; the
 * defect number of the review is named in each test's comment).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sc_test_util.h"
#include "snapcommit/backend.h"
#include "snapshot.h"
#include "store_backends.h"
#include "table_internal.h"

#define CORRUPT(call, needle)                                                                                  \
    do {                                                                                                       \
        int rc_ = (call);                                                                                      \
        cr_assert_eq(rc_, SC_ECORRUPT, "%s: got %s: %s", #call, sc_error_name(rc_), sc_error_message());       \
        cr_assert(strstr(sc_error_message(), needle), "%s: message \"%s\" lacks \"%s\"", #call,                \
                  sc_error_message(), needle);                                                                 \
    } while (0)

/* ---- 12: a custom backend sets its own messages through the public API ---- */

static int refusing_get(void *self, uint8_t **d, size_t *n, sc_object_info *i, const char *key) {
    (void)self, (void)d, (void)n, (void)i;
    return sc_backend_error(SC_EAUTH, "vault backend: token for %s expired", key);
}
static int refusing_head(void *self, sc_object_info *i, const char *key) {
    (void)self, (void)i, (void)key;
    return sc_backend_error(SC_EIO, NULL);
}

static int no_put(void *self, sc_object_info *i, const char *key, const uint8_t *d, size_t n) {
    (void)self, (void)i, (void)key, (void)d, (void)n;
    return SC_EIO;
}
static int no_list(void *self, sc_list_page *out, const char *p, const char *a, size_t m) {
    (void)self, (void)out, (void)p, (void)a, (void)m;
    return SC_EIO;
}
static int no_del(void *self, const char *key) {
    (void)self, (void)key;
    return SC_EIO;
}

Test(hardening, backend_sets_error_message) {
    static sc_store_ops ops = {.version = SC_STORE_OPS_VERSION, .name = "vault", .get = refusing_get,
                               .head = refusing_head, .put = no_put, .put_if_absent = no_put, .list = no_list,
                               .del = no_del};
    sc_store *s;
    cr_assert_eq(sc_store_wrap(&s, &ops, NULL), 0, "%s", sc_error_message());
    uint8_t *d;
    size_t n;
    cr_assert_eq(sc_store_get(s, &d, &n, NULL, "metadata/table.json"), SC_EAUTH);
    cr_assert_str_eq(sc_error_message(), "vault backend: token for metadata/table.json expired");
    sc_object_info info;
    cr_assert_eq(sc_store_head(s, &info, "k"), SC_EIO);
    cr_assert_str_eq(sc_error_message(), sc_strerror(SC_EIO));
    sc_store_free(s);
}
