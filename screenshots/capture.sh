#!/usr/bin/env bash
# Regenerates the PNG screenshots in this directory from real runs: the
# binary in tmux at a fixed size (`--local --demo`, true colour), captured
# with `tmux capture-pane -e`, turned into HTML by aha and into PNG by
# headless chromium.
# Usage: screenshots/capture.sh path/to/sandview
set -euo pipefail

bin=$(realpath "${1:?usage: $0 path/to/sandview}")
here=$(cd "$(dirname "$0")" && pwd)
for tool in tmux aha chromium; do
  command -v "$tool" >/dev/null || { echo "capture: $tool is missing (apt-get install tmux aha chromium)" >&2; exit 1; }
done

work=$(mktemp -d)
session="sandview-shots-$$"
cleanup() { tmux -L "$session" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
t() { tmux -L "$session" "$@"; }

free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 30000))
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
}

# wait_for TEXT: until TEXT is on screen (20 s at most).
wait_for() {
  for _ in $(seq 200); do
    t capture-pane -p -t main | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "capture: timed out waiting for '$1'" >&2
  t capture-pane -p -t main >&2
  exit 1
}

# shot NAME: the current screen as NAME.png.
shot() {
  local name=$1 cols rows
  cols=$(t display -p -t main '#{pane_width}')
  rows=$(t display -p -t main '#{pane_height}')
  t capture-pane -e -p -t main >"$work/$name.ansi"
  aha $aha_background --title "sandview" <"$work/$name.ansi" \
    | sed 's|<pre>|<pre style="font-family: DejaVu Sans Mono, monospace; font-size: 14px; line-height: 1.2; margin: 0; padding: 8px;">|' \
    >"$work/$name.html"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/chromium" --hide-scrollbars \
    --window-size="$((cols * 85 / 10 + 16)),$((rows * 17 + 16))" \
    --screenshot="$here/$name.png" "file://$work/$name.html" >/dev/null 2>&1
  echo "capture: $name.png"
}

# start COLS ROWS THEME: sandview --local --demo in a fresh tmux server.
start() {
  # The page behind the capture plays the terminal's background.
  aha_background=""
  [ "$3" = dark ] && aha_background="--black"
  t kill-server 2>/dev/null || true
  rm -rf "$work/home"
  local http smtp
  http=$(free_port); smtp=$(free_port)
  t -f /dev/null new-session -d -s main -x "$1" -y "$2" \
    "SANDVIEW_HOME='$work/home' COLORTERM=truecolor SANDVIEW_TRUECOLOR=1 '$bin' --local --demo --theme $3 --http 127.0.0.1:$http --smtp 127.0.0.1:$smtp"
  wait_for "5 emails"
}

start 200 50 dark
# Newest first: Newsletter, Password reset, Grüße, order shipped, Welcome.
# The cursor stays on the first mail that arrived (Welcome) as new ones
# are flagged above it.
t send-keys -t main Tab
t send-keys -t main k Enter
wait_for "Track it"
shot wide-live-mail
t send-keys -t main k Enter
wait_for "Hallo"
shot message
t send-keys -t main k Enter
wait_for "reset your password"
t send-keys -t main 6
wait_for "DMARC"
shot auth-failure

start 78 30 dark
t send-keys -t main Tab
wait_for "Newsletter"
shot narrow

start 120 40 light
t send-keys -t main Tab k k k k Enter
wait_for "All of SPF"
shot light-theme
