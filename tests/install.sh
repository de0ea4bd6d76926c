#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install / uninstall (make check-install): into a temporary PREFIX,
# the installed program loads its estimator from its own LIBDIR only, the
# man page names the installed paths and every one of them exists, the
# completion lands in bash-completion's directory; and with Debian's
# btrfs-compsize installed (the tests' oracle), make install and uninstall
# PREFIX=/usr refuse to touch its files.  Runs in the source tree, as root.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.."

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok; else fail "$what"; fi; }

tmp=$(mktemp -d /tmp/compsize-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

make -s install PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "make install PREFIX=$prefix"; }

bin=$prefix/sbin/compsize
so=$prefix/lib/compsize/compsize-estimate.so
man=$prefix/share/man/man8/compsize.8
comp=$prefix/share/bash-completion/completions/compsize
for f in "$bin" "$so" "$man" "$prefix/share/doc/compsize/estimate.md" \
	"$prefix/share/doc/compsize/sampling.md" \
	"$prefix/share/doc/compsize/rootless.md" "$comp"; do
	check "make install did not install $f" test -f "$f"
done
check "the installed completion differs from completion/compsize.bash" \
	cmp -s completion/compsize.bash "$comp"

# The installed program: its estimator from its LIBDIR, whatever lies
# beside it; without it, exit 3 naming the LIBDIR path.
est() { "$bin" --estimate=zstd:1 --format=json README.md >"$tmp/out" 2>"$tmp/err"; }
# (jq -e is true on empty input)
estimated() { est && jq -en 'input | .estimates[0].disk > 0' "$tmp/out" >/dev/null; }
check "installed --estimate: $(est; cat "$tmp/err")" estimated
printf 'not an ELF object\n' >"$prefix/sbin/compsize-estimate.so"
check "installed compsize loads the estimator beside it: $(est; cat "$tmp/err")" estimated
rm "$prefix/sbin/compsize-estimate.so"
mv "$so" "$tmp/so"
cp "$tmp/so" "$prefix/sbin/compsize-estimate.so"
est >/dev/null
rc=$?
check "without its LIBDIR estimator: exit $rc, want 3" test "$rc" = 3
check "the error does not name $so: $(cat "$tmp/err")" grep -qF "$so" "$tmp/err"
rm "$prefix/sbin/compsize-estimate.so"
mv "$tmp/so" "$so"

# The man page: this PREFIX's paths, each of them installed, and no file
# of the source tree (docs/...) that is not.
MANWIDTH=200 man -l "$man" 2>"$tmp/man.err" >"$tmp/man.txt"
check "man -l warns: $(cat "$tmp/man.err")" test ! -s "$tmp/man.err"
check "man page FILES: no $so" grep -qF "$so" "$tmp/man.txt"
check "man page: the version is not $(cat VERSION)" \
	grep -qF "compsize $(cat VERSION)" "$tmp/man.txt"
for p in $(grep -oE "$prefix/[^ ,;)]*[^ ,;.)]" "$tmp/man.txt" | sort -u); do
	check "the man page names $p, which is not installed" test -e "$p"
done
check "the man page refers to the source tree's docs/" \
	eval '! grep -nE "(^|[^/a-z])docs/" "$tmp/man.txt"'

make -s uninstall PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1 ||
	{ cat "$tmp/uninstall.log"; fail "make uninstall PREFIX=$prefix"; }
left=$(find "$prefix" -type f)
check "make uninstall left: $left" test -z "$left"

# A packaged compsize (Debian's btrfs-compsize, which the CLI tests use as
# their oracle) is neither overwritten nor removed without FORCE=1.
if ! owner=$(dpkg-query -S /usr/sbin/compsize 2>/dev/null); then
	fail "/usr/sbin/compsize belongs to no package: install btrfs-compsize (make deps)"
else
	sum=$(sha256sum /usr/sbin/compsize /usr/share/man/man8/compsize.8.gz)
	for target in install uninstall; do
		make -s $target PREFIX=/usr >"$tmp/log" 2>&1
		rc=$?
		check "make $target PREFIX=/usr over ${owner%%:*}: exit 0" test $rc != 0
		check "make $target PREFIX=/usr: no message naming the package: $(cat "$tmp/log")" \
			grep -q "/usr/sbin/compsize belongs to the package ${owner%%:*}.*FORCE=1" "$tmp/log"
		check "make $target PREFIX=/usr changed the packaged files" \
			test "$(sha256sum /usr/sbin/compsize /usr/share/man/man8/compsize.8.gz)" = "$sum"
		check "make $target PREFIX=/usr installed something" \
			test ! -e /usr/lib/compsize/compsize-estimate.so
	done
fi

# Put the build tree's objects back to its default paths.
make -s >/dev/null 2>&1
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
