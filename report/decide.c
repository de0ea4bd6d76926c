// SPDX-License-Identifier: GPL-2.0
/* CPU cost and device-limited throughput of a setting (decide.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/decide.h"

/* min(device on the stored bytes, the CPUs); *device_bound tells which */
static double through(double dev, uint64_t disk, uint64_t uncomp,
		      double cpu, int *device_bound)
{
	double by_dev;

	*device_bound = 0;
	if (!(dev > 0))
		return 0;
	/* nothing stored for it: only the CPUs limit it */
	by_dev = disk ? dev * (double)uncomp / (double)disk : 0;
	if (!disk || (cpu > 0 && cpu < by_dev))
		return cpu;
	*device_bound = 1;
	return by_dev;
}

void decide(const struct decide_in *in, struct decide_out *out)
{
	unsigned cpus = in->cpus ? in->cpus : 1;

	memset(out, 0, sizeof(*out));
	out->compress_all_mbps = in->compress_mbps * cpus;
	out->decompress_all_mbps = in->decompress_mbps * cpus;
	if (in->compress_mbps > 0)
		out->cpu_s_per_gb_write = 1000 / in->compress_mbps;
	if (in->decompress_mbps > 0)
		out->cpu_s_per_gb_read = 1000 / in->decompress_mbps;
	out->write_mbps = through(in->dev_write_mbps, in->disk,
				  in->uncompressed, out->compress_all_mbps,
				  &out->write_device_bound);
	out->read_mbps = through(in->dev_read_mbps, in->disk, in->uncompressed,
				 out->decompress_all_mbps,
				 &out->read_device_bound);
}

static int parse_one(const char *s, const char *end, double *v)
{
	char *e;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtod(s, &e);
	if (errno || e != end || !(*v > 0) || *v > 1e9)
		return -1;
	return 0;
}

int decide_parse_speed(const char *s, double *write, double *read)
{
	const char *comma = strchr(s, ',');

	if (!comma)
		comma = s + strlen(s);
	if (parse_one(s, comma, write))
		return -1;
	if (!*comma) {
		*read = *write;
		return 0;
	}
	return parse_one(comma + 1, comma + 1 + strlen(comma + 1), read);
}
