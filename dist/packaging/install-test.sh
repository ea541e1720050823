#!/usr/bin/env bash
# install-test.sh RELEASE_DIR [VERSION]: checks what `make package`
# (goreleaser) or `make ci-package` (nfpm, from the same description) built,
# as docs/install.md tells a user to use it. Needs root (dpkg): CI runs it
# (`make ci-package`, from .ci/run), not `make test`.
#  1. sha256sum -c checksums.txt passes; the linux/amd64 archive unpacks
#     to a sandview whose --version is the release's, with its man page and
#     completions.
#     The .rpm lists the same files, its config and its scripts.
#  2. The .deb installs with dpkg -i (any earlier sandview purged first, so
#     a rerun starts clean): /usr/bin/sandview --version, `man sandview`,
#     the user sandview, the unit (systemd-analyze verify), the config file,
#     the completions.
#  3. Reinstalling (an upgrade) keeps an edited /etc/sandview/sandview.env;
#     dpkg -r removes the program and keeps the config, the user and the
#     mail; dpkg --purge removes the config.
set -euo pipefail
release=$(cd "${1:?usage: install-test.sh RELEASE_DIR [VERSION]}" && pwd)
[ "$(id -u)" = 0 ] || { echo "install-test.sh installs a .deb: run it as root" >&2; exit 1; }

passed=0
failed=0
check() { # check NAME COMMAND...: runs COMMAND, counts and prints the result
	local name=$1
	shift
	if out=$("$@" 2>&1); then
		passed=$((passed + 1))
		echo "ok   $name"
	else
		failed=$((failed + 1))
		echo "FAIL $name"
		printf '%s\n' "$out" | sed 's/^/     /'
	fi
}

# The version: given (`make ci-package`), else goreleaser's metadata.json.
version=${2:-$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$release/metadata.json" 2>/dev/null || true)}
[ -n "$version" ] || { echo "no version given, none in $release/metadata.json" >&2; exit 1; }
archive="$release/sandview_${version}_linux_amd64.tar.gz"
deb=$(ls "$release"/sandview_*_amd64.deb)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The archive and the checksums.
check "sha256sum -c checksums.txt" sh -c "cd '$release' && sha256sum -c checksums.txt"
check "checksums.txt lists the archive and the .deb" sh -c \
	"grep -q ' $(basename "$archive")\$' '$release/checksums.txt' && grep -q ' $(basename "$deb")\$' '$release/checksums.txt'"
check "a changed archive fails sha256sum -c" sh -c \
	"cp '$release/checksums.txt' '$archive' '$work/' && printf x >> '$work/$(basename "$archive")' && cd '$work' && ! sha256sum -c --ignore-missing checksums.txt"
mkdir "$work/unpacked"
tar -xzf "$archive" -C "$work/unpacked"
check "the archive's sandview --version is $version" sh -c "'$work/unpacked/sandview' --version | grep -qx 'sandview $version'"
check "the archive holds the man page and completions" test -f "$work/unpacked/man/sandview.1" -a -f "$work/unpacked/completions/sandview.bash" \
	-a -f "$work/unpacked/completions/_sandview" -a -f "$work/unpacked/completions/sandview.fish"

# The .rpm (not installed here: listed with rpm, .ci/run installs it).
rpmfile=$(ls "$release"/sandview-*.x86_64.rpm)
for path in /usr/bin/sandview /usr/share/man/man1/sandview.1 /usr/share/man/man1/sandview-email-list.1 \
	/usr/share/bash-completion/completions/sandview /usr/share/zsh/site-functions/_sandview \
	/usr/share/fish/vendor_completions.d/sandview.fish /usr/lib/systemd/system/sandview.service \
	/usr/lib/sysusers.d/sandview.conf /etc/sandview/sandview.env; do
	check "the .rpm holds $path" sh -c "rpm -qpl '$rpmfile' | grep -qx '$path'"
done
check "the .rpm keeps an edited sandview.env (config)" sh -c "rpm -qp --configfiles '$rpmfile' | grep -qx /etc/sandview/sandview.env"
check "the .rpm creates the user after install" sh -c "rpm -qp --scripts '$rpmfile' | grep -q 'systemd-sysusers sandview.conf'"

# 2. dpkg -i, from a clean state.
if dpkg-query -W sandview >/dev/null 2>&1; then
	dpkg --purge sandview >/dev/null
fi
check "dpkg -i installs the .deb" dpkg -i "$deb"
check "/usr/bin/sandview --version is $version" sh -c "/usr/bin/sandview --version | grep -qx 'sandview $version'"
check "sandview is on PATH" sh -c "command -v sandview | grep -qx /usr/bin/sandview"
check "man sandview shows the manual" sh -c "MANPAGER=cat man sandview | grep -q 'sandview - Watch sandbox test mail live in the terminal'"
check "man sandview-email-list shows a command's page" sh -c "MANPAGER=cat man sandview-email-list | grep -q 'sandview email list'"
check "the system user sandview exists" sh -c "getent passwd sandview | grep -q ':/var/lib/sandview:/usr/sbin/nologin\$'"
check "the unit verifies with the installed binary" sh -c \
	"out=\$(systemd-analyze verify --man=no /usr/lib/systemd/system/sandview.service 2>&1) && [ -z \"\$out\" ] || { echo \"\$out\"; false; }"
check "/etc/sandview is root:sandview 0750, its sandview.env 0640" sh -c "[ \"\$(stat -c '%U:%G %a' /etc/sandview /etc/sandview/sandview.env | tr '\\n' ' ')\" = 'root:sandview 750 root:sandview 640 ' ]"
check "the completions are installed" test -f /usr/share/bash-completion/completions/sandview \
	-a -f /usr/share/zsh/vendor-completions/_sandview -a -f /usr/share/fish/vendor_completions.d/sandview.fish
check "the bash completion script parses" bash -n /usr/share/bash-completion/completions/sandview
check "the installed sandview completes commands (what the scripts ask it)" sh -c "/usr/bin/sandview __complete em | grep -qx 'email.*'"

# 3. Upgrade (a reinstall), remove, purge.
echo "# edited" >> /etc/sandview/sandview.env
check "dpkg -i again (an upgrade) works" dpkg -i "$deb"
check "the upgrade keeps the edited config" grep -qx '# edited' /etc/sandview/sandview.env
mkdir -p /var/lib/sandview
check "dpkg -r removes the program" sh -c "dpkg -r sandview >/dev/null && [ ! -e /usr/bin/sandview ]"
check "dpkg -r keeps the config, the user and /var/lib/sandview" sh -c \
	"[ -f /etc/sandview/sandview.env ] && getent passwd sandview >/dev/null && [ -d /var/lib/sandview ]"
check "dpkg --purge removes the config" sh -c "dpkg --purge sandview >/dev/null && [ ! -e /etc/sandview/sandview.env ]"

echo "package-check: $passed passed, $failed failed"
[ "$failed" = 0 ]
