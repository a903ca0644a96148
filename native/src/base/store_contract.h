/*
 * The store contract's shared rules (internal); the public half is declared
 * in snapcommit/backend.h and snapcommit/store.h (sc_store_op_name,
 * sc_store_key_valid, sc_list_page_free, sc_store_config_init).
 */
#ifndef SC_STORE_CONTRACT_H
#define SC_STORE_CONTRACT_H

#include <stddef.h>

#include "snapcommit/backend.h"
#include "snapcommit/store.h"

/* Longest valid key, in bytes (NUL excluded). */
#define SC_STORE_KEY_MAX 1024

/* 1 when every '/'-separated segment of the first len bytes of path is valid:
 * not empty, ".", or "..". */
int sc_store_segments_valid(const char *path, size_t len);

#endif
