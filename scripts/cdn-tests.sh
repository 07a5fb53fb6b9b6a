#!/usr/bin/env bash
# The package repository behind a CDN (docs/offline-packages.md, "Serving at scale"), in `make test`:
# 1. `hybrid bench rollout` at a small size (50 installs): varnishd (deploy/varnish/hybrid-repo.vcl) in
#    front of `hybrid serve`'s server, every install updated v1 → v2 through it with the real
#    PackageUpdater, then halted back; fails unless no install failed, the origin sent no immutable
#    object twice and every install came back.
# 2. deploy/nginx/hybrid-repo.conf: nginx (unprivileged, loopback, its own prefix) and `hybrid serve`
#    on the same repository give every file the same Cache-Control, and nginx answers a
#    revalidation of a pointer with 304.
# Fails (does not skip) when varnish or nginx is missing: bash scripts/bootstrap.sh installs both.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .build/debug/hybrid-bench ] || swift build --product hybrid-bench
[ -x .build/debug/hybrid ] || swift build --product hybrid
command -v varnishd >/dev/null || [ -x /usr/sbin/varnishd ] || { echo "cdn-tests: varnishd is missing (bash scripts/bootstrap.sh)"; exit 1; }
[ -x /usr/sbin/nginx ] || { echo "cdn-tests: nginx is missing (bash scripts/bootstrap.sh)"; exit 1; }

passed=0
failed=0
check() { # NAME CONDITION-EXIT-STATUS
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1"; fi
}

# 1. The rollout through Varnish.
installs=50
result=$(HYBRID_BENCH_INSTALLS=$installs timeout 120 .build/debug/hybrid-bench rollout --json | tail -1) || true
echo "bench rollout: $result"
status=0
python3 - "$result" "$installs" <<'PY' || status=1
import json, sys
try:
    r = json.loads(sys.argv[1]); n = int(sys.argv[2])
    ok = (r["installs"] == n and r["failed_installs"] == 0 and r["max_origin_fetches_per_object"] <= 1
          and r["halt_returned"] == n and r["origin_requests"] < r["edge_requests"])
except (ValueError, KeyError):
    ok = False
sys.exit(0 if ok else 1)
PY
check "rollout of $installs installs through varnish (none failed, each object once from the origin, all halted back)" $status

# 2. nginx and `hybrid serve` agree on every file's caching.
work=$(mktemp -d)
nginx_pid=""
serve_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
hybrid=.build/debug/hybrid
mkdir -p "$work/site" "$work/logs"
for version in 1 2; do
  printf '<!doctype html><title>v%s</title><script src="app.js"></script>\n' "$version" > "$work/site/index.html"
  python3 -c "import sys; print('var app = ' + repr('x' * 20000) + '; // v$version')" > "$work/site/app.js"
  $hybrid keygen --out "$work/keys" >/dev/null 2>&1 || true
  $hybrid pack "$work/site" --id shop --version "$version" --origin https://m.example.com/shop/ --entry index.html \
    --key "$work/keys/private" --repo "$work/repo" >/dev/null
done
$hybrid rollout start --repo "$work/repo" --id shop --key "$work/keys/private" --candidate 2 >/dev/null 2>&1 || true
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
nginx_port=$(port)
cat > "$work/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
  types { application/json json; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$nginx_port;
    root $work/repo;
    include $PWD/deploy/nginx/hybrid-repo.conf;
  }
}
CONF
mkdir -p "$work/tmp"
# nginx's workers run as nobody when started by root: the repository must be world-readable, as on a server.
chmod -R a+rX "$work"
/usr/sbin/nginx -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
serve_port=$(port)
$hybrid serve "$work/repo" --port "$serve_port" --quiet >/dev/null 2>&1 &
serve_pid=$!
for _ in $(seq 50); do
  curl -s -o /dev/null "http://127.0.0.1:$nginx_port/index.json" && curl -s -o /dev/null "http://127.0.0.1:$serve_port/index.json" && break
  sleep 0.1
done
mismatches=0
classes=""
while IFS= read -r file; do
  nginx_head=$(curl -s -D - -o /dev/null "http://127.0.0.1:$nginx_port/$file" | tr -d '\r')
  serve_head=$(curl -s -D - -o /dev/null "http://127.0.0.1:$serve_port/$file" | tr -d '\r')
  a=$(echo "$nginx_head" | sed -n 's/^[Cc]ache-[Cc]ontrol: //p')
  b=$(echo "$serve_head" | sed -n 's/^[Cc]ache-[Cc]ontrol: //p')
  # Both must serve the file (a 403 or 404 also carries the header: `always`).
  if [ "$a" != "$b" ] || [ -z "$a" ] || ! echo "$nginx_head" | grep -q '^HTTP/1.1 200' || ! echo "$serve_head" | grep -q '^HTTP/1.1 200'; then mismatches=$((mismatches + 1)); echo "  $file: nginx '$a', hybrid serve '$b'"; fi
  classes="$classes$b"$'\n'
done < <(cd "$work/repo" && find . -type f | sed 's|^\./||' | sort)
check "nginx and hybrid serve give every repository file the same Cache-Control" $mismatches
status=0
{ echo "$classes" | grep -q "immutable" && echo "$classes" | grep -q "^public, max-age=60$"; } || status=1
check "the repository has immutable and short-lived files" $status
etag=$(curl -s -D - -o /dev/null "http://127.0.0.1:$nginx_port/packages/shop/latest.json" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "http://127.0.0.1:$nginx_port/packages/shop/latest.json")
status=0
[ -n "$etag" ] && [ "$code" = 304 ] || { echo "  ETag '$etag' → $code"; status=1; }
check "nginx revalidates a pointer with 304" $status
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $(curl -s -D - -o /dev/null "http://127.0.0.1:$serve_port/packages/shop/rollout.json" | tr -d '\r' | sed -n 's/^[Ee][Tt]ag: //p')" "http://127.0.0.1:$serve_port/packages/shop/rollout.json")
status=0
[ "$code" = 304 ] || status=1
check "hybrid serve revalidates a rollout document with 304" $status

echo "cdn-tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
