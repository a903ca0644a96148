/* The simulation's deliberately broken strategy (naive.c). */
#ifndef SC_SIM_NAIVE_H
#define SC_SIM_NAIVE_H

#include "strategy/strategy.h"

/* Claims with a plain put: last writer wins. For the simulation only. */
extern const sc_strategy sim_strategy_naive;
/* Put the naive strategy on a handle opened with the conditional one (its per-handle state released). */
void sim_use_naive(sc_table *t);

#endif
