#!/usr/bin/env bash
# End-to-end check of the TUI served over SSH, with OpenSSH's own client in
# tmux: `sandview serve --ssh` on random loopback ports with one authorized
# key; `ssh` logs in with it (the host key it learns must be the one the
# banner printed), the catch-all shows, a mail sent over SMTP to any
# address appears live, every pane row is as wide as the terminal, q ends
# the session and ssh exits 0; a command runs over SSH without a terminal;
# an unknown key is refused.
# Usage: tui/e2e/ssh-e2e.sh path/to/sandview
set -euo pipefail

bin=$(realpath "${1:?usage: $0 path/to/sandview}")
cols=100 rows=30
name=ssh-e2e
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

http_port=$(free_port) smtp_port=$(free_port) ssh_port=$(free_port)
ssh-keygen -q -t ed25519 -N '' -C "tester@e2e" -f "$work/id"
ssh-keygen -q -t ed25519 -N '' -C "stranger" -f "$work/stranger"
cp "$work/id.pub" "$work/authorized_keys"

SANDVIEW_HOME="$work/home" "$bin" serve --http "127.0.0.1:$http_port" --smtp "127.0.0.1:$smtp_port" \
  --ssh "127.0.0.1:$ssh_port" --ssh-authorized-keys "$work/authorized_keys" --api-key e2e-key \
  --catch-all qa@sandbox.test >"$work/server.log" 2>&1 &
server_pid=$!
wait_for "the SSH banner" grep -q "host key" "$work/server.log"
printed=$(sed -n 's/^ *host key *//p' "$work/server.log")

ssh_opts=(-p "$ssh_port" -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new
  -o UserKnownHostsFile="$work/known_hosts" -o LogLevel=ERROR)

# A stranger's key is refused before any session.
if ssh "${ssh_opts[@]}" -i "$work/stranger" 127.0.0.1 inbox list 2>"$work/stranger.err"; then
  fail "an unknown key ran a command"
fi
grep -q "Permission denied" "$work/stranger.err" || fail "the unknown key was not refused: $(cat "$work/stranger.err")"

learned=$(ssh-keygen -l -F "[127.0.0.1]:$ssh_port" -f "$work/known_hosts" | awk '/SHA256/ {print $3}')
[ "$learned" = "$printed" ] || fail "ssh learned host key $learned, the banner printed $printed"

# A command without a terminal: the user's inbox list (none yet) as JSON.
out=$(ssh "${ssh_opts[@]}" -i "$work/id" 127.0.0.1 inbox list --json) || fail "inbox list over ssh failed"
case "$out" in \[*) ;; *) fail "inbox list --json over ssh printed: $out" ;; esac

screen() { tmux capture-pane -p -t "$session"; }
on_screen() { screen | grep -qF -- "$1"; }

tmux -u new-session -d -s "$session" -x "$cols" -y "$rows" \
  "TERM=xterm-256color ssh -tt ${ssh_opts[*]} -i '$work/id' 127.0.0.1; echo \"exit=\$?\" > '$work/exit'; sleep 30"
wait_for "the catch-all on screen" on_screen "catch-all"

subject="over-ssh-$((RANDOM % 9000 + 1000))"
printf 'From: app@example.org\r\nTo: someone@elsewhere.example\r\nSubject: %s\r\n\r\nsent to any address\r\n' "$subject" >"$work/mail.eml"
curl -sS --url "smtp://127.0.0.1:$smtp_port" --mail-from app@example.org --mail-rcpt someone@elsewhere.example \
  --upload-file "$work/mail.eml" || fail "could not send over SMTP"
wait_for "the mail on screen" on_screen "$subject"

# Every row between the borders is as wide as the terminal.
n=0
while IFS= read -r line; do
  n=$((n + 1))
  [ "$n" -ge 2 ] && [ "$n" -le $((rows - 2)) ] || continue
  width=$(printf '%s\n' "$line" | wc -L)
  [ "$width" -eq "$cols" ] || fail "row $n is $width cells wide: $line"
done < <(screen)

tmux send-keys -t "$session" Enter
wait_for "the body" on_screen "sent to any address"
tmux send-keys -t "$session" q q
wait_for "ssh to exit" test -s "$work/exit"
[ "$(cat "$work/exit")" = "exit=0" ] || fail "ssh exited with $(cat "$work/exit")"
echo "ssh-e2e: ok"
