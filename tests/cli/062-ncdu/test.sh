#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format san
# --format=ncdu: the export loads in the real ncdu (in tmux), whose totals
# are compsize's Disk Usage and the files' apparent size; its shape matches
# the tree on disk (names as bytes, hard links, a reflink, an empty
# directory, a nested subvolume, a sparse file); several arguments, a
# missing one, and the options it refuses.
. "$(dirname "$0")/../common.sh"

command -v ncdu >/dev/null || skip "ncdu is not installed (make deps)"
command -v tmux >/dev/null || skip "tmux is not installed (make deps)"
here=$(cd "$(dirname "$0")" && pwd)

setup_fs compress-force=zstd:3
mkdir -p data/all/sub data/all/empty data/all/links
text_data 2M >data/all/text
cp --reflink=always data/all/text data/all/sub/copy
text_data 300K >data/all/sub/linked
ln data/all/sub/linked data/all/links/hard
random_data 100K >data/all/random
text_data 1K >data/all/inline
truncate -s 10M data/all/sparse
text_data 64K | dd of=data/all/sparse bs=64K seek=20 conv=notrunc status=none
odd=$'odd \xff\xfe "q" back\\slash \x01 tab\t nl\n é'
text_data 5K >"data/all/$odd"
btrfs -q subvolume create data/all/subvol
text_data 500K >data/all/subvol/file
sync

# ncdu_info EXPORT: load EXPORT in ncdu in a private tmux server, open the
# info window of the first entry (the export's only directory) and print
# the screen.
ncdu_screen()
{
	local sock=compsize-cli-$$ i
	tmux -L "$sock" new-session -d -x 160 -y 40 "ncdu -f '$1'; sleep 30"
	for i in $(seq 50); do
		tmux -L "$sock" capture-pane -p >"$OUT/screen" 2>/dev/null || true
		grep -q 'Total disk usage' "$OUT/screen" && break
		sleep 0.1
	done
	if [ -n "${2:-}" ]; then
		tmux -L "$sock" send-keys "$2"
		sleep 0.3
		tmux -L "$sock" capture-pane -p >"$OUT/screen"
	fi
	tmux -L "$sock" kill-server 2>/dev/null || true
	cat "$OUT/screen"
}

# The figure in parentheses of the info window's line LABEL, digits only.
info_bytes()
{
	grep -F "$1:" "$OUT/screen" | sed -n 's/.*(\([0-9.,]*\) B).*/\1/p' | tr -d '.,'
}

cd data
run_ours table -b .
disk=$(awk '$1 == "TOTAL" { print $3 }' "$OUT/table.out")
CHECKS=$((CHECKS + 1))
[ -n "$disk" ] || fail "no TOTAL in: $(cat "$OUT/table.out")"

expect_ours 0 '' --format=ncdu .
cp "$OUT/ours.out" "$TESTDIR/export"
CHECKS=$((CHECKS + 1))
sums=$(python3 "$here/check.py" "$TESTDIR/export" . "$disk") ||
	fail "export does not match the tree"
read -r dsize asize <<<"$sums"
CHECKS=$((CHECKS + 1))
# no inline file here has a hard link: ncdu counts a link once, compsize
# 1.5 each path's inline data
[ "$dsize" = "$disk" ] || fail "ncdu would count $dsize, Disk Usage is $disk"

# The real ncdu: the info window of "all" (the only entry) in bytes.
ncdu_screen "$TESTDIR/export" i >/dev/null
CHECKS=$((CHECKS + 1))
grep -q 'Name: all' "$OUT/screen" || fail "ncdu: no info window: $(cat "$OUT/screen")"
CHECKS=$((CHECKS + 1))
[ "$(info_bytes 'Disk usage')" = "$disk" ] ||
	fail "ncdu shows disk usage $(info_bytes 'Disk usage'), compsize $disk: $(cat "$OUT/screen")"
CHECKS=$((CHECKS + 1))
[ "$(info_bytes 'Apparent size')" = "$asize" ] ||
	fail "ncdu shows apparent size $(info_bytes 'Apparent size'), files $asize"
