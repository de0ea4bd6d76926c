/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The figures that turn an estimate into a decision (issue #15): what a
 * setting costs in CPU and what it gives on a device of a given speed.
 * Pure arithmetic on an estimate's results, for the report.
 *
 * - All-core throughput: the kernel compresses a write's 512 KiB chunks on
 *   one worker per CPU (btrfs_queue_work() on the delalloc workqueue) and
 *   decompresses in the end-io workers, so a machine with N CPUs runs the
 *   codec N times over: single-thread MB/s * N.
 * - CPU cost: core-seconds per GB (10^9 bytes) of file data written, or
 *   read back: 1000 / single-thread MB/s.
 * - On a device writing W and reading R MB/s (never measured: that would
 *   write), file data goes through at min(W * uncompressed / disk, all-core
 *   compress): the device moves the compressed bytes, the CPUs compress;
 *   reading likewise with R and the decompress speed.
 */
#ifndef COMPSIZE_DECIDE_H
#define COMPSIZE_DECIDE_H

#include <stdint.h>

struct decide_in {
	uint64_t disk, uncompressed;	/* the prediction */
	double compress_mbps, decompress_mbps;	/* single thread */
	unsigned cpus;			/* online CPUs, 1 or more */
	double dev_write_mbps, dev_read_mbps;	/* 0: not given */
};

struct decide_out {
	double compress_all_mbps, decompress_all_mbps;
	double cpu_s_per_gb_write, cpu_s_per_gb_read;	/* 0 if unknown */
	/* file data MB/s through the device; 0 when no device speed */
	double write_mbps, read_mbps;
	/* 1 when the device is what limits it, 0 when the CPUs are */
	int write_device_bound, read_device_bound;
};

void decide(const struct decide_in *in, struct decide_out *out);

/*
 * --device-speed=WRITE[,READ]: MB/s (10^6 bytes), decimals allowed, more
 * than 0; READ defaults to WRITE.  Returns 0, or -1 for anything else.
 */
int decide_parse_speed(const char *s, double *write, double *read);

#endif
