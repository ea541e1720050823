#!/usr/bin/env bash
# build-image.sh RELEASE_DIR: builds the container image of Containerfile
# for each linux binary goreleaser left in RELEASE_DIR (amd64, arm64; no
# emulation needed: the image only copies the binary) and saves each as an
# OCI archive beside the release files,
# sandview_VERSION_linux_ARCH.oci.tar, tagged localhost/sandview:VERSION-ARCH.
# Uses podman, else buildah, else docker with a running daemon; with none
# of them it says so and builds nothing (exit 0: the rest of the release
# is unaffected).
set -euo pipefail
release=${1:?usage: build-image.sh RELEASE_DIR}
here=$(cd "$(dirname "$0")" && pwd)

tool=
if command -v podman >/dev/null 2>&1 && podman info >/dev/null 2>&1; then
	tool=podman
elif command -v buildah >/dev/null 2>&1 && buildah info >/dev/null 2>&1; then
	tool=buildah
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
	tool=docker
fi
if [ -z "$tool" ]; then
	echo "container image: SKIPPED, no working podman, buildah or docker daemon here" >&2
	exit 0
fi

version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$release/metadata.json")
[ -n "$version" ] || { echo "no version in $release/metadata.json" >&2; exit 1; }
version=${version//+/-} # an image tag has no '+' (a snapshot's 0.0.1-dev+abc1234)
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$here/Containerfile" "$context/Containerfile"
built=0
for arch in amd64 arm64; do
	bin=$(ls "$release"/sandview_linux_"$arch"*/sandview 2>/dev/null | head -n 1 || true)
	[ -n "$bin" ] || continue
	cp "$bin" "$context/sandview"
	tag="localhost/sandview:$version-$arch"
	archive="$release/sandview_${version}_linux_$arch.oci.tar"
	case "$tool" in
	podman | buildah)
		"$tool" build --platform "linux/$arch" -f "$context/Containerfile" -t "$tag" "$context"
		rm -f "$archive"
		"$tool" push "$tag" "oci-archive:$archive:$tag" # loads as $tag
		;;
	docker)
		docker build --platform "linux/$arch" -f "$context/Containerfile" -t "$tag" "$context"
		docker save -o "$archive" "$tag"
		;;
	esac
	echo "container image: $tag, saved as $archive ($tool)"
	built=$((built + 1))
done
[ "$built" -gt 0 ] || { echo "no linux binary in $release" >&2; exit 1; }