# The browser of all/: the hard links marked H, the empty directory e.
ncdu_screen "$TESTDIR/export" Right >/dev/null
CHECKS=$((CHECKS + 1))
grep -Eq '^e .*/empty$' "$OUT/screen" || fail "ncdu: no empty directory: $(cat "$OUT/screen")"
grep -Eq '^ .*/links$' "$OUT/screen" || fail "ncdu: no links directory: $(cat "$OUT/screen")"

# --per-file is what the tree has anyway.
expect_ours 0 '' --format=ncdu --per-file .
CHECKS=$((CHECKS + 1))
diff <(sed 1d "$TESTDIR/export") <(sed 1d "$OUT/ours.out") >&2 ||
	fail "--per-file changed the export"

# Several arguments: a made-up root holds them; the total is theirs.
run_ours table -b all/sub all/text all/subvol
disk=$(awk '$1 == "TOTAL" { print $3 }' "$OUT/table.out")
expect_ours 0 '' --format=ncdu all/sub all/text all/subvol
CHECKS=$((CHECKS + 1))
python3 - "$OUT/ours.out" "$disk" <<'EOS' || fail "several arguments: bad export"
import json, sys
doc = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8', 'surrogateescape'))
def files(e):
    if isinstance(e, list):
        for c in e[1:]:
            yield from files(c)
    else:
        yield e
root = doc[3]
assert root[0]['name'] == 'compsize: 3 arguments', root[0]
assert [e[0]['name'] if isinstance(e, list) else e['name'] for e in root[1:]] == \
    ['all/sub', 'all/text', 'all/subvol'], root
assert sum(f['dsize'] for f in files(root)) == int(sys.argv[2])
EOS
ncdu_screen "$OUT/ours.out" >/dev/null
CHECKS=$((CHECKS + 1))
grep -q -- '--- compsize: 3 arguments' "$OUT/screen" ||
	fail "ncdu did not load several arguments: $(cat "$OUT/screen")"

# A missing argument: reported as for every format, exit 1, and the export
# still whole, with the path marked as a read error.
expect_ours 1 '^compsize: missing: No such file or directory$' --format=ncdu all/text missing
cp "$OUT/ours.out" "$TESTDIR/export2"
CHECKS=$((CHECKS + 1))
python3 - "$TESTDIR/export2" <<'EOS' || fail "missing argument: bad export"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc[3][2] == {'name': 'missing', 'read_error': True}, doc
EOS
ncdu_screen "$TESTDIR/export2" >/dev/null
CHECKS=$((CHECKS + 1))
grep -Eq '^!.* missing$' "$OUT/screen" || fail "ncdu: no read error shown: $(cat "$OUT/screen")"

# What does not fit in the tree is refused, as usage errors are.
for opt in --depth=1 --sort=disk --top=2 -ezstd:1 --exclusive; do
	expect_ours 2 '^compsize: (--format=ncdu takes no|--sort and --top need)' --format=ncdu "$opt" .
	ours_stdout_is ""
done

# A tmpfs mounted inside the tree: skipped with the table's warning, and
# listed as another filesystem (ncdu's ">").
tmpfs_at all/tmp
text_data 10K >all/tmp/file
expect_ours 0 '^compsize: all/tmp: skipped: not a btrfs filesystem$' --format=ncdu all
CHECKS=$((CHECKS + 1))
python3 - "$OUT/ours.out" <<'EOS' || fail "tmpfs: no excluded entry"
import json, sys
root = json.loads(open(sys.argv[1], 'rb').read().decode('utf-8', 'surrogateescape'))[3]
tmp = [e for e in root[1:] if isinstance(e, dict) and e['name'] == 'tmp']
assert len(tmp) == 1 and tmp[0]['excluded'] == 'otherfs', root
EOS
ncdu_screen "$OUT/ours.out" >/dev/null
CHECKS=$((CHECKS + 1))
grep -Eq '^>.* tmp$' "$OUT/screen" || fail "ncdu: tmpfs not shown as another filesystem: $(cat "$OUT/screen")"
