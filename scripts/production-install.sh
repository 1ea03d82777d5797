#!/usr/bin/env bash
# What the container image does (Dockerfile), without a container engine, from a clean clone of this
# repository's committed HEAD: install every dependency, build dist/, copy what the runtime stage copies
# and drop the dev dependencies there (npm prune --omit=dev), then start dist/ with plain `node` on
# PostgreSQL, get a token, list vendors, and stop; then a first start on the embedded database (which copies
# dist/embedded-template-demo/). Exit 0 only if all of that worked. CI runs it (.ci/run).
#
#   scripts/production-install.sh        # PostgreSQL from PRODUCTION_CHECK_DATABASE_URL, default below
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
admin_url="${PRODUCTION_CHECK_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
work="$(mktemp -d "${TMPDIR:-/tmp}/procurement-production-XXXXXX")"
db="procurement_production_check_$$"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2> /dev/null || true
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$db\"" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== clean clone of HEAD into $work/build"
git clone --quiet --no-hardlinks "$repo" "$work/build"
cd "$work/build"

echo "== install (every dependency) and build"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
npm run build --silent

echo "== runtime copy: package files, bin/, dist/, node_modules/, then npm prune --omit=dev"
mkdir "$work/app"
cp -R package.json package-lock.json bin dist node_modules "$work/app/"
cd "$work/app"
npm prune --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
if [ -d node_modules/typescript ] || [ -d node_modules/eslint ]; then
  echo "FAIL: dev dependencies survived the prune" >&2
  exit 1
fi
[ ! -e src ] || { echo "FAIL: src/ in the runtime copy" >&2; exit 1; }
# The idle server gives malloc's free pages back through koffi's prebuilt binary (src/core/native-memory.ts);
# install scripts are off, so the binary must come with the package for this platform.
node -e 'require("koffi").load("libc.so.6").func("int malloc_trim(size_t)")' ||
  { echo "FAIL: koffi cannot reach glibc in the runtime copy" >&2; exit 1; }

echo "== start dist/ with plain node on PostgreSQL"
psql -q "$admin_url" -c "CREATE DATABASE \"$db\"" > /dev/null
db_url="$(node -e 'const u=new URL(process.argv[1]);u.pathname="/"+process.argv[2];console.log(u.href)' "$admin_url" "$db")"
log="$work/server.log"
DATABASE_URL="$db_url" DEMO_SEED=true PORT=0 HOST=127.0.0.1 NODE_ENV=production \
  TOKEN_SIGNING_KEY="$(node -e 'console.log(require("crypto").randomBytes(36).toString("base64"))')" \
  SECRET_PEPPER="$(node -e 'console.log(require("crypto").randomBytes(36).toString("base64"))')" \
  node dist/procurement.js serve > "$log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  grep -qs 'Client Secret: ' "$log" && break
  kill -0 "$server" 2> /dev/null || { cat "$log" >&2; echo "FAIL: the server exited" >&2; exit 1; }
  sleep 0.5
done
origin="$(sed -n 's/^Procurement service listening on \(http:[^ ]*\).*/\1/p' "$log")"
client_id="$(sed -n 's/^Client ID: //p' "$log")"
client_secret="$(sed -n 's/^Client Secret: //p' "$log")"
[ -n "$origin" ] && [ -n "$client_id" ] && [ -n "$client_secret" ] || { cat "$log" >&2; echo "FAIL: no start-up lines" >&2; exit 1; }
echo "listening on $origin; version $(curl -fsS "$origin/healthz" | jq -r .version)"
curl -fsS "$origin/readyz" | jq -e '.database == "postgres"' > /dev/null

echo "== get a token, list vendors"
token="$(curl -fsS "$origin/oauth/token" -H 'content-type: application/json' \
  -d "{\"client_id\":\"$client_id\",\"client_secret\":\"$client_secret\",\"audience\":\"procurement-api\",\"grant_type\":\"client_credentials\"}" |
  jq -er .access_token)"
count="$(curl -fsS "$origin/api/v3/vendors/" -H "Authorization: Bearer $token" -H 'X-Service-Client: api' | jq -er '.metadata.pagination.count')"
[ "$count" -gt 0 ] || { echo "FAIL: the demo tenant lists no vendors" >&2; exit 1; }
echo "vendors: $count"

echo "== stop (SIGTERM)"
kill -TERM "$server"
code=0
wait "$server" || code=$?
server=""
[ "$code" -eq 0 ] || { cat "$log" >&2; echo "FAIL: the server exited $code on SIGTERM" >&2; exit 1; }
echo "== first start on the embedded database (the database made at build time with the demo in it, copied)"
for t in embedded-template embedded-template-demo; do
  [ -f "dist/$t/PG_VERSION" ] || { echo "FAIL: dist/$t/ is not in the runtime copy" >&2; exit 1; }
done
log="$work/embedded.log"
DATA_DIR="$work/data" PORT=0 HOST=127.0.0.1 NODE_ENV=production node dist/procurement.js serve > "$log" 2>&1 &
server=$!
for _ in $(seq 1 120); do
  grep -qs 'Client Secret: ' "$log" && break
  kill -0 "$server" 2> /dev/null || { cat "$log" >&2; echo "FAIL: the embedded server exited" >&2; exit 1; }
  sleep 0.5
done
origin="$(sed -n 's/^Procurement service listening on \(http:[^ ]*\).*/\1/p' "$log")"
[ -n "$origin" ] || { cat "$log" >&2; echo "FAIL: no start-up lines (embedded)" >&2; exit 1; }
curl -fsS "$origin/readyz" | jq -e '.database == "pglite"' > /dev/null
kill -TERM "$server"
code=0
wait "$server" || code=$?
server=""
[ "$code" -eq 0 ] || { cat "$log" >&2; echo "FAIL: the embedded server exited $code on SIGTERM" >&2; exit 1; }
echo "embedded first start: ready at $origin"
echo "== production install passed"
