/*
 * SC_API marks every function of the public API (the headers in this
 * directory). The library is compiled with -fvisibility=hidden, so only
 * SC_API functions are exported from libsnapcommit.so: internal helpers cannot
 * become an accidental ABI, and calls inside the library need no PLT. A
 * public function declared without SC_API is missing from the shared library,
 * and the public_exports test fails.
 */
#ifndef SNAPCOMMIT_EXPORT_H
#define SNAPCOMMIT_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define SC_API __attribute__((visibility("default")))
#else
#define SC_API
#endif

#endif
