#!/usr/bin/env bash
# Regenerates the PNG screenshots in this directory from real runs: the
# binary in tmux at a fixed size (`--local --demo`, true colour), captured
# with `tmux capture-pane -e`, turned into HTML by aha and into PNG by
# headless chromium.
#
# The page lays the capture out on the terminal's grid: DejaVu Sans Mono
# for Latin text and box drawing, Noto Sans Mono CJK for CJK, Noto Color
# Emoji for emoji, and every character outside ASCII in a box exactly as
# many cells wide as the C library's wcwidth (what tmux laid it out with)
# says, so a wide character takes two cells whatever its font's advance.
# Usage: screenshots/capture.sh path/to/sandview
set -euo pipefail

# tmux, grep and wc handle UTF-8 only in a UTF-8 locale.
export LC_ALL=C.UTF-8
bin=$(realpath "${1:?usage: $0 path/to/sandview}")
here=$(cd "$(dirname "$0")" && pwd)
for tool in tmux aha chromium fc-list; do
  command -v "$tool" >/dev/null || { echo "capture: $tool is missing (apt-get install tmux aha chromium fontconfig)" >&2; exit 1; }
done
fonts=$(fc-list : family)
for font in "DejaVu Sans Mono" "Noto Sans Mono CJK SC" "Noto Color Emoji"; do
  grep -qF "$font" <<<"$fonts" || {
    echo "capture: the font $font is missing (apt-get install fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji)" >&2
    exit 1
  }
done

work=$(mktemp -d)
# Each start gets a tmux server of its own (a new session on a server
# still exiting fails with "server exited unexpectedly").
starts=0
session="sandview-shots-$$-$starts"
sockets="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)"
cleanup() { tmux -L "$session" kill-server 2>/dev/null || true; rm -f "$sockets/sandview-shots-$$-"*; rm -rf "$work"; }
trap cleanup EXIT
t() { tmux -L "$session" "$@"; }

