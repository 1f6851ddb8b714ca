// SPDX-License-Identifier: LGPL-2.1
/*
 * File names for the inodes of a recording: the events carry (s_dev, i_ino)
 * only, so the mounted file systems of those devices are walked once after
 * the recording. Bounded: a walk stops when every inode is found or after
 * RA_PATH_WALK_MAX entries; files deleted meanwhile stay without a name.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "collect.h"

#define RA_PATH_WALK_MAX 2000000

struct want {
	uint64_t ino;
	char *path;
	int64_t size;
};

struct walk {
	dev_t st_dev;
	struct want *w;		/* sorted by ino */
	size_t n, found, visited;
};

static __thread struct walk *cur_walk;

static int cmp_ino(const void *a, const void *b)
{
	uint64_t x = ((const struct want *)a)->ino, y = ((const struct want *)b)->ino;

	return x < y ? -1 : x > y;
}

static int visit(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	struct walk *wk = cur_walk;
	struct want key = { .ino = sb->st_ino }, *hit;

	if (++wk->visited > RA_PATH_WALK_MAX)
		return 1;
	if (flag != FTW_F || sb->st_dev != wk->st_dev)
		return 0;
	hit = bsearch(&key, wk->w, wk->n, sizeof(*wk->w), cmp_ino);
	if (hit && !hit->path && (hit->path = strdup(path))) {
		hit->size = sb->st_size;
		wk->found++;
	}
	return wk->found == wk->n;
}

/* The mount point of a device from mountinfo ("... MAJ:MIN root mountpoint ..."). */
static int mount_point(uint32_t dev, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[1024], mp[1024];
	unsigned int ma, mi;
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*d %*d %u:%u %1023s %1023s", &ma, &mi, root, mp) != 4)
			continue;
		if (RA_MKDEV(ma, mi) == dev && strcmp(root, "/") == 0) {
			snprintf(out, len, "%s", mp);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static void walk_device(uint32_t dev, struct want *w, size_t n)
{
	struct walk wk = { .st_dev = makedev(RA_MAJOR(dev), RA_MINOR(dev)), .w = w, .n = n };
	char mp[1024];

	if (mount_point(dev, mp, sizeof(mp)) < 0)
		return;
	qsort(w, n, sizeof(*w), cmp_ino);
	cur_walk = &wk;
	nftw(mp, visit, 64, FTW_PHYS | FTW_MOUNT);
	cur_walk = NULL;
}

static int store(struct ra_db *db, int64_t run_id, uint32_t dev, struct want *w, size_t n)
{
	int ret = 0;

	walk_device(dev, w, n);
	for (size_t i = 0; i < n; i++) {
		if (!ret && ra_db_add_file(db, run_id, dev, w[i].ino, w[i].path,
					   w[i].path ? w[i].size : -1) < 0)
			ret = -1;
		free(w[i].path);
		w[i].path = NULL;
	}
	return ret;
}

int ra_paths_resolve(struct ra_db *db, int64_t run_id)
{
	static const char sql[] =
		"SELECT dev, ino FROM ra_events WHERE run_id = ?1 UNION"
		" SELECT dev, ino FROM page_events WHERE run_id = ?1 AND event_id = 10"
		" ORDER BY 1, 2";
	sqlite3_stmt *st = NULL;
	struct want *w = NULL;
	size_t n = 0, cap = 0;
	uint32_t dev = 0;
	int ret = -1, rc;

	if (sqlite3_prepare_v2(ra_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t d = (uint32_t)sqlite3_column_int64(st, 0);

		if (n && d != dev) {
			if (store(db, run_id, dev, w, n) < 0)
				goto out;
			n = 0;
		}
		dev = d;
		if (n == cap) {
			struct want *nw = realloc(w, (cap = cap ? cap * 2 : 256) * sizeof(*w));

			if (!nw)
				goto out;
			w = nw;
		}
		w[n++] = (struct want){ .ino = (uint64_t)sqlite3_column_int64(st, 1) };
	}
	if (rc == SQLITE_DONE && (!n || store(db, run_id, dev, w, n) == 0))
		ret = 0;
out:
	if (ret < 0)
		ra_set_error(RA_ERR_IO, "cannot resolve file names: %s",
			     sqlite3_errmsg(ra_db_sqlite(db)));
	sqlite3_finalize(st);
	free(w);
	return ret;
}
