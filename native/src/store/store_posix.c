/*
 * POSIX directory backend: one file per key under a root directory, for
 * local and shared file systems.
 *
 * Every write goes to a unique temp file next to its key and is published in
 * one step (rename, or rename-without-replace for put_if_absent), so readers
 * see a whole old or a whole new object, and an object never changes in
 * place.
 *
 * Durability is a write barrier (SC_CAP_DURABLE): a plain put that creates a
 * new key is published unsynced and remembered (its open descriptor and its
 * directory, a bounded number of each); the next conditional write, sync or
 * close first makes all of them durable, together with the claim's own temp
 * file, and only then renames the claim into place and fsyncs its directory.
 * A commit's manifests and its snapshot thus cost one barrier plus one
 * directory fsync, and a snapshot can never be durable while an object it
 * names is not; a crash before the barrier leaves at most unreferenced
 * objects (possibly short ones: their bytes were never synced). The barrier
 * is one syncfs(2) or an fsync of each pending file and directory
 * (sc_posix_sync in store.h); a put that replaces an existing key is synced
 * before its rename, so a durable old version is never swapped for bytes
 * that may not survive. Any failed barrier is remembered: the handle then
 * refuses every later barrier, because after a failed fsync the kernel may
 * have dropped the unsynced bytes and a retried fsync can succeed without
 * them. All paths are resolved against a descriptor of the root, so the
 * store keeps working if the process changes directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/utsname.h>
#include <sys/vfs.h>
#endif

#include "base/buf.h"
#include "base/error_internal.h"
#include "base/hash.h"
#include "store/store_backends.h"
#include "base/vec.h"
#include "base/env_internal.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* In-flight writes are named TMP_PREFIX + 16 hex digits; list() skips them. */
#define TMP_PREFIX ".tmp-"
#define TMP_PREFIX_LEN (sizeof TMP_PREFIX - 1)
/* Room for a key, or for its directory plus "/" and a temp name. */
#define KEY_PATH_CAP (SC_STORE_KEY_MAX + 32)

/* Directories with entries published by a plain put but not yet synced. */
#define MAX_PENDING_DIRS 8
/* Files published by a plain put but not yet synced (each keeps a descriptor
 * open); one more first runs the barrier. A commit writes three or four. */
#define MAX_PENDING_FILES 16
/* Directories a handle remembers having created (for posix_remove_created_dirs);
 * more are created normally but not remembered. */
#define MAX_CREATED_DIRS 16

/* Paths of directories created by this handle, in creation order (parents first). */
typedef struct created_dirs {
    char *path[MAX_CREATED_DIRS];
    int count;
} created_dirs;

typedef struct posix_store {
    int root_fd; /* -1 while the root does not exist: created by the first write, or by another
                    process (root_appeared looks again on every operation until then) */
    char *root;  /* canonical root path (absolute, as given while it is missing), for messages */
    char pending[MAX_PENDING_DIRS][SC_STORE_KEY_MAX];
    int pending_count;
    int pending_fd[MAX_PENDING_FILES];              /* open descriptors of unsynced published files */
    char pending_key[MAX_PENDING_FILES][SC_STORE_KEY_MAX]; /* their keys, for messages */
    int pending_files;
    int mode;            /* sc_posix_sync; AUTO is resolved once the root is open */
    char failure[512];   /* the first failed barrier ("" none): every later one is refused */
    sc_posix_sync_stats stats;
    sc_posix_sync_hook hook;
    void *hook_ctx;
    created_dirs made_root; /* the root and its parents, absolute, when this handle made them */
    created_dirs made_dirs; /* directories below the root, relative to it */
} posix_store;

/* Record "<what> <root>/<path>: <strerror>" and return the code for errno value err. */
static int posix_error(int err, const char *what, const char *root, const char *path) {
    char text[128];
    const char *reason = strerror_r(err, text, sizeof text);
    return sc_error_set(err == ENOMEM ? SC_ENOMEM : SC_EIO, "%s %s%s%s: %s", what, root,
                        *root && *path ? "/" : "", path, reason);
}

static int not_found(const posix_store *s, const char *key) {
    if (s->root_fd < 0)
        return sc_error_set(SC_ENOTFOUND, "%s/%s: no such object (the directory %s does not exist)", s->root, key,
                            s->root);
    return sc_error_set(SC_ENOTFOUND, "%s/%s: no such object", s->root, key);
}

/* What a non-regular file is, for messages. */
static const char *kind_name(mode_t mode) {
    if (S_ISDIR(mode)) return "an empty directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

/* A key holding something no store write creates: the table is damaged, never "absent". */
static int not_an_object(const posix_store *s, const char *key, mode_t mode) {
    return sc_error_set(SC_ECORRUPT, "%s/%s: is %s, not a regular file (refused: only snapcommit's own objects belong here)",
                        s->root, key, kind_name(mode));
}

/* 1 when directory `path` has no entries but "." and "..", 0 otherwise (or when unreadable). */
static int dir_is_empty(int root_fd, const char *path) {
    int fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    int empty = 1;
    struct dirent *e;
    while (empty && (e = readdir(d)) != NULL)
        if (!(e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))) empty = 0;
    closedir(d);
    return empty;
}

/*
 * Classify what stands at `key` (st from a stat that did not follow a final
 * symlink): 0 a regular file, SC_ENOTFOUND a directory of other keys (an
 * object store's prefix, so "absent"), SC_ECORRUPT anything else — an empty
 * directory, a FIFO, a device, a socket: no write of the store makes them,
 * and treating them as absent lets a claim fail forever on a key that looks free.
 */
static int classify(const posix_store *s, const char *key, const struct stat *st, int via_link) {
    if (S_ISREG(st->st_mode)) return 0;
    /* A link to a directory is neither an object nor a prefix (list() does not
     * walk links): treating it as absent lets a claim fail forever on it. */
    if (S_ISDIR(st->st_mode) && via_link)
        return sc_error_set(SC_ECORRUPT, "%s/%s: is a symbolic link to a directory, not a regular file (refused)", s->root, key);
    if (S_ISDIR(st->st_mode) && !dir_is_empty(s->root_fd, key)) return not_found(s, key);
    return not_an_object(s, key, st->st_mode);
}

