# SPDX-License-Identifier: GPL-2.0
"""Standard input with what is measured anew on every run masked (as #):
the estimates' codec speeds, CPU costs, and whether the device or the CPUs
bound a speed, in every format compsize writes (table, JSON, CSV,
Prometheus), and the time an ncdu export was made.  The rest, every byte count and name, is kept: two runs on
the same data must agree on it (common.sh, walk_twin)."""

import csv
import io
import re
import sys

MEASURED = re.compile(r"mbps|cpu_s_per_gb|_bound|bytes_per_second")

text = sys.stdin.read()
if text.startswith("[1,"):
    # ncdu: the export's header says when it was made, to the second
    text = re.sub(r'^(\[1,[0-9]+,\{[^}]*"timestamp":)[0-9]+', r"\1#", text)
elif text.startswith("{"):
    # JSON: "compress_mbps":412.5 and the like
    text = re.sub(r'("[a-z_]*(?:mbps|cpu_s_per_gb|_bound)[a-z_]*":)'
                  r'(?:[-0-9.e+]+|true|false)', r"\1#", text)
elif text.startswith("row,") or text.startswith("kind,"):
    # CSV: the columns the header names so
    rows = list(csv.reader(io.StringIO(text)))
    cols = [i for i, h in enumerate(rows[0]) if MEASURED.search(h)]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for r in rows:
        w.writerow([("#" if i in cols and r is not rows[0] and v else v)
                    for i, v in enumerate(r)])
    text = out.getvalue()
else:
    # Prometheus: the value of a speed's series
    text = re.sub(r"^(compsize_[a-z_]*bytes_per_second\{[^}]*\}) \S+$",
                  r"\1 #", text, flags=re.M)
    # the table: 412MB/s, <1MB/s, 0.21s/GB, and a speed's mark dev/cpu,
    # with the spaces that pad them to their column's width (the width of
    # the widest, which is measured too)
    text = re.sub(r" *(?:<1|[0-9.]+)MB/s(?: dev| cpu)? *", " #MB/s ", text)
    text = re.sub(r" *[0-9.]+s/GB *", " #s/GB ", text)
sys.stdout.write(text)
