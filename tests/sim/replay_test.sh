#!/usr/bin/env bash
# A seed determines its schedule: replaying it in two separate processes must
# give the same trace hash, for every available strategy.
set -uo pipefail
sim=${1:?usage: replay_test.sh PATH/TO/sim}
# The trace line of one replay; exit status 2 = strategy not in this build.
trace() {
  local out rc
  out=$("$sim" --strategy "$1" --seed "$2" 2>/dev/null)
  rc=$?
  [[ $rc == 2 ]] && return 2
  grep -m1 " seed $2: trace " <<<"$out"
}
ran=0
for strategy in rename conditional head tracker; do
  for seed in 3 42 1234 99991; do
    a=$(trace "$strategy" "$seed"); rc=$?
    [[ $rc == 2 ]] && continue 2
    b=$(trace "$strategy" "$seed")
    if [[ -z $a || $a != "$b" ]]; then
      echo "replay of $strategy seed $seed differs:"; echo "  $a"; echo "  $b"; exit 1
    fi
    echo "$a"
    ran=$((ran + 1))
  done
done
[[ $ran -gt 0 ]] || { echo "no strategy available"; exit 1; }
