#!/bin/sh
# Run by dpkg and rpm after sandview's package is installed or upgraded:
# creates sandview.service's system user (/usr/lib/sysusers.d/sandview.conf,
# with useradd where systemd-sysusers is missing), lets that group read
# /etc/sandview and its sandview.env, as docs/ssh-box.md sets them up by
# hand, and restarts the service if it runs (an
# upgrade). The service is not enabled: edit the settings first
# (docs/install.md). Safe to run again.
set -e
if command -v systemd-sysusers >/dev/null 2>&1; then
	systemd-sysusers sandview.conf
elif ! getent passwd sandview >/dev/null; then
	useradd --system --user-group --home-dir /var/lib/sandview --no-create-home \
		--shell /usr/sbin/nologin --comment "sandview sandbox mail server" sandview
fi
chgrp sandview /etc/sandview /etc/sandview/sandview.env
chmod 0750 /etc/sandview
chmod 0640 /etc/sandview/sandview.env
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	systemctl try-restart sandview.service
fi
