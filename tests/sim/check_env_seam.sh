#!/usr/bin/env bash
# Every clock reading, sleep, random byte and environment variable of the
# library goes through its seams: time and randomness through sc_env
# (snapcommit/env.h, env_internal.h), configuration through sc_store_config.
# The simulation replaces exactly what comes through sc_env, so a direct
# call elsewhere would escape it (and make schedules irreproducible).
#
# Allowed: the real implementations (clock.c/.h, env.c, env_internal.h,
# wherever they live under native/src) and lines marked "sc-env-exempt: why".
#   check_env_seam.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: check_env_seam.sh SOURCE_DIR}/native/src
[ -d "$src" ] || { echo "env_seam: no $src"; exit 1; }
calls='clock_gettime|gettimeofday|nanosleep|usleep|sleep|time|RAND_bytes|RAND_priv_bytes|getrandom|getentropy|rand|random|drand48|arc4random|getenv|secure_getenv|sc_now_ms|sc_monotonic_ms|sc_sleep_ms|sc_random_bytes'
files=$(find "$src" -type f \( -name '*.c' -o -name '*.h' \) \
        ! -name clock.c ! -name clock.h ! -name env.c ! -name env_internal.h | sort)
[ -n "$files" ] || { echo "env_seam: no sources under $src"; exit 1; }
# A call: the name, not preceded by an identifier character or '.', '>' (a member), then '('.
hits=$(grep -nE "(^|[^A-Za-z0-9_.>])($calls)[[:space:]]*\(" $files | grep -v 'sc-env-exempt' || true)
# Prose in comments ("... sleep (in virtual time) ...") is no call: drop comment-only lines.
hits=$(printf '%s\n' "$hits" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$hits" ]; then
  echo "env_seam: time, randomness or the environment read outside the seams (use the table's or"
  echo "store's sc_env, or sc_store_config; or mark the line 'sc-env-exempt: why'):"
  printf '%s\n' "$hits"
  exit 1
fi
n=$(printf '%s\n' $files | wc -l)
echo "env_seam: $n files under native/src read time, randomness and configuration only through the seams: 1 passed, 0 failed"
