// SPDX-License-Identifier: LGPL-2.1
/*
 * The restore journal: what a recorder changed on the machine and has not
 * put back yet (read_ahead_kb values, the throttle's cgroup), one file per
 * recorder in /run/ratrace. A recorder killed with SIGKILL cannot restore
 * anything; the next recorder finds its journal, sees that its pid is gone,
 * and restores in its place. /run is emptied at boot, when the settings are
 * back to their defaults anyway.
 *
 * A journal is a few lines:
 *   read_ahead_kb MAJ:MIN NAME OLD_VALUE
 *   cgroup PATH
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"

#define JOURNAL_DIR "/run/ratrace"
#define JOURNAL_PREFIX "ra-record."
#define JOURNAL_SUFFIX ".restore"

static void journal_path(char *buf, size_t len, long pid)
{
	snprintf(buf, len, JOURNAL_DIR "/" JOURNAL_PREFIX "%ld" JOURNAL_SUFFIX, pid);
}

int ra_journal_write(const struct ra_journal_item *items, int n)
{
	char path[256], tmp[300];
	FILE *f;

	journal_path(path, sizeof(path), (long)getpid());
	if (!n) {
		if (unlink(path) < 0 && errno != ENOENT)
			return -1;
		rmdir(JOURNAL_DIR);	/* when no other recorder has one */
		return 0;
	}
	if (mkdir(JOURNAL_DIR, 0700) < 0 && errno != EEXIST)
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -1;
	for (int i = 0; i < n; i++) {
		if (items[i].cgroup)
			fprintf(f, "cgroup %s\n", items[i].cgroup);
		else
			fprintf(f, "read_ahead_kb %u:%u %s %s\n", RA_MAJOR(items[i].dev),
				RA_MINOR(items[i].dev), items[i].name, items[i].old_value);
	}
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	return rename(tmp, path);
}

/* Put back one line of a dead recorder's journal; 0 done, -1 not possible. */
static int recover_line(const char *line, long pid)
{
	char name[64], value[32], cg[256];
	unsigned int ma, mi;
	struct ra_blockdev bd;

	if (sscanf(line, "cgroup %255s", cg) == 1) {
		if (rmdir(cg) < 0 && errno != ENOENT) {
			fprintf(stderr, "ra-record: cannot remove '%s', left by recorder %ld: %s\n",
				cg, pid, strerror(errno));
			return -1;
		}
		fprintf(stderr, "ra-record: removed cgroup '%s', left by recorder %ld\n", cg, pid);
		return 0;
	}
	if (sscanf(line, "read_ahead_kb %u:%u %63s %31s", &ma, &mi, name, value) != 4)
		return 0;	/* not ours to read: skip */
	/* the device must still be the one the journal names */
	if (ra_blockdev_resolve(name, &bd) < 0 || bd.dev != RA_MKDEV(ma, mi)) {
		fprintf(stderr, "ra-record: '%s' (%u:%u) of recorder %ld's journal is gone; "
			"its read_ahead_kb is not restored\n", name, ma, mi, pid);
		return 0;
	}
	if (ra_queue_write(&bd, "read_ahead_kb", value) < 0) {
		fprintf(stderr, "ra-record: cannot restore read_ahead_kb of '%s' to %s\n", name,
			value);
		return -1;
	}
	fprintf(stderr, "ra-record: restored read_ahead_kb of '%s' to %s, left by recorder %ld\n",
		name, value, pid);
	return 0;
}

int ra_journal_recover(void)
{
	struct dirent *de;
	int recovered = 0;
	DIR *d = opendir(JOURNAL_DIR);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), sl = strlen(JOURNAL_SUFFIX);
		char path[512], line[512];
		bool ok = true;
		char *end;
		long pid;
		FILE *f;

		if (strncmp(de->d_name, JOURNAL_PREFIX, strlen(JOURNAL_PREFIX)) != 0 || len <= sl ||
		    strcmp(de->d_name + len - sl, JOURNAL_SUFFIX) != 0)
			continue;
		pid = strtol(de->d_name + strlen(JOURNAL_PREFIX), &end, 10);
		if (end != de->d_name + len - sl || pid <= 0)
			continue;
		if (pid != (long)getpid() && !(kill((pid_t)pid, 0) < 0 && errno == ESRCH))
			continue;	/* its recorder is alive: it restores itself */
		snprintf(path, sizeof(path), JOURNAL_DIR "/%s", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (recover_line(line, pid) < 0)
				ok = false;
		fclose(f);
		if (ok) {
			unlink(path);
			recovered++;
		}
	}
	closedir(d);
	if (recovered)
		rmdir(JOURNAL_DIR);
	return recovered;
}
