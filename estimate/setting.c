// SPDX-License-Identifier: GPL-2.0
/*
 * Settings: the --estimate list ("zstd:3,compress-force=lzo,...") parsed
 * into settings, and their canonical names.  Part of the main program; the
 * write-path emulation that runs them (estimate/, the plugin) is loaded
 * only for --estimate.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/estimate.h"

#define EST_ZSTD_MIN	(-15)
#define EST_ZSTD_MAX	15
#define EST_ZLIB_MAX	9
#define EST_DEFAULT_LEVEL 3

static int est_parse_int(const char *s, const char *end, int *v)
{
	char buf[16];
	char *e;
	long l;

	if (end - s <= 0 || end - s >= (long)sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, end - s);
	buf[end - s] = 0;
	if (!(buf[0] == '-' || buf[0] == '+' || (buf[0] >= '0' && buf[0] <= '9')))
		return -EINVAL;
	errno = 0;
	l = strtol(buf, &e, 10);
	if (errno || *e || e == buf || l < INT_MIN || l > INT_MAX)
		return -EINVAL;
	*v = (int)l;
	return 0;
}

struct est_list {
	struct est_setting *v;
	size_t n, cap;
};

static int est_list_add(struct est_list *l, enum est_alg alg, int level,
			bool force)
{
	struct est_setting *nv;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].alg == alg && l->v[i].level == level &&
		    l->v[i].force == force)
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		nv = realloc(l->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n].alg = alg;
	l->v[l->n].level = level;
	l->v[l->n].force = force;
	l->n++;
	return 0;
}

/*
 * The "all" sweep: lzo, the zlib levels people use, and zstd from the
 * fastest negative level (kernel 6.15+) to the slowest the kernel offers.
 */
static const struct est_setting est_all[] = {
	{ EST_LZO, 0, false },
	{ EST_ZLIB, 1, false }, { EST_ZLIB, 3, false }, { EST_ZLIB, 9, false },
	{ EST_ZSTD, -5, false }, { EST_ZSTD, 1, false }, { EST_ZSTD, 3, false },
	{ EST_ZSTD, 9, false }, { EST_ZSTD, 15, false },
};

/* Parse one item [s, end); on -EINVAL *why says what is wrong. */
static int est_parse_item(const char *s, const char *end, struct est_list *l,
			  const char **why)
{
	const char *p, *colon, *dots;
	enum est_alg alg;
	bool force = false;
	int lo, hi, min, max, v, ret;
	size_t alen, i;

	if (end - s >= 15 && !strncmp(s, "compress-force=", 15)) {
		force = true;
		s += 15;
	} else if (end - s >= 9 && !strncmp(s, "compress=", 9)) {
		s += 9;
	}
	if (s == end) {
		*why = "empty item";
		return -EINVAL;
	}
	if (end - s == 3 && !strncmp(s, "all", 3)) {
		for (i = 0; i < sizeof(est_all) / sizeof(est_all[0]); i++) {
			ret = est_list_add(l, est_all[i].alg, est_all[i].level,
					   force);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (end - s > 4 && !strncmp(s, "all:", 4)) {
		*why = "all is a sweep of set levels and takes none (zstd:LEVEL, zlib:LEVEL, or a range such as zstd:1..9)";
		return -EINVAL;
	}
	colon = memchr(s, ':', end - s);
	alen = (colon ? colon : end) - s;
	if (alen == 4 && !strncmp(s, "zstd", 4)) {
		alg = EST_ZSTD;
		min = EST_ZSTD_MIN;
		max = EST_ZSTD_MAX;
		*why = "zstd level must be -15..15";
	} else if (alen == 4 && !strncmp(s, "zlib", 4)) {
		alg = EST_ZLIB;
		/* the man page's range: 0 would be zlib's default, 3 */
		min = 1;
		max = EST_ZLIB_MAX;
		*why = "zlib level must be 1..9";
	} else if (alen == 3 && !strncmp(s, "lzo", 3)) {
		if (colon) {
			*why = "lzo takes no level";
			return -EINVAL;
		}
		return est_list_add(l, EST_LZO, 0, force);
	} else {
		*why = "unknown algorithm (zstd, lzo, zlib or all)";
		return -EINVAL;
	}
	if (!colon)
		return est_list_add(l, alg, EST_DEFAULT_LEVEL, force);
	p = colon + 1;
	dots = NULL;
	for (const char *q = p; q + 1 < end; q++)
		if (q[0] == '.' && q[1] == '.') {
			dots = q;
			break;
		}
	if (!dots) {
		if (est_parse_int(p, end, &v) || v < min || v > max)
			return -EINVAL;
		/* btrfs_compress_set_level(): 0 is the default level */
		return est_list_add(l, alg, v ? v : EST_DEFAULT_LEVEL, force);
	}
	if (est_parse_int(p, dots, &lo) || est_parse_int(dots + 2, end, &hi) ||
	    lo < min || hi > max || lo > max || hi < min) {
		return -EINVAL;
	}
	if (lo > hi) {
		*why = "range must go from low to high";
		return -EINVAL;
	}
	for (v = lo; v <= hi; v++) {
		if (!v)
			continue;	/* 0 is an alias of 3, not a level */
		ret = est_list_add(l, alg, v, force);
		if (ret)
			return ret;
	}
	if (lo == 0 && hi == 0)
		return est_list_add(l, alg, EST_DEFAULT_LEVEL, force);
	return 0;
}

int est_parse_list(const char *list, struct est_setting **out, size_t *n,
		   char *err, size_t errlen)
{
	struct est_list l = { 0 };
	const char *s = list, *end, *why = "";
	int ret = 0;

	if (!list || !*list) {
		snprintf(err, errlen, "invalid --estimate list: empty");
		ret = -EINVAL;
		goto out;
	}
	for (;;) {
		end = strchr(s, ',');
		if (!end)
			end = s + strlen(s);
		ret = est_parse_item(s, end, &l, &why);
		if (ret == -EINVAL) {
			snprintf(err, errlen, "invalid --estimate item '%.*s': %s",
				 (int)(end - s), s, why);
			goto out;
		}
		if (ret)
			goto out;
		if (!*end)
			break;
		s = end + 1;
	}
	*out = l.v;
	*n = l.n;
	l.v = NULL;
out:
	free(l.v);
	return ret;
}

void est_setting_name(const struct est_setting *s, char *buf, size_t len)
{
	const char *opt = s->force ? "compress-force" : "compress";

	switch (s->alg) {
	case EST_LZO:
		snprintf(buf, len, "%s=lzo", opt);
		break;
	case EST_ZLIB:
		snprintf(buf, len, "%s=zlib:%d", opt, s->level);
		break;
	case EST_ZSTD:
		snprintf(buf, len, "%s=zstd:%d", opt, s->level);
		break;
	default:
		snprintf(buf, len, "%s=?", opt);
		break;
	}
}

bool est_follow_nocompress(const struct est_setting *s)
{
	/* lzo has no entropy stage: data the heuristic lets through (a
	 * small byte set, no repeats) can still fail to shrink */
	return !s->force && s->alg == EST_LZO;
}
