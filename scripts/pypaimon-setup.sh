#!/usr/bin/env bash
# pypaimon for the Paimon reader checks (tests/paimon/): installs pypaimon $PYPAIMON_VERSION into
# a venv under $SC_TOOLS (default /root/.cache/snapcommit/tools) and prints the venv's python.
# Idempotent: a venv that already has the pinned version is reused without touching the network.
# Network: PyPI only, through pip, and only when the venv is missing or has another version.
#   py=$(scripts/pypaimon-setup.sh) && "$py" tests/paimon/pypaimon_read.py TABLE
set -euo pipefail

TOOLS=${SC_TOOLS:-/root/.cache/snapcommit/tools}
PYPAIMON_VERSION=2.1.0
VENV=$TOOLS/pypaimon-venv

die() { echo "pypaimon-setup: $*" >&2; exit 1; }

ready() {
    [[ -x $VENV/bin/python ]] &&
        "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pypaimon') != '$PYPAIMON_VERSION')" 2>/dev/null &&
        "$VENV/bin/python" -c "import pypaimon, pyarrow" 2>/dev/null
}

if ! ready; then
    command -v python3 >/dev/null || die "python3 is not installed"
    mkdir -p "$TOOLS"
    echo "pypaimon-setup: installing pypaimon==$PYPAIMON_VERSION into $VENV (pip)" >&2
    # A venv of its own (no system site packages): pypaimon pins pyarrow, pandas and polars ranges
    # that must not be mixed with whatever else is installed system-wide.
    [[ -x $VENV/bin/pip ]] || python3 -m venv "$VENV" || die "cannot create $VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "pypaimon==$PYPAIMON_VERSION" >&2 \
        || die "pip install pypaimon==$PYPAIMON_VERSION failed"
    ready || die "pypaimon $PYPAIMON_VERSION is not usable from $VENV"
fi
echo "$VENV/bin/python"
