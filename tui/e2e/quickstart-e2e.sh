#!/usr/bin/env bash
# The README's quick start, as written, in a clean shell (an empty HOME, a
# PATH of the Go toolchain and the system): `go install .` into an empty
# GOBIN, `sandview --local` in tmux, then the paragraph's `sandview send
# --local …` from another shell; the mail must show on screen, open with
# enter, and be in `sandview email list --local --json`. The ports are the
# documented SVC_HTTP/SVC_SMTP, free ones, so a busy 1025 does not matter.
# Usage: tui/e2e/quickstart-e2e.sh (from the repository's root)
set -euo pipefail

cols=120 rows=40
name=quickstart
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
repo=$(pwd)

# The quick start's commands: the sh block, and the send of its paragraph.
block=$(awk '/^## Quick start$/ {q = 1} q && /^```sh$/ {b = 1; next} b && /^```$/ {exit} b' README.md)
[ "$(printf '%s\n' "$block" | wc -l)" -eq 2 ] || fail "README's quick start block is not two commands: $block"
install=$(printf '%s\n' "$block" | sed -n 1p)
local_cmd=$(printf '%s\n' "$block" | sed -n 2p)
send=$(awk '/^## Quick start$/ {q = 1} q && /^## Keys$/ {exit} q' README.md | tr '\n' ' ' |
  grep -o '`sandview send --local[^`]*`' | tr -d '`')
list=$(awk '/^## Quick start$/ {q = 1} q && /^## Keys$/ {exit} q' README.md | tr '\n' ' ' |
  grep -o '`sandview email list --local`' | tr -d '`')
[ -n "$send" ] && [ -n "$list" ] || fail "README's quick start names no send or list command"
to=$(printf '%s\n' "$send" | sed -n 's/.*--to \([^ ]*\).*/\1/p')
subject=$(printf '%s\n' "$send" | sed -n 's/.*--subject \([^ ]*\).*/\1/p')

mkdir -p "$work/home" "$work/bin"
gotool=$(dirname "$(command -v go)")
clean=(env -i "HOME=$work/home" "PATH=$work/bin:$gotool:/usr/local/bin:/usr/bin:/bin" "TERM=xterm-256color"
  "LC_ALL=C.UTF-8" "GOBIN=$work/bin" "GOCACHE=$(go env GOCACHE)" "GOMODCACHE=$(go env GOMODCACHE)"
  "GOPROXY=$(go env GOPROXY)" "SVC_HTTP=127.0.0.1:$(free_port)" "SVC_SMTP=127.0.0.1:$(free_port)" "SVC_DNS=$SVC_DNS")

(cd "$repo" && "${clean[@]}" sh -c "$install") || fail "$install"
[ -x "$work/bin/sandview" ] || fail "$install put no sandview in GOBIN"

screen() { tmux capture-pane -p -t "$session"; }
on_screen() { screen | grep -qF -- "$1"; }
on_screen_re() { screen | grep -qE -- "$1"; }
tmux -u new-session -d -s "$session" -x "$cols" -y "$rows" \
  "cd '$work' && $(printf '%q ' "${clean[@]}") sh -c '$local_cmd'; echo \"exit=\$?\" > '$work/exit'; sleep 30"
wait_for "the local server" "${clean[@]}" sh -c "$list"

"${clean[@]}" sh -c "$send" >/dev/null || fail "$send"
wait_for "the mail on screen" on_screen "$to"
tmux send-keys -t "$session" Enter
wait_for "the mail opened" on_screen_re "│Subject +$subject +│"
"${clean[@]}" sh -c "$list --json" | grep -q "\"subject\": \"$subject\"" || fail "$list --json lacks the mail"

tmux send-keys -t "$session" q q
wait_for "sandview to quit" test -s "$work/exit"
grep -qx 'exit=0' "$work/exit" || fail "sandview --local ended with $(cat "$work/exit")"
echo "$name: ok"
