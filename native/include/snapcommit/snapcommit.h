/* snapcommit — exactly-once, lock-free snapshot commits. Umbrella header. */
#ifndef SNAPCOMMIT_H
#define SNAPCOMMIT_H

#include "snapcommit/error.h"
#include "snapcommit/types.h"
#include "snapcommit/log.h"
#include "snapcommit/backend.h"
#include "snapcommit/env.h"
#include "snapcommit/store.h"
#include "snapcommit/table.h"
#include "snapcommit/upkeep.h"

#define SC_VERSION_STRING "0.1.0"

#endif
