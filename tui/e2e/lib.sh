# Shared by the end-to-end scripts (sourced, not run): a work directory,
# a tmux session and a server process that go away on exit, and helpers
# to fail with the screen and server log, wait for a condition, and pick
# a free loopback port. The sourcing script sets $name (its prefix in
# messages and the session name) before sourcing, and $server_pid once it
# starts its server.

export LC_ALL=C.UTF-8 # tmux, bash and wc lay out UTF-8 only in a UTF-8 locale
work=$(mktemp -d)
session="sandview-$name-$$"
server_pid=""
dns_pid=""
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$dns_pid" ] && kill "$dns_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Every sandview the scripts start asks a DNS server on loopback that
# knows no name (scripts/nxdns; SVC_DNS), never the machine's resolver.
(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && go build -o "$work/nxdns" ./scripts/nxdns) ||
  { echo "$name: FAIL: could not build the loopback DNS server (scripts/nxdns)" >&2; exit 1; }
"$work/nxdns" >"$work/dns.addr" &
dns_pid=$!
for _ in $(seq 200); do [ -s "$work/dns.addr" ] && break; sleep 0.05; done
[ -s "$work/dns.addr" ] || { echo "$name: FAIL: the loopback DNS server (scripts/nxdns) did not start" >&2; exit 1; }
export SVC_DNS=$(cat "$work/dns.addr")

# fail MESSAGE: say why, show the screen and the server's log, exit 1.
fail() {
  echo "$name: FAIL: $*" >&2
  echo "--- screen ---" >&2
  tmux capture-pane -p -t "$session" >&2 || true
  echo "--- server log ---" >&2
  cat "$work/server.log" >&2 || true
  exit 1
}

# wait_for DESCRIPTION COMMAND...: retry COMMAND every 0.1 s for up to 20 s.
wait_for() {
  local what=$1; shift
  for _ in $(seq 200); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for $what"
}

# free_port: a loopback TCP port nothing listens on.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 30000))
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}