/*
 * A symbolic link at `key` is followed only while it stays inside the root;
 * one leading out of the table is refused. 0 with *resolved set (malloc'd
 * absolute path) to open instead, or an error.
 */
static int resolve_link(const posix_store *s, const char *key, char **resolved) {
    *resolved = NULL;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", s->root, key) >= sizeof path)
        return sc_error_set(SC_EINVAL, "%s/%s: path too long", s->root, key);
    char *real = realpath(path, NULL);
    if (!real) {
        /* A dangling or looping link is nothing a store write makes: damage, never
         * "absent" (a claim could then never succeed on a key that looks free). */
        if (errno == ENOENT || errno == ENOTDIR)
            return sc_error_set(SC_ECORRUPT, "%s/%s: is a dangling symbolic link (refused)", s->root, key);
        if (errno == ELOOP)
            return sc_error_set(SC_ECORRUPT, "%s/%s: is a looping symbolic link (refused)", s->root, key);
        return posix_error(errno, "resolving symbolic link", s->root, key);
    }
    size_t n = strlen(s->root);
    if (strncmp(real, s->root, n) != 0 || real[n] != '/') {
        int rc = sc_error_set(SC_ECORRUPT, "%s/%s: is a symbolic link leading out of the table (to %s); refused",
                              s->root, key, real);
        free(real);
        return rc;
    }
    *resolved = real;
    return 0;
}

/*
 * Check the directories along the first `len` bytes of `path` (up to its
 * last '/'), below the root, without following any link blindly: a symbolic
 * link is allowed only when it resolves to a directory inside the root (the
 * rule for links at keys), so no operation reads, writes or lists outside
 * the table; a FIFO, device or socket where a directory belongs is damage
 * named by its path. A missing component or a regular file ends the check:
 * the key is then absent (as on an object store), and the operation itself
 * says so. One fstatat per directory level (a snapshot key: one).
 * (Per component rather than openat2(RESOLVE_BENEATH): the same rule on
 * every kernel and for every operation, including rename and mkdir.)
 */