# free_ports N: N distinct ports nothing listens on.
free_ports() {
  local port got=" "
  while [ "$(wc -w <<<"$got")" -lt "$1" ]; do
    port=$((20000 + RANDOM % 30000))
    case "$got" in *" $port "*) continue ;; esac
    (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || got="$got$port "
  done
  echo $got
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

# settled: until two captures 0.3 s apart are the same (the screen has
# stopped changing: no mail arriving, no status message fading).
settled() {
  local before after
  before=$(t capture-pane -e -p -t main)
  for _ in $(seq 100); do
    sleep 0.3
    after=$(t capture-pane -e -p -t main)
    [ "$after" = "$before" ] && return 0
    before=$after
  done
  echo "capture: the screen never settled" >&2
  exit 1
}

# cells HTML: wraps every character outside ASCII in a box as many cells
# wide as wcwidth says (one sed rule per distinct character).
cells() {
  local c w rules="$work/cells.sed"
  : >"$rules"
  grep -oP '[^\x{00}-\x{7f}]' "$1" | sort -u | while IFS= read -r c; do
    w=$(printf '%s\n' "$c" | wc -L)
    [ "$w" -ge 1 ] || continue
    printf 's|%s|<span class="w%d">%s</span>|g\n' "$c" "$w" "$c" >>"$rules"
  done
  sed -f "$rules" "$1"
}

# The page: one line of the grid is 17 px, one cell is 1ch of DejaVu Sans
# Mono at 14 px.
style='<style>
pre { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", "Noto Color Emoji", monospace;
      font-size: 14px; line-height: 17px; margin: 0; padding: 8px; font-variant-ligatures: none; }
.w1, .w2 { display: inline-block; height: 17px; vertical-align: top; text-align: center; overflow: hidden; }
.w1 { width: 1ch; } .w2 { width: 2ch; }
</style>'

# shot NAME: the current screen as NAME.png.
shot() {
  local name=$1 cols rows
  settled
  cols=$(t display -p -t main '#{pane_width}')
  rows=$(t display -p -t main '#{pane_height}')
  t capture-pane -e -p -t main >"$work/$name.ansi"
  aha $aha_background --title "sandview" <"$work/$name.ansi" >"$work/$name.aha.html"
  cells "$work/$name.aha.html" | sed "s|</head>|$(printf '%s' "$style" | tr '\n' ' ')</head>|" >"$work/$name.html"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/chromium" --hide-scrollbars --force-device-scale-factor=1 \
    --window-size="$((cols * 843 / 100 + 16)),$((rows * 17 + 16))" \
    --screenshot="$here/$name.png" "file://$work/$name.html" >/dev/null 2>&1
  echo "capture: $name.png"
}

# launch COLS ROWS THEME COMMAND: COMMAND in a fresh tmux server.
launch() {
  # The page behind the capture plays the terminal's background.
  aha_background=""
  [ "$3" = dark ] && aha_background="--black"
  t kill-server 2>/dev/null || true
  starts=$((starts + 1))
  session="sandview-shots-$$-$starts"
  t -u -f /dev/null new-session -d -s main -x "$1" -y "$2" "$4"
}

# start COLS ROWS THEME FLAGS: sandview --local FLAGS on free ports, with an
# empty home.
start() {
  rm -rf "$work/home"
  read -r http smtp <<<"$(free_ports 2)"
  launch "$1" "$2" "$3" "SANDVIEW_HOME='$work/home' COLORTERM=truecolor SANDVIEW_TRUECOLOR=1 SANDVIEW_HYPERLINKS=0 '$bin' --local $4 --theme $3 --http 127.0.0.1:$http --smtp 127.0.0.1:$smtp"
}

start 200 50 dark --demo
wait_for "5 emails"
# Newest first: Newsletter, Password reset, Grüße, order shipped, Welcome.
# The cursor stays on the newest mail while nobody moves it; three rows
# down is the order mail, HTML only, which the reader renders.
t send-keys -t main j j j
wait_for "Track your parcel"
shot wide-live-mail
t send-keys -t main k
wait_for "Hallo"
shot message
t send-keys -t main k
wait_for "reset your password"
t send-keys -t main 6
wait_for "DMARC"
shot auth-failure

start 78 30 dark --demo
wait_for "5 emails"
wait_for "Newsletter"
shot narrow

start 120 40 light --demo
wait_for "5 emails"
wait_for "All of SPF"
shot light-theme

# The webhooks view: a receiver on loopback, with a webhook pointing at
# it, takes the deliveries of the demo mail as it arrives.
start 160 45 dark --demo
wait_for "Inboxes"
t send-keys -t main w
wait_for "Webhooks"
t send-keys -t main l
wait_for "5 emails"
wait_for "email.received"
# The stats are listed again a moment after the last delivery.
wait_for "10 ok"
t send-keys -t main Tab Tab
shot webhooks

# Mail from an app: --local without the demo, and a sign-up mail sent by
# Python's smtplib (screenshots/signup_app.py) arriving while it is open.
start 120 32 dark ""
wait_for "No mail yet"
python3 "$here/signup_app.py" "127.0.0.1:$smtp"
wait_for "Confirm your Acme account"
shot app-live

# The shared box: `sandview serve --ssh` with one authorized key, and
# OpenSSH's client logged in to it in the terminal; the same app sends.
rm -rf "$work/box"
mkdir -p "$work/box"
ssh-keygen -q -t ed25519 -N '' -C "tester@laptop" -f "$work/box/id"
cp "$work/box/id.pub" "$work/box/authorized_keys"
read -r http smtp sshp <<<"$(free_ports 3)"
SANDVIEW_HOME="$work/box/home" "$bin" serve --http "127.0.0.1:$http" --smtp "127.0.0.1:$smtp" \
  --ssh "127.0.0.1:$sshp" --ssh-authorized-keys "$work/box/authorized_keys" --api-key shots \
  --catch-all qa@sandbox.test >"$work/box/server.log" 2>&1 &
box=$!
trap 'kill $box 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 200); do grep -q "host key" "$work/box/server.log" && break; sleep 0.1; done
grep -q "host key" "$work/box/server.log" || { echo "capture: serve --ssh did not start" >&2; cat "$work/box/server.log" >&2; exit 1; }
launch 120 32 dark "COLORTERM=truecolor TERM=xterm-256color ssh -tt -p $sshp -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i '$work/box/id' 127.0.0.1"
wait_for "catch-all"
python3 "$here/signup_app.py" "127.0.0.1:$smtp"
wait_for "Confirm your Acme account"
t send-keys -t main Enter
wait_for "482913"
shot ssh-box
