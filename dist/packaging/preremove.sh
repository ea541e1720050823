#!/bin/sh
# Run by dpkg and rpm before sandview's package is removed: on a removal
# (not an upgrade) stops and disables sandview.service. The user sandview
# and the mail in /var/lib/sandview stay (docs/install.md, Uninstall).
set -e
case "$1" in
remove | 0) ;; # dpkg: remove; rpm: 0 packages left
*) exit 0 ;;
esac
if [ -d /run/systemd/system ]; then
	systemctl disable --now sandview.service || true
fi