static int check_parents(const posix_store *s, const char *path, size_t len) {
    char prefix[KEY_PATH_CAP];
    for (size_t i = 0; i < len && i < sizeof prefix; i++) {
        if (path[i] != '/') continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        struct stat st;
        if (fstatat(s->root_fd, prefix, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0; /* absent: the op reports it */
        if (S_ISDIR(st.st_mode)) continue;
        if (S_ISREG(st.st_mode)) return 0;
        if (!S_ISLNK(st.st_mode)) return not_an_object(s, prefix, st.st_mode);
        char *real;
        int rc = resolve_link(s, prefix, &real);
        if (rc) return rc;
        int r = stat(real, &st);
        free(real);
        if (r != 0 || !S_ISDIR(st.st_mode))
            return sc_error_set(SC_ECORRUPT, "%s/%s: is a symbolic link to something other than a directory (refused)",
                                s->root, prefix);
    }
    return 0;
}

/* check_parents for a whole key. */
static int check_key_parents(const posix_store *s, const char *key) {
    return s->root_fd < 0 ? 0 : check_parents(s, key, strlen(key));
}

/* An open() that survives signals (NFS and FUSE can be interrupted). */
static int open_retry(int dir_fd, const char *path, int flags, mode_t mode) {
    int fd;
    do fd = openat(dir_fd, path, flags, mode);
    while (fd < 0 && errno == EINTR);
    return fd;
}

static int fsync_retry(int fd) {
    int r;
    do r = fsync(fd);
    while (r != 0 && errno == EINTR);
    return r;
}

/* Write all of data, across short writes and signals. -1 with errno on failure. */
static int write_all(int fd, const uint8_t *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO; /* no progress and no reason: do not spin */
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/*
 * fsync(fd) (call "file" or "dir") or syncfs(fd) ("fs"), counted and shown to
 * the test hook first. -1 with errno on failure, as the call itself.
 */
static int sync_call(posix_store *s, int fd, const char *call, const char *path) {
    if (s && s->hook) {
        int err = s->hook(s->hook_ctx, call, path);
        if (err) {
            errno = err;
            return -1;
        }
    }
    if (strcmp(call, "fs") == 0) {
        if (s) s->stats.fs_syncs++;
#ifdef __linux__
        int r;
        do r = syncfs(fd);
        while (r != 0 && errno == EINTR);
        return r;
#else
        errno = ENOSYS;
        return -1;
#endif
    }
    if (s && call[0] == 'd') s->stats.dir_syncs++;
    else if (s) s->stats.file_syncs++;
    return fsync_retry(fd);
}

/* Make the entries of directory `dir` (relative to base_fd, "" = base_fd itself) durable. */
static int sync_dir(posix_store *s, int base_fd, const char *root, const char *dir) {
    int fd = open_retry(base_fd, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return posix_error(errno, "opening directory", root, dir);
    int r = sync_call(s, fd, "dir", dir);
    int err = errno;
    close(fd);
    return r == 0 ? 0 : posix_error(err, "syncing directory", root, dir);
}

/* Sync the directory holding `path`, so that a new entry for path survives a crash. */
static int sync_parent(posix_store *s, int base_fd, const char *root, const char *path) {
    char parent[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) return sync_dir(s, base_fd, root, "");
    size_t n = slash == path ? 1 : (size_t)(slash - path); /* the parent of "/x" is "/" */
    memcpy(parent, path, n);
    parent[n] = '\0';
    return sync_dir(s, base_fd, root, parent);
}

/*
 * Create each missing directory along `path` (relative to base_fd), syncing
 * the parent of each one created: a new directory is only durable once its
 * parent is synced.
 */
static int mkdirs(posix_store *s, int base_fd, const char *root, const char *path, created_dirs *made) {
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof buf) return sc_error_set(SC_EINVAL, "path too long: %.200s...", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        /* Cut at each separator (and at the end), skipping runs of '/'. */
        if ((i < len && buf[i] != '/') || buf[i - 1] == '/') continue;
        char saved = buf[i];
        buf[i] = '\0';
        int rc = 0;
        /* EEXIST: there already, or a concurrent writer just made it and syncs it. */
        if (mkdirat(base_fd, buf, 0777) == 0) {
            rc = sync_parent(s, base_fd, root, buf);
            /* Later puts land in it without syncing its parent again: no barrier may
             * pass for this handle any more (see fail_barrier). */
            if (rc && s && !s->failure[0]) snprintf(s->failure, sizeof s->failure, "%s", sc_error_message());
            /* Remembered so that a failed init can take back exactly what it made. */
            if (made && made->count < MAX_CREATED_DIRS && (made->path[made->count] = strdup(buf)) != NULL)
                made->count++;
        }
        else if (errno != EEXIST)
            rc = posix_error(errno, "creating directory", root, buf);
        buf[i] = saved;
        if (rc) return rc;
    }
    return 0;
}

/* The directory part of key ("" at the top level) into dir, which has SC_STORE_KEY_MAX bytes. */
static void key_dir(char *dir, const char *key) {
    const char *slash = strrchr(key, '/');
    size_t n = slash ? (size_t)(slash - key) : 0;
    memcpy(dir, key, n);
    dir[n] = '\0';
}

/* Keys with a segment starting with TMP_PREFIX would collide with in-flight writes. */
static int check_key(const posix_store *s, const char *key) {
    for (const char *seg = key;;) {
        if (strncmp(seg, TMP_PREFIX, TMP_PREFIX_LEN) == 0)
            return sc_error_set(SC_EINVAL,
                                "%s/%s: names starting with \"" TMP_PREFIX
                                "\" are reserved for in-flight writes in a posix store",
                                s->root, key);
        const char *slash = strchr(seg, '/');
        if (!slash) return 0;
        seg = slash + 1;
    }
}

/*
 * The etag names the inode and its mtime: every write publishes a new file,
 * and the replaced inode is still alive when its successor is created, so
 * consecutive versions of a key always differ. (An inode number may be
 * reused later; posix offers no compare-and-swap on etags anyway.)
 */
static void info_from_stat(sc_object_info *out, const struct stat *st) {
    uint64_t mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
    out->size = (uint64_t)st->st_size;
    out->mtime_ms = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
    snprintf(out->etag, sizeof out->etag, "%llx-%llx-%llx", (unsigned long long)mtime_ns,
             (unsigned long long)st->st_size, (unsigned long long)st->st_ino);
}

/*
 * Write data into a new temp file next to key, not yet synced; its name goes
 * to tmp (KEY_PATH_CAP) and its open descriptor to *out_fd (the caller closes it).
 */
static int write_temp(posix_store *s, char *tmp, struct stat *st, int *out_fd, const char *key,
                      const uint8_t *data, size_t len) {
    *out_fd = -1;
    char dir[SC_STORE_KEY_MAX];
    key_dir(dir, key);
    int fd;
    for (int attempt = 0;; attempt++) {
        uint8_t rnd[8];
        char hex[2 * sizeof rnd + 1];
        int rc = sc_random_bytes(rnd, sizeof rnd); /* sc-env-exempt: a private name, never replayed */
        if (rc) return rc;
        sc_hex_encode(hex, rnd, sizeof rnd);
        snprintf(tmp, KEY_PATH_CAP, "%s%s" TMP_PREFIX "%s", dir, *dir ? "/" : "", hex);
        fd = open_retry(s->root_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) break;
        int err = errno;
        /* Retry after creating the key's directories, or after a (1 in 2^64) name clash. */
        if (attempt >= 2 || (err != EEXIST && !(err == ENOENT && *dir)))
            return posix_error(err, "creating temp file", s->root, tmp);
        if (err == ENOENT && (rc = mkdirs(s, s->root_fd, s->root, dir, &s->made_dirs)) != 0) return rc;
    }
    const char *what = NULL;
    if (write_all(fd, data, len) != 0)
        what = "writing";
    else if (fstat(fd, st) != 0)
        what = "inspecting";
    if (!what) {
        *out_fd = fd;
        return 0;
    }
    int err = errno;
    close(fd);
    unlinkat(s->root_fd, tmp, 0);
    return posix_error(err, what, s->root, tmp);
}

/* close() can report a deferred write error (NFS); it is never retried on Linux. */
static int close_checked(const posix_store *s, int fd, const char *path) {
    return close(fd) == 0 ? 0 : posix_error(errno, "closing", s->root, path);
}

/* Sync and close a written temp file (a put that replaces a key, or any put in eager mode). */
static int finish_temp(posix_store *s, int fd, const char *tmp) {
    int rc = sync_call(s, fd, "file", tmp) == 0 ? 0 : posix_error(errno, "syncing", s->root, tmp);
    int crc = close_checked(s, fd, tmp);
    return rc ? rc : crc;
}

static int rename_noreplace(int dir_fd, const char *from, const char *to) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 28))
    return renameat2(dir_fd, from, dir_fd, to, RENAME_NOREPLACE);
#elif defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, dir_fd, from, dir_fd, to, RENAME_NOREPLACE);
#else
    (void)dir_fd, (void)from, (void)to;
    errno = ENOSYS;
    return -1;
#endif
}

/*
 * Did our own publish create `key`? On NFS a link() whose reply was lost is
 * resent by the client and answers EEXIST although the first one worked:
 * the key is then our temp file's inode.
 */
static int key_is_ours(const posix_store *s, const char *key, const struct stat *tmp_st) {
    struct stat st;
    return fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_ino == tmp_st->st_ino &&
           st.st_dev == tmp_st->st_dev;
}

