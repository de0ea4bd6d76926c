#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package (make check-deb): dpkg-buildpackage -us -uc -b once on
# a copy of the source tree, lintian on the result, the package's fields
# (its version above btrfs-compsize's, the relation to it), and the
# packaged program run from dpkg -x on a test image: against compsize 1.5
# as it is, and in a private mount namespace with the package's /usr laid
# over the system's, as installed (estimator from its LIBDIR, man page,
# completion).  Nothing is installed: the oracle /usr/sbin/compsize stays.
# Needs root, loop devices, git, and make deps (debhelper, lintian, ...).
set -u
export LC_ALL=C
src=$(cd "$(dirname "$0")/.." && pwd)

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok; else fail "$what"; fi; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }

tmp=$(mktemp -d /tmp/compsize-deb.XXXXXX)
cleanup()
{
	umount "$tmp/mnt" 2>/dev/null || umount -l "$tmp/mnt" 2>/dev/null
	rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT; [ -n "${KEEP:-}" ] && trap - EXIT

for tool in git dpkg-buildpackage dh lintian unshare; do
	command -v $tool >/dev/null || { fail "$tool is not installed (make deps)"; finish; }
done

# The tree as it is (committed or not, less what git ignores), so that
# the build can't pick up this tree's objects.
mkdir "$tmp/src"
(cd "$src" && git ls-files -co --exclude-standard -z) |
	(cd "$src" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
	(cd "$src" && xargs -0 cp --parents -t "$tmp/src")
version=$(cat "$src/VERSION")

# DEB_BUILD_OPTIONS=nocheck: debian/rules would run the unit tests
# again, which make check has run on this tree (DEB_NOCHECK=0 runs them).
t0=$(date +%s)
opts="parallel=$(nproc)"
[ "${DEB_NOCHECK:-1}" = 0 ] || opts+=" nocheck"
if ! (cd "$tmp/src" && DEB_BUILD_OPTIONS=$opts \
	dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; then
	tail -n 40 "$tmp/build.log"
	fail "dpkg-buildpackage -us -uc -b"
	finish
fi
echo "# dpkg-buildpackage: $(( $(date +%s) - t0 ))s" >&2
deb=$(ls "$tmp"/compsize_*.deb 2>/dev/null | grep -v dbgsym)
changes=$(ls "$tmp"/compsize_*.changes 2>/dev/null)
check "no compsize_*.deb built" test -f "$deb"
[ -f "$deb" ] || finish

# lintian: no error or warning (overrides, each with its reason, are in
# debian/*lintian-overrides); informational tags are shown.
if ! lintian --fail-on error,warning --info "$changes" >"$tmp/lintian.log" 2>&1; then
	cat "$tmp/lintian.log"
	fail "lintian"
else
	grep -v 'running with root privileges' "$tmp/lintian.log" | sed 's/^/# /' >&2
	ok
fi

# Fields: the version is the project's and sorts above the btrfs-compsize
# it replaces; the relation is declared.
field() { dpkg-deb -f "$deb" "$1"; }
check "Version $(field Version), VERSION $version" test "$(field Version)" = "$version"
oracle_version=$(dpkg-query -W -f='${Version}' btrfs-compsize 2>/dev/null)
if [ -n "$oracle_version" ]; then
	check "version $(field Version) does not sort above btrfs-compsize $oracle_version" \
		dpkg --compare-versions "$(field Version)" gt "$oracle_version"
else
	fail "btrfs-compsize (the oracle) is not installed (make deps)"
fi
for f in Conflicts Replaces Provides; do
	check "$f: '$(field $f)', no btrfs-compsize" eval '[[ $(field $f) == *btrfs-compsize* ]]'
done
check "changelog version" test \
	"$(cd "$src" && dpkg-parsechangelog -S Version)" = "$version"

mkdir "$tmp/root"
dpkg -x "$deb" "$tmp/root"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
bin=$tmp/root/usr/sbin/compsize
for f in usr/sbin/compsize "usr/lib/$multiarch/compsize/compsize-estimate.so" \
	usr/share/man/man8/compsize.8.gz usr/share/doc/compsize/estimate.md \
	usr/share/doc/compsize/sampling.md usr/share/doc/compsize/rootless.md \
	usr/share/doc/compsize/copyright \
	usr/share/bash-completion/completions/compsize; do
	check "the package has no /$f" test -f "$tmp/root/$f"
done
check "the packaged compsize says $("$bin" --version)" \
	test "$("$bin" --version)" = "compsize $version"

# A small btrfs image: compressed, incompressible and reflinked data.
truncate -s 300M "$tmp/img"
mkfs.btrfs -q "$tmp/img" >/dev/null
mkdir "$tmp/mnt"
mount -o loop,compress-force=zstd:3 "$tmp/img" "$tmp/mnt" ||
	{ fail "cannot loop-mount btrfs"; finish; }
mkdir "$tmp/mnt/data"
seq 1 200000 >"$tmp/mnt/data/text"
head -c 300K /dev/urandom >"$tmp/mnt/data/random"
cp --reflink=always "$tmp/mnt/data/text" "$tmp/mnt/data/copy"
echo small >"$tmp/mnt/data/inline"
sync

# The packaged program from dpkg -x: compsize 1.5's report.
for args in "" "-b" "-x -b"; do
	/usr/sbin/compsize $args "$tmp/mnt/data" >"$tmp/want" 2>&1
	"$bin" $args "$tmp/mnt/data" >"$tmp/got" 2>&1
	check "packaged compsize $args differs from compsize 1.5: $(diff "$tmp/want" "$tmp/got")" \
		cmp -s "$tmp/want" "$tmp/got"
done

# As installed: the package's /usr over the system's, in a mount namespace
# of its own.  The estimator from /usr/lib/$multiarch/compsize (nothing
# beside the binary), the man page's FILES, the completion loaded on demand.
cat >"$tmp/installed.sh" <<EOF
set -e
mount -t overlay overlay -o lowerdir="$tmp/root/usr":/usr /usr
compsize --version
compsize -e zstd:1,lzo --format=json "$tmp/mnt/data" >"$tmp/est.json"
MANWIDTH=200 man -l /usr/share/man/man8/compsize.8.gz >"$tmp/man.txt" 2>"$tmp/man.err"
bash --norc -c '. /usr/share/bash-completion/bash_completion
	_completion_loader compsize; complete -p compsize' >"$tmp/complete"
EOF
if unshare -m --propagation private bash "$tmp/installed.sh" >"$tmp/installed.log" 2>&1; then
	ok
	check "installed: --version $(head -1 "$tmp/installed.log")" \
		test "$(head -1 "$tmp/installed.log")" = "compsize $version"
	check "installed --estimate: $(cat "$tmp/est.json")" \
		jq -en 'input | (.estimates | length) == 2 and .estimates[0].disk > 0' "$tmp/est.json"
	check "installed man page warns: $(cat "$tmp/man.err")" test ! -s "$tmp/man.err"
	so=/usr/lib/$multiarch/compsize/compsize-estimate.so
	check "man page FILES does not name $so" grep -qF "$so" "$tmp/man.txt"
	check "man page does not name /usr/share/doc/compsize/estimate.md" \
		grep -qF /usr/share/doc/compsize/estimate.md "$tmp/man.txt"
	check "man page names /usr/local" eval '! grep -n /usr/local "$tmp/man.txt"'
	check "completion not loaded: $(cat "$tmp/complete")" \
		grep -qx 'complete -F _compsize compsize' "$tmp/complete"
else
	cat "$tmp/installed.log"
	fail "running the package as installed (unshare -m, overlay on /usr)"
fi
check "the oracle is no longer compsize 1.5" eval \
	'/usr/sbin/compsize --version 2>&1 | grep -qv "^compsize $version"'
finish
