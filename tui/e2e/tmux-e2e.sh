#!/usr/bin/env bash
# End-to-end check of the real binary in tmux at a fixed size, against
# `sandview serve`: a mail sent with `sandview send` shows on screen; it is
# opened, the auth tab is shown; hostile mails of the corpus (soft hyphens,
# a ZWJ family, CJK, a newsletter preheader) are sent over SMTP and opened,
# and every pane row tmux shows must be exactly the terminal's width with
# the border in the last column; a search keeps one of two mails, two
# marked mails are deleted at once (`email list --search` agrees); q closes
# the reader, then the program quits cleanly.
# Usage: tui/e2e/tmux-e2e.sh path/to/sandview
set -euo pipefail

bin=$(realpath "${1:?usage: $0 path/to/sandview}")
corpus=$(cd "$(dirname "$0")/../../tui/corpus/testdata/hostile" && pwd)
cols=120 rows=40
name=e2e
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

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

tmux -u new-session -d -s "$session" -x "$cols" -y "$rows" \
  "SANDVIEW_HOME='$SANDVIEW_HOME' SERVICE_URL='$url' SERVICE_API_KEY='$SERVICE_API_KEY' '$bin'; echo \"exit=\$?\" > '$work/exit'; sleep 30"
wait_for "the inbox on screen" on_screen "$address"

subject="e2e-$((RANDOM % 9000 + 1000))"
"$bin" send --to "$address" --subject "$subject" --text "body of the e2e mail" --smtp "127.0.0.1:$smtp_port" >/dev/null
wait_for "the mail on screen" on_screen "$subject"

# The message list has the keyboard: open the mail, show the auth tab.
tmux send-keys -t "$session" Enter
wait_for "the body" on_screen "body of the e2e mail"
tmux send-keys -t "$session" 6
wait_for "the auth report" on_screen "SPF"
wait_for "the DMARC line" on_screen "DMARC"

# borders_aligned: every row from the panes' top border to their bottom
# border is $cols cells wide by the C library's wcwidth (as tmux lays it
# out) and ends with the right border.
borders_aligned() {
  local n=0 line width last
  while IFS= read -r line; do
    n=$((n + 1))
    [ "$n" -ge 2 ] && [ "$n" -le $((rows - 2)) ] || continue
    width=$(printf '%s\n' "$line" | wc -L)
    last=${line: -1}
    if [ "$width" -ne "$cols" ] || [[ "$last" != [│╮╯] ]]; then
      echo "row $n is $width cells and ends with '$last': $line" >&2
      return 1
    fi
  done < <(screen)
}

# send_eml FILE: send a message over SMTP as it is.
send_eml() {
  curl -sS --url "smtp://127.0.0.1:$smtp_port" --mail-from corpus@sandview.test --mail-rcpt "$address" \
    --upload-file "$1" || fail "could not send $1 over SMTP"
}

# open_newest NAME LISTED BODY: wait for LISTED (the sender or subject of
# mail NAME) in the list, close the reader (q), open the newest mail (at
# the top of the list) and check the borders in its body and headers tabs.
open_newest() {
  wait_for "$1 in the list" on_screen "$2"
  tmux send-keys -t "$session" q 1 g Enter
  wait_for "the body of $1" on_screen "$3"
  borders_aligned || fail "$1: a row is not as wide as the terminal (body)"
  tmux send-keys -t "$session" 2
  wait_for "the headers of $1" on_screen "in the order sent"
  borders_aligned || fail "$1: a row is not as wide as the terminal (headers)"
}

