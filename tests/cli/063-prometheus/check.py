# SPDX-License-Identifier: GPL-2.0
# compsize --format=prometheus against compsize --format=json of the same
# tree and options: every row, type, count and estimate has its series
# with the same value, and nothing else of ours is there.
# Usage: check.py METRICS JSON; METRICS may be a node_exporter scrape
# (series of other collectors are ignored).  Exits 1 with the differences.
import base64, json, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from table_escape import table_escape  # noqa: E402

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), v)


series = {}
for line in open(sys.argv[1], encoding='utf-8'):
    m = LINE.match(line.rstrip('\n'))
    if not m or not m.group(1).startswith('compsize_'):
        continue
    labels = tuple(sorted((k, unescape(v)) for k, v in LABEL.findall(m.group(2) or '')))
    key = (m.group(1), labels)
    if key in series:
        print('duplicate series %r' % (key,), file=sys.stderr)
        sys.exit(1)
    series[key] = float(m.group(3))

doc = json.load(open(sys.argv[2]))
want = {}
for row in doc.get('paths', []):
    raw = base64.b64decode(row['path_bytes']) if 'path_bytes' in row else row['path'].encode()
    path = (('path', table_escape(raw)),)
    for key in ('disk', 'uncompressed', 'referenced'):
        for t in row['types']:
            want[('compsize_%s_bytes' % key, path + (('type', t['type']),))] = t[key]
    for key in ('exclusive', 'exclusive_data', 'exclusive_metadata',
                'qgroup_referenced'):
        if key in row['total']:
            want[('compsize_%s_bytes' % key, path)] = row['total'][key]
    for key in ('files', 'extents', 'refs', 'inline', 'fragments'):
        want[('compsize_' + key, path)] = row[key]
    for e in row.get('estimates', []):
        lab = tuple(sorted(path + (('setting', e['setting']),)))
        for key in ('disk', 'uncompressed', 'input'):
            want[('compsize_estimate_%s_bytes' % key, lab)] = e[key]
for e in doc.get('estimates', []):
    for key in ('compress', 'decompress'):
        if e[key + '_mbps'] > 0:
            want[('compsize_estimate_%s_bytes_per_second' % key,
                  (('setting', e['setting']),))] = e[key + '_mbps'] * 1e6
want[('compsize_read_errors', ())] = len(doc['errors'])

bad = []
for k, v in sorted(want.items()):
    if k not in series:
        bad.append('missing %r (JSON %s)' % (k, v))
    elif 'per_second' in k[0]:
        # a different run's measurement: only its presence is compared
        pass
    elif series[k] != v:
        bad.append('%r: %s, JSON %s' % (k, series[k], v))
for k in sorted(set(series) - set(want)):
    bad.append('extra series %r' % (k,))
if bad:
    print('\n'.join(bad), file=sys.stderr)
    sys.exit(1)
print(len(series))
