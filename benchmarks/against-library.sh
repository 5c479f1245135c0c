#!/usr/bin/env bash
# Side by side, in one run: pbdfit's projection rate and the reference PBD library's (pypbd from PyPI) on
# the same N = 8 cube, nit = 4, one thread each, and their ratio. Makes its own venv; builds the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p pbdfit
VENV="${VENV:-$(mktemp -d)/venv}"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check pypbd
date -u +"%Y-%m-%d %H:%M UTC"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# The library may be built with OpenMP: one thread, like pbdfit's single-thread column.
OMP_NUM_THREADS=1 "$VENV/bin/python" benchmarks/against_library.py target/release/pbdfit
