#!/usr/bin/env bash
# End-to-end check of the real binary in tmux at a fixed size, against
# `sandview serve`: a mail sent with `sandview send` shows on screen; it is
# opened, the auth tab is shown, and the program quits cleanly.
# Usage: tui/e2e/tmux-e2e.sh path/to/sandview
set -euo pipefail

bin=$(realpath "${1:?usage: $0 path/to/sandview}")
work=$(mktemp -d)
session="sandview-e2e-$$"
server_pid=""
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "e2e: FAIL: $*" >&2
  echo "--- screen ---" >&2
  tmux capture-pane -p -t "$session" 2>/dev/null >&2 || true
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

free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 30000))
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

http_port=$(free_port)
smtp_port=$(free_port)
url="http://127.0.0.1:$http_port"
export SANDVIEW_HOME="$work/home"
export SERVICE_URL="$url" SERVICE_API_KEY="e2e-key"

"$bin" serve --http "127.0.0.1:$http_port" --smtp "127.0.0.1:$smtp_port" --api-key "$SERVICE_API_KEY" --dev \
  >"$work/server.log" 2>&1 &
server_pid=$!
wait_for "the server" "$bin" inbox list

address=$("$bin" inbox create --json | sed -n 's/.*"emailAddress": *"\([^"]*\)".*/\1/p')
[ -n "$address" ] || fail "inbox create printed no address"

screen() { tmux capture-pane -p -t "$session"; }
on_screen() { screen | grep -qF -- "$1"; }

tmux new-session -d -s "$session" -x 120 -y 40 \
  "SANDVIEW_HOME='$SANDVIEW_HOME' SERVICE_URL='$url' SERVICE_API_KEY='$SERVICE_API_KEY' '$bin'; echo \"exit=\$?\" > '$work/exit'; sleep 30"
wait_for "the inbox on screen" on_screen "$address"

subject="e2e-$((RANDOM % 9000 + 1000))"
"$bin" send --to "$address" --subject "$subject" --text "body of the e2e mail" --smtp "127.0.0.1:$smtp_port" >/dev/null
wait_for "the mail on screen" on_screen "$subject"

# Focus the message list, open the mail, show the auth tab.
tmux send-keys -t "$session" Tab
tmux send-keys -t "$session" Enter
wait_for "the body" on_screen "body of the e2e mail"
tmux send-keys -t "$session" 6
wait_for "the auth report" on_screen "SPF"
wait_for "the DMARC line" on_screen "DMARC"

tmux send-keys -t "$session" q
wait_for "a clean exit" test -s "$work/exit"
grep -qx "exit=0" "$work/exit" || fail "sandview exited with $(cat "$work/exit")"
echo "e2e: ok (mail shown, opened, auth tab, clean quit)"
