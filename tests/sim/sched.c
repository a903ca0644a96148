/*
 * The simulation's scheduler and virtual clock.
 *
 * Clients are coroutines (ucontext) on the calling thread rather than
 * threads: a switch is two swapcontext calls (well under a microsecond),
 * where a thread hand-off through mutexes and condition variables costs a
 * futex wake and a sleep on each side — tens of microseconds on a loaded
 * 2-core machine, which would make 100,000 schedules take too long. The
 * semantics are those of the thread design: one client runs at a time,
 * control changes hands only at yield points (the store fault hook before
 * every store operation, and backoff sleeps), and the choice of the next
 * client comes from a PRNG seeded by the schedule seed.
 *
 * The library reads time and randomness through its environment seam
 * (snapcommit/env.h); the simulation installs two environments. The
 * clients' (sim_client_env): wall-clock time is the virtual clock plus the
 * running client's skew, elapsed time is the virtual clock, sleeping is
 * virtual (the client is not scheduled until its wake-up time), and UUIDs and
 * jitter come from a PRNG seeded by the schedule seed. The storage's
 * (sim_storage_env, on the mem store): mtimes are the virtual clock without
 * skew. So a seed determines every byte written.
 *
 * One consequence of coroutines: the library's per-thread error message is
 * shared by all clients, so a message may be overwritten by another client
 * between a failure and its report. Error codes are unaffected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "sim.h"
#include "snapcommit/env.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif

#ifdef SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#define SIM_STACK_SIZE (4u << 20)
#else
#define SIM_STACK_SIZE (512u << 10)
#endif

typedef enum { TASK_RUNNABLE, TASK_SLEEPING, TASK_BARRIER, TASK_DONE } task_state;

typedef struct sim_task {
    ucontext_t ctx;
    void *stack;
    void *fake_stack; /* ASan bookkeeping while switched out */
    task_state state;
    int64_t wake_ms;
    int64_t skew_ms;
    sim_task_fn fn;
    void *arg;
} sim_task;

static struct {
    sim_task tasks[SIM_MAX_TASKS];
    int count;
    int current; /* -1 in the scheduler */
    ucontext_t sched_ctx;
    void *sched_fake_stack;
    const void *sched_stack_bottom;
    size_t sched_stack_size;
    sim_rng rng;      /* scheduling and fault decisions */
    sim_rng data_rng; /* UUIDs, jitter */
    int64_t now_ms;
    uint64_t steps;
    int phase;
    int killed;
} S = {.current = -1};

/* ---- switching, with the annotations ASan needs to follow stack changes ---- */

static void switch_to_task(sim_task *t) {
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(&S.sched_fake_stack, t->stack, SIM_STACK_SIZE);
#endif
    swapcontext(&S.sched_ctx, &t->ctx);
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(S.sched_fake_stack, NULL, NULL);
#endif
}

static void switch_to_scheduler(sim_task *t) {
#ifdef SIM_ASAN
    __sanitizer_start_switch_fiber(&t->fake_stack, S.sched_stack_bottom, S.sched_stack_size);
#endif
    swapcontext(&t->ctx, &S.sched_ctx);
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(t->fake_stack, &S.sched_stack_bottom, &S.sched_stack_size);
#endif
}

static void task_entry(int index) {
    sim_task *t = &S.tasks[index];
#ifdef SIM_ASAN
    __sanitizer_finish_switch_fiber(NULL, &S.sched_stack_bottom, &S.sched_stack_size);
#endif
    t->fn(t->arg);
    t->state = TASK_DONE;
#ifdef SIM_ASAN
    /* This fiber ends: no fake stack to keep. uc_link returns to the scheduler. */
    __sanitizer_start_switch_fiber(NULL, S.sched_stack_bottom, S.sched_stack_size);
#endif
}

/* ---- the public scheduler API ---- */

void sim_sched_reset(uint64_t seed, int64_t start_ms) {
    S.count = 0;
    S.current = -1;
    S.rng.state = seed;
    S.data_rng.state = seed ^ 0x5deece66dull;
    (void)sim_rng_next(&S.data_rng);
    S.now_ms = start_ms;
    S.steps = 0;
    S.phase = 0;
    S.killed = 0;
}

int sim_spawn(sim_task_fn fn, void *arg, int64_t skew_ms) {
    if (S.count == SIM_MAX_TASKS) {
        fprintf(stderr, "sim: too many tasks\n");
        abort();
    }
    int index = S.count++;
    sim_task *t = &S.tasks[index];
    if (!t->stack && !(t->stack = malloc(SIM_STACK_SIZE))) {
        fprintf(stderr, "sim: out of memory for a task stack\n");
        abort();
    }
    t->state = TASK_RUNNABLE;
    t->wake_ms = 0;
    t->skew_ms = skew_ms;
    t->fn = fn;
    t->arg = arg;
    t->fake_stack = NULL;
    getcontext(&t->ctx);
    t->ctx.uc_stack.ss_sp = t->stack;
    t->ctx.uc_stack.ss_size = SIM_STACK_SIZE;
    t->ctx.uc_link = &S.sched_ctx;
    makecontext(&t->ctx, (void (*)(void))task_entry, 1, index);
    return index;
}

