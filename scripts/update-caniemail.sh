#!/usr/bin/env bash
# Refresh the embedded caniemail data (tui/htmlcompat/data) from the
# npm package caniemail (MIT): npm pack VERSION, extract data/caniemail.json
# and LICENSE, record the version. Usage: scripts/update-caniemail.sh [VERSION]
# (default 2.0.2). Needs npm and tar; run from anywhere in the repository,
# then `go test ./tui/htmlcompat/` and commit the three files.
set -euo pipefail
version="${1:-2.0.2}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/tui/htmlcompat/data"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "caniemail@$version" >/dev/null)
tar -xzf "$tmp"/caniemail-*.tgz -C "$tmp" package/data/caniemail.json package/LICENSE
size=$(wc -c <"$tmp/package/data/caniemail.json")
if [ "$size" -ge 1000000 ]; then
  echo "caniemail.json is $size bytes: over the repository's 1 MB limit" >&2
  exit 1
fi
mkdir -p "$dest"
cp "$tmp/package/data/caniemail.json" "$dest/caniemail.json"
cp "$tmp/package/LICENSE" "$dest/LICENSE"
printf '%s\n' "$version" >"$dest/VERSION"
echo "caniemail $version: $size bytes in ${dest#"$root"/}"
