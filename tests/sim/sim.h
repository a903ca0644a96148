/*
 * Deterministic simulation of snapcommit (internal to tests/sim).
 *
 * sched.c  the scheduler: clients are coroutines (ucontext) on one thread;
 *          exactly one runs at a time and control changes hands only at a
 *          yield point (every store operation, every backoff sleep). Which
 *          client runs next, and every injected fault, comes from one PRNG
 *          seeded by the schedule seed, so a seed fully determines the run.
 *          It also owns the virtual clock and the environments (clock,
 *          sleep, randomness) it installs in the library.
 * sim.c    workloads, fault injection, invariants, command line.
 * naive.c  a deliberately broken claim strategy (plain put, last writer wins)
 *          that the simulation must catch.
 */
#ifndef SC_SIM_H
#define SC_SIM_H

#include <stddef.h>
#include <stdint.h>

/* ---- PRNG: splitmix64, small and fast, fully determined by its state ---- */

typedef struct sim_rng {
    uint64_t state;
} sim_rng;

static inline uint64_t sim_rng_next(sim_rng *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. */
static inline uint32_t sim_rng_below(sim_rng *r, uint32_t n) {
    return (uint32_t)(((sim_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* ---- trace hash: FNV-1a over everything that happens, for replay checks ---- */

static inline void sim_hash_bytes(uint64_t *h, const void *data, size_t len) {
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        *h ^= p[i];
        *h *= 0x100000001b3ull;
    }
}

static inline void sim_hash_u64(uint64_t *h, uint64_t v) { sim_hash_bytes(h, &v, sizeof v); }

#define SIM_HASH_INIT 0xcbf29ce484222325ull

/* ---- scheduler (sched.c) ---- */

#define SIM_MAX_TASKS 12 /* clients, reader, successor, upkeep actors, ghosts (sim.c LEGACY_TASKS) */

typedef void (*sim_task_fn)(void *arg);

/* Start a schedule: clear the tasks, seed the scheduler and data PRNGs,
 * set the virtual clock to `start_ms`. */
void sim_sched_reset(uint64_t seed, int64_t start_ms);
/* Add a task (a coroutine running fn(arg)); `skew_ms` offsets the wall-clock
 * time it reads. Returns its index. Call between reset and run, or from a task. */
int sim_spawn(sim_task_fn fn, void *arg, int64_t skew_ms);
/* Run every task to completion. Returns 0, or -1 when more than max_steps
 * scheduling decisions were needed (livelock): the tasks are then resumed
 * with sim_sched_killed() true, so that they finish without yielding. */
int sim_run(uint64_t max_steps);

/* From a task: give the scheduler the choice of who runs next. */
void sim_yield(void);
/* From a task: sleep in virtual time (not scheduled before now + ms). */
void sim_sleep(int64_t ms);
/* From a task: wait until every other task has finished or reached the barrier. */
void sim_barrier(void);
/* 0 before every task reached the barrier, 1 after. */
int sim_phase(void);
/* 1 once a livelock was declared: tasks must stop (fail everything, no yields). */
int sim_sched_killed(void);

/* Tasks that can still be spawned in this schedule. */
int sim_task_slots(void);
/* Index of the running task, -1 in the scheduler (setup, checks). */
int sim_current(void);
/* Virtual time: the storage's clock. */
int64_t sim_now_ms(void);
/* The scheduler's PRNG (the only source of schedule and fault decisions). */
sim_rng *sim_sched_rng(void);
/* Scheduling decisions taken so far in this schedule. */
uint64_t sim_steps(void);

/* The library's environments (snapcommit/env.h), for the whole run. A client's
 * (store handles, tables): wall clock = virtual time + the running task's
 * skew, elapsed clock = virtual time, virtual sleeps, randomness from the
 * schedule's data PRNG. The storage's (the mem store): wall clock = virtual
 * time, virtual sleeps for stalls. */
struct sc_env;
const struct sc_env *sim_client_env(void);
const struct sc_env *sim_storage_env(void);

#endif
