/*
 * LD_PRELOAD helper for running the Criterion suites under ThreadSanitizer (scripts/tsan.sh);
 * not part of any test binary.
 *
 * Criterion's sandbox (BoxFort, as packaged in Debian's libcriterion3 2.4.1) places its shared
 * arena with MAP_FIXED at 0x200000000000 + (rand_r() & 0x3fffff) << 24, after checking with
 * mincore() that the pages are free, and gives up after 10 draws ("Could not initialize
 * inheritable arena: Resource temporarily unavailable", or a crash at start). Under TSan nearly
 * all of that range is TSan's own reserved shadow and meta memory, so the draws fail. For calls
 * coming from libcriterion only, the draw is moved into TSan's application window for PIE
 * binaries, [0x550000000000, 0x568000000000), where a fixed mapping is allowed; the mincore()
 * check still skips pages that are taken. Every other caller gets libc's rand_r unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#define ARENA_DRAW_FIRST 0x350000 /* (0x550000000000 - 0x200000000000) >> 24 */
#define ARENA_DRAWS 0x17000       /* up to 0x567000000000: room for the arena below the window's end */

static int from_criterion(const void *caller) {
    Dl_info info;
    return dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libcriterion");
}

int rand_r(unsigned int *seed) {
    static int (*real)(unsigned int *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "rand_r");
    int r = real(seed);
    if (!from_criterion(__builtin_return_address(0))) return r;
    return ARENA_DRAW_FIRST + r % ARENA_DRAWS;
}