/* Pick the next task to run, advancing the virtual clock; -1 when all are done. */
static int pick(void) {
    for (;;) {
        int runnable[SIM_MAX_TASKS], n = 0, sleeping = 0, barrier = 0;
        int64_t wake = INT64_MAX;
        for (int i = 0; i < S.count; i++) {
            sim_task *t = &S.tasks[i];
            if (t->state == TASK_SLEEPING && t->wake_ms <= S.now_ms) t->state = TASK_RUNNABLE;
            if (t->state == TASK_RUNNABLE) runnable[n++] = i;
            else if (t->state == TASK_SLEEPING) {
                sleeping++;
                if (t->wake_ms < wake) wake = t->wake_ms;
            } else if (t->state == TASK_BARRIER) barrier++;
        }
        if (n) return runnable[n == 1 ? 0 : (int)sim_rng_below(&S.rng, (uint32_t)n)];
        if (sleeping) {
            S.now_ms = wake; /* nobody can run before then: time jumps */
            continue;
        }
        if (barrier) {
            S.phase = 1;
            for (int i = 0; i < S.count; i++)
                if (S.tasks[i].state == TASK_BARRIER) S.tasks[i].state = TASK_RUNNABLE;
            continue;
        }
        return -1;
    }
}

int sim_run(uint64_t max_steps) {
    int rc = 0;
    for (;;) {
        int next = pick();
        if (next < 0) break;
        if (++S.steps > max_steps && !S.killed) {
            S.killed = 1;
            rc = -1;
        }
        S.now_ms += 1 + (int64_t)sim_rng_below(&S.rng, 3); /* every step takes 1..3 ms */
        S.current = next;
        switch_to_task(&S.tasks[next]);
        S.current = -1;
    }
    return rc;
}

void sim_yield(void) {
    if (S.current < 0 || S.killed) return;
    switch_to_scheduler(&S.tasks[S.current]);
}

void sim_sleep(int64_t ms) {
    if (S.current < 0 || S.killed) return;
    sim_task *t = &S.tasks[S.current];
    if (ms > 0) {
        t->state = TASK_SLEEPING;
        t->wake_ms = S.now_ms + ms;
    }
    switch_to_scheduler(t);
}

void sim_barrier(void) {
    if (S.current < 0 || S.killed) return;
    sim_task *t = &S.tasks[S.current];
    t->state = TASK_BARRIER;
    switch_to_scheduler(t);
}

int sim_phase(void) { return S.phase; }
int sim_task_slots(void) { return SIM_MAX_TASKS - S.count; }
int sim_sched_killed(void) { return S.killed; }
int sim_current(void) { return S.current; }
int64_t sim_now_ms(void) { return S.now_ms; }
sim_rng *sim_sched_rng(void) { return &S.rng; }
uint64_t sim_steps(void) { return S.steps; }

/* ---- the library's environment: virtual time, seeded randomness ---- */

static int64_t client_now(void *ctx) {
    (void)ctx;
    return S.now_ms + (S.current >= 0 ? S.tasks[S.current].skew_ms : 0);
}

static int64_t storage_now(void *ctx) {
    (void)ctx;
    return S.now_ms;
}

static void virtual_sleep(void *ctx, int64_t ms) {
    (void)ctx;
    sim_sleep(ms);
}

static int seeded_random(void *ctx, void *out, size_t len) {
    (void)ctx;
    unsigned char *p = out;
    while (len) {
        uint64_t r = sim_rng_next(&S.data_rng);
        size_t n = len < sizeof r ? len : sizeof r;
        memcpy(p, &r, n);
        p += n;
        len -= n;
    }
    return 0;
}

static const sc_env client_env = {
    .version = SC_ENV_VERSION,
    .now_ms = client_now,
    .monotonic_ms = storage_now, /* elapsed time has no skew */
    .sleep_ms = virtual_sleep,
    .random_bytes = seeded_random,
};

static const sc_env storage_env = {
    .version = SC_ENV_VERSION,
    .now_ms = storage_now,
    .monotonic_ms = storage_now,
    .sleep_ms = virtual_sleep,
    .random_bytes = seeded_random,
};

const sc_env *sim_client_env(void) { return &client_env; }
const sc_env *sim_storage_env(void) { return &storage_env; }