/* Publish tmp as key unless key exists; on failure tmp is left for the caller to remove. */
static int publish_noreplace(const posix_store *s, const char *tmp, const char *key, const struct stat *tmp_st) {
    if (rename_noreplace(s->root_fd, tmp, key) == 0) return 0;
    int err = errno;
    if (err == EINVAL || err == ENOSYS) {
        /* No RENAME_NOREPLACE on this file system or kernel: link() never replaces either. */
        if (linkat(s->root_fd, tmp, s->root_fd, key, 0) == 0) {
            /* Published. A temp name left behind only costs space: list() skips it. */
            unlinkat(s->root_fd, tmp, 0);
            return 0;
        }
        err = errno;
    }
    if (err == EEXIST && key_is_ours(s, key, tmp_st)) {
        unlinkat(s->root_fd, tmp, 0);
        return 0;
    }
    if (err == EEXIST) {
        /* Only another writer's regular file is a lost race. Anything else would
         * refuse every claim of this key while discovery calls it free. */
        struct stat st;
        if (fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            return not_an_object(s, key, st.st_mode);
        if (fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
            /* A link is another writer's object only when get() would read it:
             * one to a regular file inside the table. */
            char *real;
            int rc = resolve_link(s, key, &real);
            if (rc) return rc;
            int r = stat(real, &st);
            free(real);
            if (r != 0) return posix_error(errno, "inspecting", s->root, key);
            if ((rc = classify(s, key, &st, 1)) != 0) return rc;
        }
        return sc_error_set(SC_EEXISTS, "%s/%s already exists", s->root, key);
    }
    if (err == ENOTEMPTY || err == EISDIR) {
        struct stat st;
        if (fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
            return not_an_object(s, key, st.st_mode);
    }
    return posix_error(err, "publishing", s->root, key);
}

/* Close every pending file and forget the pending directories; 0 or the first close error. */
static int release_pending(posix_store *s) {
    int rc = 0;
    for (int i = 0; i < s->pending_files; i++) {
        int crc = close_checked(s, s->pending_fd[i], s->pending_key[i]);
        if (!rc) rc = crc;
    }
    s->pending_files = 0;
    s->pending_count = 0;
    return rc;
}

/*
 * A failed barrier: remembered for good (the kernel may have dropped the
 * unsynced bytes, and a retried fsync can report success without them), and
 * what was pending is let go. Returns rc.
 */
static int fail_barrier(posix_store *s, int rc) {
    if (!s->failure[0]) snprintf(s->failure, sizeof s->failure, "%s", sc_error_message());
    int saved = rc;
    char message[1024];
    snprintf(message, sizeof message, "%s", sc_error_message());
    release_pending(s);
    sc_error_set(saved, "%s", message);
    return saved;
}

/* Sync each pending file, then `claim_fd` (when >= 0), then each pending directory. */
static int sync_each(posix_store *s, int claim_fd, const char *claim_path) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    /* Start the writeback of every file before waiting on any: their block
     * allocations then join one journal transaction, which the first fsync
     * commits and the later ones find committed. */
    for (int i = 0; i < s->pending_files; i++) sync_file_range(s->pending_fd[i], 0, 0, SYNC_FILE_RANGE_WRITE);
    if (claim_fd >= 0) sync_file_range(claim_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    for (int i = 0; i < s->pending_files; i++)
        if (sync_call(s, s->pending_fd[i], "file", s->pending_key[i]) != 0)
            return posix_error(errno, "syncing", s->root, s->pending_key[i]);
    if (claim_fd >= 0 && sync_call(s, claim_fd, "file", claim_path) != 0)
        return posix_error(errno, "syncing", s->root, claim_path);
    while (s->pending_count > 0) {
        int rc = sync_dir(s, s->root_fd, s->root, s->pending[s->pending_count - 1]);
        if (rc) return rc;
        s->pending_count--;
    }
    return 0;
}

/*
 * The write barrier: make every pending put durable, and the claim's temp
 * file `claim_fd` (when >= 0) with them, before anything is published on top.
 * SC_POSIX_SYNC_FS tries one syncfs() and, when it is unavailable or reports
 * an error (possibly another writer's: it covers the whole file system),
 * syncs each file and directory instead, which reports only errors of our own.
 */
static int barrier(posix_store *s, int claim_fd, const char *claim_path) {
    if (s->failure[0])
        return sc_error_set(SC_EIO,
                            "%s: refusing to publish: an earlier sync of this store failed (%s), so objects written "
                            "through this handle may not be durable; reopen the store",
                            s->root, s->failure);
    if (s->pending_files == 0 && s->pending_count == 0 && claim_fd < 0) return 0;
    s->stats.barriers++;
    int rc;
    if (s->mode == SC_POSIX_SYNC_FS && sync_call(s, s->root_fd, "fs", "") == 0) {
        rc = release_pending(s);
        return rc ? fail_barrier(s, rc) : 0;
    }
    rc = sync_each(s, claim_fd, claim_path);
    if (!rc) rc = release_pending(s);
    return rc ? fail_barrier(s, rc) : 0;
}

/* Remember directory `dir` as holding an unsynced entry; when the list is full, sync it now. */
static int defer_sync(posix_store *s, const char *dir) {
    for (int i = 0; i < s->pending_count; i++)
        if (strcmp(s->pending[i], dir) == 0) return 0;
    if (s->pending_count == MAX_PENDING_DIRS) {
        int rc = sync_dir(s, s->root_fd, s->root, dir);
        if (rc && !s->failure[0]) snprintf(s->failure, sizeof s->failure, "%s", sc_error_message());
        return rc;
    }
    snprintf(s->pending[s->pending_count++], SC_STORE_KEY_MAX, "%s", dir);
    return 0;
}

/*
 * The mode SC_POSIX_SYNC_AUTO stands for on the file system of root_fd:
 * deferring is safe where a published name and its bytes live in one local
 * page cache; syncfs() reports writeback errors only since Linux 5.8.
 */
static int resolve_auto(int root_fd) {
#ifdef __linux__
    struct statfs fs;
    if (fstatfs(root_fd, &fs) != 0) return SC_POSIX_SYNC_EAGER;
    switch ((uint32_t)fs.f_type) {
    case 0xEF53u:     /* ext2, ext3, ext4 */
    case 0x58465342u: /* xfs */
    case 0x9123683Eu: /* btrfs */
    case 0xF2F52010u: /* f2fs */
    case 0x01021994u: /* tmpfs */
        break;
    default: /* NFS, FUSE, SMB, anything unknown: a name seen by another client needs its bytes */
        return SC_POSIX_SYNC_EAGER;
    }
    struct utsname u;
    int major = 0, minor = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2) return SC_POSIX_SYNC_FILES;
    return major > 5 || (major == 5 && minor >= 8) ? SC_POSIX_SYNC_FS : SC_POSIX_SYNC_FILES;
#else
    (void)root_fd;
    return SC_POSIX_SYNC_EAGER;
#endif
}

/* The root is open now: fix the mode AUTO stands for. */
static void root_opened(posix_store *s) {
    if (s->mode == SC_POSIX_SYNC_AUTO) s->mode = resolve_auto(s->root_fd);
}

/*
 * While the root is missing, look for it again: another process (a writer's
 * first commit, `snapcommit init`) may have created it since this store was
 * opened, and a reader must then see what it wrote rather than "absent"
 * forever. One open() per operation, only while the root is missing;
 * nothing is created. 1 once the root is there, 0 while it is missing.
 */
static int root_appeared(posix_store *s) {
    if (s->root_fd >= 0) return 1;
    int fd = open_retry(AT_FDCWD, s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return 0; /* still missing (or unusable: the operation reports "absent" as before) */
    char *canonical = realpath(s->root, NULL);
    if (!canonical) {
        close(fd);
        return 0;
    }
    free(s->root);
    s->root = canonical;
    s->root_fd = fd;
    root_opened(s);
    return 1;
}

/* How a write is published: replacing, only if absent, or replacing without durability (hints). */
enum { WRITE_PUT, WRITE_NOREPLACE, WRITE_HINT };

/*
 * Create the root on the first write. Only writers create directories: a
 * reader given a mistyped path must not leave it (and its parents) behind.
 */
static int ensure_root(posix_store *s) {
    if (root_appeared(s)) return 0;
    int rc = mkdirs(s, AT_FDCWD, "", s->root, &s->made_root);
    if (rc) return rc;
    int fd = open_retry(AT_FDCWD, s->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return posix_error(errno, "opening store root", "", s->root);
    char *canonical = realpath(s->root, NULL);
    if (!canonical) {
        int err = errno;
        close(fd);
        return posix_error(err, "resolving store root", "", s->root);
    }
    free(s->root);
    s->root = canonical;
    s->root_fd = fd;
    root_opened(s);
    return 0;
}

static int posix_write(posix_store *s, sc_object_info *out_info, const char *key,
                       const uint8_t *data, size_t len, int mode) {
    int rc = check_key(s, key);
    if (rc) return rc;
    if ((rc = ensure_root(s)) != 0) return rc;
    if ((rc = check_key_parents(s, key)) != 0) return rc;
    /* Synced on the spot in eager mode, and once barriers are refused (nothing
     * would ever make a deferred put durable). */
    int eager = s->mode == SC_POSIX_SYNC_EAGER || s->failure[0];
    /* The last chance to make the batch durable before a new entry would not fit. */
    if (mode == WRITE_PUT && !eager && s->pending_files == MAX_PENDING_FILES && (rc = barrier(s, -1, NULL)) != 0)
        return rc;
    char tmp[KEY_PATH_CAP];
    struct stat st;
    int fd;
    rc = write_temp(s, tmp, &st, &fd, key, data, len);
    if (rc) return rc;
    int deferred = 0; /* a new key whose bytes wait for the barrier (fd stays open) */
    if (mode == WRITE_NOREPLACE) {
        /* Barrier: every earlier put, and this claim's own bytes, durable before the name appears. */
        rc = barrier(s, fd, tmp);
        int crc = close_checked(s, fd, tmp);
        if (!rc) rc = crc;
        if (!rc) rc = publish_noreplace(s, tmp, key, &st);
    } else if (mode == WRITE_HINT) {
        rc = close_checked(s, fd, tmp); /* atomic by rename; durability not wanted */
        if (!rc && renameat(s->root_fd, tmp, s->root_fd, key) != 0) rc = posix_error(errno, "publishing", s->root, key);
    } else if (!eager && rename_noreplace(s->root_fd, tmp, key) == 0) {
        deferred = 1; /* a new name: nothing durable is at stake until a snapshot names it */
    } else {
        /* Eager mode, or the key exists (or the file system has no no-replace rename):
         * a durable old version must never give way to bytes that may not survive. */
        rc = finish_temp(s, fd, tmp);
        if (!rc && renameat(s->root_fd, tmp, s->root_fd, key) != 0) rc = posix_error(errno, "publishing", s->root, key);
    }
    if (rc) {
        unlinkat(s->root_fd, tmp, 0);
        return rc;
    }
    if (deferred) {
        s->pending_fd[s->pending_files] = fd;
        snprintf(s->pending_key[s->pending_files++], SC_STORE_KEY_MAX, "%s", key);
    }
    if (mode == WRITE_HINT) return 0;
    char dir[SC_STORE_KEY_MAX];
    key_dir(dir, key);
    if (mode == WRITE_NOREPLACE) {
        rc = sync_dir(s, s->root_fd, s->root, dir);
        /* Visible now, durable maybe: the caller must not read this as "not written",
         * and no later barrier may pass for this handle (fail_barrier). */
        if (rc) fail_barrier(s, rc);
    } else {
        rc = defer_sync(s, dir);
    }
    if (rc)
        return sc_error_wrap(SC_EUNKNOWN, "%s/%s is published but may not survive a crash", s->root,
                             key);
    if (out_info) info_from_stat(out_info, &st);
    return 0;
}

static int posix_put(void *self, sc_object_info *out_info, const char *key, const uint8_t *data,
                     size_t len) {
    return posix_write(self, out_info, key, data, len, WRITE_PUT);
}

static int posix_put_if_absent(void *self, sc_object_info *out_info, const char *key,
                               const uint8_t *data, size_t len) {
    return posix_write(self, out_info, key, data, len, WRITE_NOREPLACE);
}

/* A key that runs into a file or names a directory is absent, as on an object store. */
static int lookup_error(const posix_store *s, int err, const char *what, const char *key) {
    if (err == ENOENT || err == ENOTDIR) return not_found(s, key);
    return posix_error(err, what, s->root, key);
}

static int posix_get_bounded(void *self, uint8_t **out_data, size_t *out_len,
                             sc_object_info *out_info, const char *key, size_t max_len) {
    posix_store *s = self;
    int rc = check_key(s, key);
    if (rc) return rc;
    if (!root_appeared(s)) return not_found(s, key);
    if ((rc = check_key_parents(s, key)) != 0) return rc;
    /* O_NONBLOCK: a FIFO planted at a key must be refused, not block the reader
     * forever; O_NOFOLLOW: a symbolic link is checked before it is followed. */
    int fd = open_retry(s->root_fd, key, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0);
    int via_link = 0;
    if (fd < 0 && errno == ELOOP) {
        char *real;
        if ((rc = resolve_link(s, key, &real)) != 0) return rc;
        fd = open_retry(AT_FDCWD, real, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
        free(real);
        via_link = 1;
    }
    if (fd < 0 && errno != ENOENT && errno != ENOTDIR) {
        /* open() itself may refuse an odd object (a socket: ENXIO): name what is there. */
        int err = errno;
        struct stat st;
        if (fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
            return not_an_object(s, key, st.st_mode);
        errno = err;
    }
    if (fd < 0) return lookup_error(s, errno, "opening", key);
    struct stat st;
    uint8_t *data = NULL;
    size_t got = 0;
    if (fstat(fd, &st) != 0) {
        rc = posix_error(errno, "inspecting", s->root, key);
        goto done;
    }
    if ((rc = classify(s, key, &st, via_link)) != 0) goto done;
    /* Refused by its size before a byte is read or allocated: a 300 MB file where
     * a 20-byte hint belongs costs one fstat. */
    if ((uint64_t)st.st_size > max_len) {
        char object[PATH_MAX + SC_STORE_KEY_MAX];
        snprintf(object, sizeof object, "%s/%s", s->root, key);
        rc = sc_backend_too_large(object, (uint64_t)st.st_size, 1, max_len);
        goto done;
    }
    size_t size = (size_t)st.st_size;
    if (size && !(data = malloc(size))) {
        rc = sc_error_set(SC_ENOMEM, "out of memory reading %zu bytes of %s/%s", size, s->root,
                          key);
        goto done;
    }
    /* Objects never change in place, so st_size is the length; stop early only at EOF. */
    while (got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = posix_error(errno, "reading", s->root, key);
            goto done;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    info_from_stat(out_info, &st);
    out_info->size = got;
done:
    close(fd);
    if (rc) {
        free(data);
        return rc;
    }
    *out_data = data;
    *out_len = got;
    return 0;
}

static int posix_get(void *self, uint8_t **out_data, size_t *out_len, sc_object_info *out_info,
                     const char *key) {
    return posix_get_bounded(self, out_data, out_len, out_info, key, SIZE_MAX);
}

static int posix_head(void *self, sc_object_info *out_info, const char *key) {
    posix_store *s = self;
    int rc = check_key(s, key);
    if (rc) return rc;
    if (!root_appeared(s)) return not_found(s, key);
    if ((rc = check_key_parents(s, key)) != 0) return rc;
    struct stat st;
    if (fstatat(s->root_fd, key, &st, AT_SYMLINK_NOFOLLOW) != 0) return lookup_error(s, errno, "inspecting", key);
    int via_link = S_ISLNK(st.st_mode);
    if (via_link) {
        char *real;
        if ((rc = resolve_link(s, key, &real)) != 0) return rc;
        int r = stat(real, &st);
        free(real);
        if (r != 0) return lookup_error(s, errno, "inspecting", key);
    }
    if ((rc = classify(s, key, &st, via_link)) != 0) return rc;
    info_from_stat(out_info, &st);
    return 0;
}

static int posix_del(void *self, const char *key) {
    posix_store *s = self;
    int rc = check_key(s, key);
    if (rc) return rc;
    if (!root_appeared(s)) return not_found(s, key);
    if ((rc = check_key_parents(s, key)) != 0) return rc;
    if (unlinkat(s->root_fd, key, 0) != 0) {
        if (errno == EISDIR) return not_found(s, key);
        return lookup_error(s, errno, "deleting", key);
    }
    char dir[SC_STORE_KEY_MAX];
    key_dir(dir, key);
    rc = sync_dir(s, s->root_fd, s->root, dir);
    if (rc)
        return sc_error_wrap(SC_EUNKNOWN, "%s/%s is deleted but may reappear after a crash",
                             s->root, key);
    return 0;
}

/* ---- list: walk the part of the tree that can hold matching keys ---- */

typedef struct list_walk {
    const posix_store *s;
    const char *prefix;
    size_t prefix_len;
    const char *start_after; /* NULL = from the start */
    char **keys;             /* every match, unsorted */
    size_t count, cap;
} list_walk;

static int walk_add(list_walk *w, const char *key) {
    int rc;
    SC_VEC_RESERVE(rc, w->keys, w->cap, w->count + 1, 64, "the listed keys");
    if (rc) return sc_error_wrap(rc, "listing %s", w->s->root);
    if (!(w->keys[w->count] = strdup(key)))
        return sc_error_set(SC_ENOMEM, "out of memory listing %s", w->s->root);
    w->count++;
    return 0;
}

/*
 * What an entry is, as get() sees it: links to files are objects (get()
 * follows them); links to directories are not walked, since they could loop.
 * DT_UNKNOWN means "neither file nor directory" on return.
 */
static unsigned char entry_kind(int root_fd, const char *path, unsigned char d_type) {
    struct stat st;
    if (d_type == DT_UNKNOWN) { /* file systems without d_type */
        if (fstatat(root_fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0) return DT_UNKNOWN;
        d_type = IFTODT(st.st_mode);
    }
    /* Links are listed unless they lead to a directory (never walked: a loop):
     * dangling, looping or odd ones too, so that get() refuses them by name
     * instead of discovery never seeing them. */
    if (d_type == DT_LNK)
        return fstatat(root_fd, path, &st, 0) == 0 && S_ISDIR(st.st_mode) ? DT_UNKNOWN : DT_REG;
    /* FIFOs, devices and sockets are listed like objects, so that whoever reads
     * them (discovery, fsck) meets get()'s refusal instead of never seeing them. */
    if (d_type == DT_FIFO || d_type == DT_CHR || d_type == DT_BLK || d_type == DT_SOCK) return DT_REG;
    return d_type == DT_REG || d_type == DT_DIR ? d_type : DT_UNKNOWN;
}

/* A directory's entries as (type byte, name, NUL) records; absent directories have none. */
static int read_dir(const list_walk *w, sc_buf *names, const char *dir) {
    int fd = open_retry(w->s->root_fd, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) {
        /* Absent, or removed while we walked: nothing under it. */
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        return posix_error(errno, "opening directory", w->s->root, dir);
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        int err = errno;
        close(fd);
        return posix_error(err, "reading directory", w->s->root, dir);
    }
    int rc = 0;
    for (;;) {
        errno = 0; /* readdir() reports errors only through errno */
        struct dirent *e = readdir(d);
        if (!e) break;
        /* "." and "..", in-flight writes */
        if (e->d_name[0] == '.' &&
            (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]) ||
             strncmp(e->d_name, TMP_PREFIX, TMP_PREFIX_LEN) == 0))
            continue;
        if ((rc = sc_buf_append_byte(names, e->d_type)) != 0 ||
            (rc = sc_buf_append(names, e->d_name, strlen(e->d_name) + 1)) != 0)
            break;
    }
    if (!rc && errno) rc = posix_error(errno, "reading directory", w->s->root, dir);
    closedir(d);
    return rc;
}

/* Walk directory `path` (len bytes, "" or ending in '/'; the buffer has KEY_PATH_CAP bytes). */
static int walk_dir(list_walk *w, char *path, size_t len) {
    /* Read the whole directory first so only one descriptor is open at any depth. */
    sc_buf names = SC_BUF_INIT;
    int rc = read_dir(w, &names, path);
    for (size_t at = 0; !rc && at < names.len;) {
        unsigned char d_type = names.data[at];
        const char *name = (const char *)names.data + at + 1;
        size_t name_len = strlen(name);
        at += name_len + 2;
        /* A key is at most SC_STORE_KEY_MAX bytes: a directory needs room for "/x" after it. */
        if (len + name_len > SC_STORE_KEY_MAX) continue;
        memcpy(path + len, name, name_len + 1);
        size_t child_len = len + name_len;
        unsigned char kind = entry_kind(w->s->root_fd, path, d_type);
        if (kind == DT_REG) {
            if (strncmp(path, w->prefix, w->prefix_len) == 0 &&
                (!w->start_after || strcmp(path, w->start_after) > 0))
                rc = walk_add(w, path);
        } else if (kind == DT_DIR && child_len + 1 < SC_STORE_KEY_MAX) {
            path[child_len++] = '/';
            path[child_len] = '\0';
            size_t common = child_len < w->prefix_len ? child_len : w->prefix_len;
            /* Descend only if keys under it can match the prefix and can sort after
             * start_after: when "dir/" is below start_after and not a prefix of it, so is
             * every key under it. */
            if (memcmp(path, w->prefix, common) == 0 &&
                (!w->start_after || strncmp(path, w->start_after, child_len) >= 0))
                rc = walk_dir(w, path, child_len);
        }
    }
    path[len] = '\0';
    sc_buf_free(&names);
    return rc;
}

static int compare_keys(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int posix_list(void *self, sc_list_page *out, const char *prefix, const char *start_after,
                      size_t max_keys) {
    if (!root_appeared(self)) { /* no root yet: nothing stored */
        memset(out, 0, sizeof *out);
        return 0;
    }
    const char *last_slash = strrchr(prefix, '/');
    int crc = last_slash ? check_parents(self, prefix, (size_t)(last_slash - prefix) + 1) : 0;
    if (crc) return crc;
    list_walk w = {
        .s = self, .prefix = prefix, .prefix_len = strlen(prefix), .start_after = start_after};
    /* Only the directory holding the prefix's last '/' can contain matches:
     * "snapshot/snapshot-" reads "snapshot/" and what below it can match. */
    char path[KEY_PATH_CAP];
    const char *slash = strrchr(prefix, '/');
    size_t len = slash ? (size_t)(slash - prefix) + 1 : 0;
    memcpy(path, prefix, len);
    path[len] = '\0';
    int rc = walk_dir(&w, path, len);
    if (rc) {
        for (size_t i = 0; i < w.count; i++) free(w.keys[i]);
        free(w.keys);
        return rc;
    }
    /* strcmp orders bytewise (as unsigned char), like S3's UTF-8 binary order. */
    if (w.count) qsort(w.keys, w.count, sizeof *w.keys, compare_keys);
    out->truncated = w.count > max_keys;
    out->count = out->truncated ? max_keys : w.count;
    for (size_t i = out->count; i < w.count; i++) free(w.keys[i]);
    if (out->count == 0) {
        free(w.keys);
        w.keys = NULL;
    }
    out->keys = w.keys;
    return 0;
}

static int posix_sync(void *self) {
    posix_store *s = self;
    return s->root_fd < 0 ? 0 : barrier(s, -1, NULL);
}

static int posix_put_hint(void *self, const char *key, const uint8_t *data, size_t len) {
    return posix_write(self, NULL, key, data, len, WRITE_HINT);
}

static void created_free(created_dirs *d) {
    for (int i = 0; i < d->count; i++) free(d->path[i]);
    d->count = 0;
}

static void posix_close(void *self) {
    posix_store *s = self;
    created_free(&s->made_root);
    created_free(&s->made_dirs);
    if (s->root_fd >= 0) {
        /* Best effort: nobody is left to report a failure to. */
        if (barrier(s, -1, NULL) != 0) sc_error_clear();
        release_pending(s); /* after a refused barrier, the descriptors are still open */
        close(s->root_fd);
    }
    free(s->root);
    free(s);
}

static void posix_remove_created_dirs(void *self, const char *prefix);

static const sc_store_ops posix_ops = {
    .version = SC_STORE_OPS_VERSION,
    .name = "posix",
    .caps = SC_CAP_ATOMIC_NOREPLACE | SC_CAP_LIST_AFTER_WRITE | SC_CAP_DURABLE,
    .get = posix_get,
    .head = posix_head,
    .put = posix_put,
    .put_if_absent = posix_put_if_absent,
    .put_if_match = NULL, /* no compare-and-swap on a file system */
    .list = posix_list,
    .del = posix_del,
    .close = posix_close,
    .sync = posix_sync,
    .put_hint = posix_put_hint,
    .get_bounded = posix_get_bounded,
    .remove_created_dirs = posix_remove_created_dirs,
};

int sc_posix_store_create(const sc_store_ops **ops, void **self, const char *root, int sync_mode) {
    *ops = NULL;
    *self = NULL;
    if (!root || !*root) return sc_error_set(SC_EINVAL, "empty posix store root");
    int fd = open_retry(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0 && errno == ENOENT) {
        /* Not created here: opening is also how readers start, and a mistyped
         * path must not appear on disk. The first write creates it (ensure_root);
         * until it exists, by this store or another process (root_appeared), every
         * key is absent. Made absolute now, so that a later chdir() cannot move it. */
        posix_store *s = calloc(1, sizeof *s);
        char cwd[PATH_MAX];
        if (!s) return sc_error_set(SC_ENOMEM, "out of memory");
        if (root[0] != '/' && !getcwd(cwd, sizeof cwd)) {
            int err = errno;
            free(s);
            return posix_error(err, "resolving store root", "", root);
        }
        size_t n = root[0] == '/' ? strlen(root) + 1 : strlen(cwd) + strlen(root) + 2;
        if (!(s->root = malloc(n))) {
            free(s);
            return sc_error_set(SC_ENOMEM, "out of memory");
        }
        if (root[0] == '/') memcpy(s->root, root, n);
        else snprintf(s->root, n, "%s/%s", cwd, root);
        for (size_t end = strlen(s->root); end > 1 && s->root[end - 1] == '/';) s->root[--end] = '\0';
        s->root_fd = -1;
        s->mode = sync_mode;
        *ops = &posix_ops;
        *self = s;
        return 0;
    }
    if (fd < 0) return posix_error(errno, "opening store root", "", root);
    posix_store *s = calloc(1, sizeof *s);
    char *canonical = realpath(root, NULL);
    if (!s || !canonical) {
        int err = errno;
        free(s);
        free(canonical);
        close(fd);
        return posix_error(err, "resolving store root", "", root);
    }
    s->root_fd = fd;
    s->root = canonical;
    s->mode = sync_mode;
    root_opened(s);
    *ops = &posix_ops;
    *self = s;
    return 0;
}

/*
 * Take back directories this handle created, deepest first, each only while
 * it is empty (rmdir refuses one with any entry, so nothing with other
 * content is ever removed): those below the root whose path starts with
 * `prefix`, and, for prefix "", also the root and its parents when this
 * handle created them. Best effort: what cannot be removed stays.
 */
static void posix_remove_created_dirs(void *self, const char *prefix) {
    posix_store *s = self;
    size_t n = strlen(prefix);
    /* Deferred syncs first: a removed directory must not stay pending. */
    if (s->root_fd >= 0 && barrier(s, -1, NULL) != 0) sc_error_clear();
    for (int i = s->made_dirs.count - 1; i >= 0 && s->root_fd >= 0; i--) {
        char *dir = s->made_dirs.path[i];
        /* At or under the prefix only ("metadata/probe-x" for "metadata/probe-x/"; not
         * "metadata", which holds other keys). */
        size_t dl = strlen(dir);
        int under = dl >= n ? strncmp(dir, prefix, n) == 0
                            : dl + 1 == n && strncmp(dir, prefix, dl) == 0 && prefix[dl] == '/';
        if (!under) continue;
        if (unlinkat(s->root_fd, dir, AT_REMOVEDIR) == 0) {
            if (sync_parent(s, s->root_fd, s->root, dir) != 0) sc_error_clear();
            for (int k = 0; k < s->pending_count; k++)
                if (strcmp(s->pending[k], dir) == 0) {
                    memcpy(s->pending[k], s->pending[--s->pending_count], SC_STORE_KEY_MAX);
                    k--;
                }
        }
        free(dir);
        s->made_dirs.path[i] = s->made_dirs.path[--s->made_dirs.count];
    }
    if (n || s->made_root.count == 0) return;
    /* The root itself: only if it is empty now (after the above). */
    if (s->root_fd >= 0) {
        if (barrier(s, -1, NULL) != 0) sc_error_clear();
        release_pending(s);
        close(s->root_fd);
        s->root_fd = -1;
    }
    for (int i = s->made_root.count - 1; i >= 0; i--) {
        if (rmdir(s->made_root.path[i]) != 0) break; /* not empty (or not ours any more): stop */
    }
    created_free(&s->made_root);
}

void sc_posix_store_sync_stats(sc_posix_sync_stats *out, const void *self) {
    const posix_store *s = self;
    *out = s->stats;
    out->mode = s->mode;
    out->pending_files = (unsigned)s->pending_files;
    out->pending_dirs = (unsigned)s->pending_count;
}

void sc_posix_store_set_sync_hook(void *self, sc_posix_sync_hook fn, void *ctx) {
    posix_store *s = self;
    s->hook = fn;
    s->hook_ctx = ctx;
}
