#!/usr/bin/env bash
# The layer check can fail: run cmake/check_layers.py on small trees that break each rule
# (a file outside the layer folders, an include of a higher layer, an include between layers
# the README table keeps apart though a single order would allow it, an include circle, a
# missing header, a README table that cannot be read) and on one that keeps them, and
# compare the verdicts. Each tree carries a README.md with the table of native/src/README.md.
# With a compiler, also a tree whose files include nothing wrong but call upward and in a
# circle, checked through its static library (the symbol half of the check).
#   test_check_layers.sh PYTHON CHECK_LAYERS_PY [CC]
set -euo pipefail
py=${1:?usage: test_check_layers.sh PYTHON CHECK_LAYERS_PY [CC]}
check=${2:?CHECK_LAYERS_PY}
cc=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

table() { # table: the layer rows of native/src/README.md (what each layer may include)
  cat <<'EOF'
# layers

| # | folder      | what it holds | may include |
|---|-------------|---------------|-------------|
| 1 | `base/`     | buffers | public headers only |
| 2 | `format/`   | codecs | base |
| 3 | `s3/`       | the S3 backend | base |
| 4 | `store/`    | the store wrapper | base, s3 |
| 5 | `strategy/` | claims | base, format, s3, store |
| 6 | `engine/`   | tables | everything below |

Prose after the table.
EOF
}
tree() { # tree NAME: an empty native/src with the layer folders and the README table
  rm -rf "${tmp:?}/$1"; mkdir -p "$tmp/$1"/{base,format,s3,store,engine}; table >"$tmp/$1/README.md"; echo "$tmp/$1"
}
expect() { # expect NAME STATUS PATTERN [LIB]
  local out status=0
  out=$("$py" "$check" "$tmp/$1" ${4:+"$4"} 2>&1) || status=$?
  if [ "$status" -ne "$2" ] || ! grep -qE -- "$3" <<<"$out"; then
    echo "check_layers $1: expected exit $2 and /$3/, got exit $status:"; echo "$out" | sed 's/^/  /'
    failed=1
  fi
}

d=$(tree good)
printf '#include "snapcommit/error.h"\n' >"$d/base/buf.h"
printf '#include "base/buf.h"\n' >"$d/base/buf.c"
printf '#include "base/buf.h"\n' >"$d/format/reader.h"
printf '#include "format/reader.h"\n#include "base/buf.h"\n' >"$d/engine/commit.c"
expect good 0 'no circles: 1 passed'

d=$(tree upward)
printf '#include "engine/table.h"\n' >"$d/base/buf.c"
printf '\n' >"$d/engine/table.h"
expect upward 1 'base/buf.c: includes "engine/table.h": layer base may not include engine \(it may include: public headers only\)'

# s3 sits above format in the numbering, but the table lets s3 include base only.
d=$(tree sideways)
printf '#include "format/snapshot.h"\n' >"$d/s3/xml.c"
printf '#include "base/buf.h"\n' >"$d/format/snapshot.h"; printf '\n' >"$d/base/buf.h"
expect sideways 1 's3/xml.c: includes "format/snapshot.h": layer s3 may not include format \(it may include: base\)'

# A table the check cannot read stops it (nothing passes unchecked).
d=$(tree notable)
printf '# layers\n\nNo table here.\n' >"$d/README.md"
expect notable 1 'layer table cannot be read.*no layer table'
d=$(tree badrow)
table | sed 's/| base, s3 |/| base, strategy |/' >"$d/README.md"
expect badrow 1 'README.md:8: "may include" names "strategy", which is not the folder of an earlier row'
d=$(tree gap)
table | sed 's/^| 3 |/| 7 |/' >"$d/README.md"
expect gap 1 'README.md:7: row number "7", expected 3'
d=$(tree noreadme)
rm "$d/README.md"
expect noreadme 1 'README.md: cannot be read'

d=$(tree circle)
printf '#include "format/b.h"\n' >"$d/format/a.c"; printf '\n' >"$d/format/a.h"
printf '#include "format/a.h"\n' >"$d/format/b.c"; printf '\n' >"$d/format/b.h"
expect circle 1 'include circle between format/a, format/b'

d=$(tree internal)
printf '#include "store/store_internal.h"\n' >"$d/store/mem.c"
printf '#include "store/mem.h"\n' >"$d/store/store.c"; printf '\n' >"$d/store/mem.h"
printf '\n' >"$d/store/store_internal.h"
expect internal 1 'include circle between store/mem, store/store'

d=$(tree flat)
printf '\n' >"$d/stray.c"
expect flat 1 'stray.c: not in a layer folder'

d=$(tree missing)
printf '#include "buf.h"\n' >"$d/base/hash.c"
expect missing 1 'includes "buf.h", which is not a file under native/src'

n=11
if [ -n "$cc" ]; then
  # Declarations written in place (no includes), so only the symbols tell.
  d=$(tree calls)
  printf 'int engine_run(void);\nint base_help(void) { return engine_run(); }\n' >"$d/base/help.c"
  printf 'int base_help(void);\nint engine_run(void) { return 1; }\nint engine_go(void) { return base_help(); }\n' >"$d/engine/run.c"
  printf 'int fmt_b(void);\nint fmt_a(int n) { return n ? fmt_b() : 0; }\n' >"$d/format/a.c"
  printf 'int fmt_a(int);\nint fmt_b(void) { return fmt_a(0); }\n' >"$d/format/b.c"
  for f in base/help engine/run format/a format/b; do
    "$cc" -c "$d/$f.c" -o "$tmp/$(basename "$f").c.o"
  done
  ar rcs "$tmp/libcalls.a" "$tmp"/*.c.o
  expect calls 1 'base/help.c: uses engine_run from engine/run.c: layer base may not depend on engine' "$tmp/libcalls.a"
  expect calls 1 'call circle between format/a.c, format/b.c' "$tmp/libcalls.a"
  # A call s3 -> format, which the numbering alone would accept.
  d=$(tree sidecall)
  printf 'int fmt_parse(void) { return 2; }\n' >"$d/format/parse.c"
  printf 'int fmt_parse(void);\nint s3_get(void) { return fmt_parse(); }\n' >"$d/s3/get.c"
  mkdir "$tmp/side"
  for f in format/parse s3/get; do "$cc" -c "$d/$f.c" -o "$tmp/side/$(basename "$f").c.o"; done
  ar rcs "$tmp/libside.a" "$tmp"/side/*.c.o
  expect sidecall 1 's3/get.c: uses fmt_parse from format/parse.c: layer s3 may not depend on format' "$tmp/libside.a"
  n=14
fi
[ "$failed" -eq 0 ] && echo "check_layers self-test: $n verdicts as expected: 1 passed, 0 failed"
exit "$failed"
