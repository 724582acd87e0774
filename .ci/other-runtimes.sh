#!/usr/bin/env bash
# The SQLite session store on runtimes other than Node: its conformance suite under Bun (bun:sqlite)
# and Deno (node:sqlite), each from the npm registry's `bun` and `deno` packages (the binaries ship
# inside their platform packages). Node 22 and 24 run node:sqlite in .ci/matrix.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${SKILLBOX_MATRIX_DIR:-/tmp/skillbox-matrix}/runtimes
if [ ! -x "$tools/node_modules/.bin/bun" ] || [ ! -x "$tools/node_modules/.bin/deno" ]; then
  mkdir -p "$tools"
  npm i --prefix "$tools" --no-audit --no-fund --no-save bun deno >/dev/null
fi
suite=src/sessions/sqlite/sqlite-session-store.test.ts
echo "== bun $("$tools/node_modules/.bin/bun" --version): $suite (bun:sqlite)"
"$tools/node_modules/.bin/bun" --bun node_modules/vitest/vitest.mjs run "$suite" -t 'bun:sqlite'
echo "== $("$tools/node_modules/.bin/deno" --version | head -1): $suite (node:sqlite)"
"$tools/node_modules/.bin/deno" run -A node_modules/vitest/vitest.mjs run "$suite" -t 'node:sqlite'
