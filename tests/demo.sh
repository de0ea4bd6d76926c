#!/usr/bin/env bash
# `make demo`: a small btrfs image mounted compress=zstd, filled with real
# files from this system, and compsize's report on it.  Cleans up on exit.
set -euo pipefail
compsize=$(realpath "${1:-./compsize}")
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (sudo make demo)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/compsize-demo.XXXXXX)
mnt=$tmp/mnt
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

truncate -s 1G "$tmp/img"
mkfs.btrfs -q "$tmp/img" >/dev/null 2>&1
mkdir "$mnt"
mount -o loop,compress=zstd "$tmp/img" "$mnt"
echo "Copying /usr/share/doc, /usr/include and /usr/bin into a btrfs mounted compress=zstd (zstd:3) ..."
cp -a /usr/share/doc /usr/include "$mnt"/ 2>/dev/null || true
mkdir "$mnt/bin" && cp -a /usr/bin/. "$mnt/bin"/ 2>/dev/null || true
sync
echo
echo "\$ compsize $mnt"
"$compsize" "$mnt"
echo
echo "\$ compsize -b $mnt/include"
"$compsize" -b "$mnt/include"
echo
echo "\$ compsize --depth=1 $mnt"
"$compsize" --depth=1 "$mnt"
echo
echo "# What would /usr/include cost under other settings?"
echo "\$ compsize -e zstd:1,zstd:3,zstd:9,lzo,compress-force=zstd:3 $mnt/include"
"$compsize" -e zstd:1,zstd:3,zstd:9,lzo,compress-force=zstd:3 "$mnt/include"
