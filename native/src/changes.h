/* A commit's change set (internal view of the public sc_changes). */
#ifndef SC_CHANGES_H
#define SC_CHANGES_H

#include "manifest.h"

struct sc_changes {
    sc_entry_vec adds;
    sc_entry_vec deletes;
};

#endif