send_eml "$corpus/soft-hyphen.eml"
open_newest soft-hyphen.eml "WSHY" "Donaudampfschifffahrtsgesellschaft"
# Its line of emoji newer than Unicode 15 (🫩 🫪) checks that they are
# replaced: tmux 3.3 (glibc 2.36) draws nothing for them.
send_eml "$corpus/emoji.eml"
open_newest emoji.eml "Emoji" "ZWJ family"
# part FILE N: the body of part N of a corpus mail (its whole body when
# N is 0), whose parts are separated by the boundary b1.
part() {
  awk -v n="$2" '/^--b1/ { p++; body = 0; next } p == n && body { print } p == n && /^\r?$/ { body = 1 }' "$1" | tr -d '\r'
}
# The CJK and preheader mails have lines longer than SMTP allows:
# `sandview send` encodes their parts.
"$bin" send --to "$address" --from "taro@example.jp" --subject "【重要】ご注文の確認 #12345" \
  --text "$(part "$corpus/cjk.eml" 0)" --smtp "127.0.0.1:$smtp_port" >/dev/null
open_newest cjk.eml "【重要】" "山田様"
"$bin" send --to "$address" --from "Digest <news@example.com>" --subject "Your weekly digest" \
  --text "$(part "$corpus/preheader.eml" 1)" --html "$(part "$corpus/preheader.eml" 2)" --smtp "127.0.0.1:$smtp_port" >/dev/null
open_newest preheader.eml "Digest" "This week: three stories"
# The HTML view of the newsletter preheader, hidden junk pruned (the
# 60-column reader names the tab Html, Body·html when there is room).
tmux send-keys -t "$session" 1 h
wait_for "the HTML view" on_screen " 1 Html "
borders_aligned || fail "preheader.eml: a row is not as wide as the terminal (HTML)"

# Search: of two mails, subject:…-one keeps one. Then mark both with a
# search for their shared word and delete them with one confirmation.
bulk="bulk$((RANDOM % 9000 + 1000))"
for n in one two; do
  "$bin" send --to "$address" --subject "$bulk-$n" --text "bulk mail $n" --smtp "127.0.0.1:$smtp_port" >/dev/null
done
wait_for "the two bulk mails" on_screen "$bulk-two"
wait_for "the first bulk mail" on_screen "$bulk-one"
"$bin" email list --inbox "$address" --search "subject:$bulk-one" | grep -q "$bulk-one"   || fail "email list --search did not find $bulk-one"
tmux send-keys -t "$session" q /
tmux send-keys -t "$session" -l "subject:$bulk-one"
tmux send-keys -t "$session" Enter
wait_for "the search result" on_screen "1 match of"
screen | grep -qF -- "$bulk-two" && fail "the search kept $bulk-two"
tmux send-keys -t "$session" /
tmux send-keys -t "$session" C-u
tmux send-keys -t "$session" -l "subject:$bulk"
tmux send-keys -t "$session" Enter
wait_for "both bulk mails found" on_screen "2 matches of"
tmux send-keys -t "$session" '*'
wait_for "the marks" on_screen "2 marked"
tmux send-keys -t "$session" d
wait_for "one confirmation for both" on_screen "Delete 2 marked emails on the server?"
tmux send-keys -t "$session" y
wait_for "the bulk delete" on_screen "deleted 2 emails"
gone_from_server() { "$bin" email list --inbox "$address" --search "subject:$bulk" | grep -q "No emails match the search"; }
wait_for "the deleted mails gone from the server" gone_from_server
borders_aligned || fail "a row is not as wide as the terminal (search)"

# Clear the search, open the newest mail; q only closes the reader, the
# next q quits from the list.
tmux send-keys -t "$session" /
tmux send-keys -t "$session" C-u Enter
wait_for "the search cleared" on_screen "Messages 1/"
tmux send-keys -t "$session" g Enter
wait_for "the newest mail open" on_screen "This week: three stories"
tmux send-keys -t "$session" q
wait_for "the list focused" on_screen "enter open"
test -s "$work/exit" && fail "q in the reader quit"
tmux send-keys -t "$session" q
wait_for "a clean exit" test -s "$work/exit"
grep -qx "exit=0" "$work/exit" || fail "sandview exited with $(cat "$work/exit")"
echo "e2e: ok (mail shown, opened, auth tab, hostile mails width-exact, search, bulk delete, clean quit)"
