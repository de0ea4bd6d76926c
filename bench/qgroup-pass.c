// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's qgroup figures of every subvolume, as compsize --subvolumes
 * computes them (scan/qgroup.h), without the report's per-subvolume usage
 * scan: to time that pass alone against `btrfs quota rescan -w`.
 *
 *   bench/qgroup-pass MOUNTPOINT
 *
 * Prints "id rfer excl excl_data excl_meta deleting gone" per fs tree and
 * the pass's counts on stderr.  Build: make bench/qgroup-pass.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include "scan/qgroup.h"

int main(int argc, char **argv)
{
	struct qgroup_stats st;
	struct qgroup *q;
	char err[256];
	size_t i;
	int fd, ret;

	if (argc != 2) {
		fputs("usage: qgroup-pass MOUNTPOINT\n", stderr);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	ret = qgroup_compute(fd, &q, err, sizeof(err), 0, NULL, NULL);
	if (ret) {
		fprintf(stderr, "qgroup-pass: %s: error %d %s\n", argv[1], ret,
			err);
		return 1;
	}
	for (i = 0; i < qgroup_nroots(q); i++) {
		const struct qgroup_root *r = qgroup_root_at(q, i);

		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %d %d\n", r->id, r->rfer, r->excl, r->excl_data,
		       r->excl_meta, r->deleting, r->gone);
	}
	qgroup_stats(q, &st);
	fprintf(stderr,
		"qgroup-pass: %" PRIu64 " tree blocks, %" PRIu64
		" data extents, %" PRIu64 " root sets, %" PRIu64
		" nodes and %" PRIu64 " leaves read, %zu bytes held\n",
		st.tree_blocks, st.data_extents, st.sets, st.nodes_read,
		st.leaves_read, st.memory);
	qgroup_free(q);
	return 0;
}
