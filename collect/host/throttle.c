// SPDX-License-Identifier: LGPL-2.1
/*
 * Slow-device emulation: a cgroup v1 blkio group for the workload, whose
 * read throttles on one disk are set for the run and which is removed after
 * it. The group is listed in the restore journal while it exists, so that
 * the next recorder removes it when this one is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

#define BLKIO "/sys/fs/cgroup/blkio"

static int cg_write(const char *dir, const char *file, const char *value)
{
	char path[512];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = n < 0 ? errno : EIO;	/* a short write says nothing of why */
	close(fd);
	if (n == (ssize_t)strlen(value))
		return 0;
	errno = err;
	return -1;
}

/* The cgroup of this recorder, listed in the journal before it exists. */
static int make_cgroup(struct ra_throttle *t)
{
	char key[64], line[400];
	pid_t holder;

	snprintf(key, sizeof(key), RA_JOURNAL_CGROUP "ra-record.%d", (int)getpid());
	snprintf(t->cgroup, sizeof(t->cgroup), BLKIO "/ra-record.%d", (int)getpid());
	snprintf(t->procs, sizeof(t->procs), "%s/cgroup.procs", t->cgroup);
	snprintf(line, sizeof(line), "cgroup %s %d\n", t->cgroup, (int)getpid());
	if (ra_journal_lock(&t->entry, key, &holder, NULL, NULL) != 0 ||
	    ra_journal_note(&t->entry, line) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot journal the cgroup '%s': %s", t->cgroup,
			     strerror(errno));
		t->cgroup[0] = '\0';
		return -1;
	}
	if (mkdir(t->cgroup, 0755) < 0 && errno != EEXIST) {
		ra_set_error(RA_ERR_ENV, "cannot create '%s': %s", t->cgroup, strerror(errno));
		t->cgroup[0] = '\0';
		ra_journal_note(&t->entry, NULL);
		ra_journal_unlock(&t->entry);
		return -1;
	}
	return 0;
}

#define IOPS_FILE "blkio.throttle.read_iops_device"
#define BPS_FILE "blkio.throttle.read_bps_device"

/* A limit of the disk written: 0, or -1 (error set) */
static int write_limit(const struct ra_throttle *t, const char *file, const char *n)
{
	char val[96];

	snprintf(val, sizeof(val), "%u:%u %s", RA_MAJOR(t->dev), RA_MINOR(t->dev), n);
	if (cg_write(t->cgroup, file, val) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot set %s of '%s': %s", file, t->cgroup,
			     strerror(errno));
		return -1;
	}
	return 0;
}

/* One "iops:N" or "bps:N" of the spec; 1 set, 0 not understood, -1 failed. */
static int set_limit(struct ra_throttle *t, const char *p)
{
	unsigned long long n;

	if (sscanf(p, "iops:%llu", &n) == 1) {
		snprintf(t->iops, sizeof(t->iops), "%llu", n);
		return write_limit(t, IOPS_FILE, t->iops) < 0 ? -1 : 1;
	}
	if (sscanf(p, "bps:%llu", &n) == 1) {
		snprintf(t->bps, sizeof(t->bps), "%llu", n);
		return write_limit(t, BPS_FILE, t->bps) < 0 ? -1 : 1;
	}
	return 0;
}

int ra_throttle_setup(struct ra_throttle *t, const char *spec)
{
	const char *eq = strchr(spec, '='), *p;
	struct ra_blockdev bd;
	char dev[64];
	int set = 0, rc = 1;

	memset(t, 0, sizeof(*t));
	t->entry.fd = -1;
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(dev))
		goto bad;
	snprintf(dev, sizeof(dev), "%.*s", (int)(eq - spec), spec);
	if (ra_blockdev_resolve(dev, &bd) < 0)
		return -1;
	if (access(BLKIO, W_OK) < 0) {
		ra_set_error(RA_ERR_ENV, "--throttle needs the cgroup v1 blkio controller at '%s'",
			     BLKIO);
		return -1;
	}
	t->dev = bd.parent;
	if (make_cgroup(t) < 0)
		return -1;
	for (p = eq + 1; *p && rc > 0; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		rc = set_limit(t, p);
		set += rc > 0;
	}
	if (rc < 0)
		return -1;
	if (set && rc > 0)
		return 0;
bad:
	ra_set_error(RA_ERR_USAGE, "bad --throttle '%s' (want DEV=iops:N,bps:N)", spec);
	return -1;
}

/*
 * Setting a limit starts the group's first slice then; a bio that comes
 * while it lasts is allowed the bytes of all the time since (a bio of a new
 * slice, those of one slice), so a run that starts within a slice of the
 * setup reads up to a slice (100 ms) faster than the runs after it: measured
 * 60 MB/s on a 50 MB/s throttle where the next runs of the recording read
 * at 51.5, one recording in two. Two slices of the longest kind pass
 * before a run.
 */
#define SETTLE_NS (200 * 1000000L)	/* below a second */

/*
 * Each run starts from limits set anew: a group keeps its slice across the
 * runs of a recording when they follow closely, and a run that used less
 * than the bytes its time allowed (one bound by the IOPS limit) left them to
 * the next. Measured on Linux 6.18: a 50 MB/s throttle read at 78 MB/s by the
 * run after one bound at 1000 IOPS, without this.
 */
int ra_throttle_settle(struct ra_throttle *t)
{
	struct timespec ts = { .tv_nsec = SETTLE_NS };

	if (!t->cgroup[0])
		return 0;
	if ((t->iops[0] && write_limit(t, IOPS_FILE, t->iops) < 0) ||
	    (t->bps[0] && write_limit(t, BPS_FILE, t->bps) < 0))
		return -1;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

int ra_throttle_remove(struct ra_throttle *t)
{
	if (!t->cgroup[0])
		return 0;
	if (rmdir(t->cgroup) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot remove '%s': %s", t->cgroup, strerror(errno));
		ra_journal_unlock(&t->entry);	/* the entry stays for the next recorder */
		return -1;
	}
	t->cgroup[0] = '\0';
	ra_journal_note(&t->entry, NULL);
	ra_journal_unlock(&t->entry);
	return 0;
}

int ra_throttle_store(const struct ra_throttle *t, struct ra_db *db, int64_t run_id)
{
	/*
	 * The workload's blkio throttle: set for the run's cgroup, undone when
	 * the cgroup is removed after the last run (ra_db_setting_restored()).
	 */
	if (t->iops[0] && ra_db_add_setting(db, run_id, t->dev, "blkio.throttle.read_iops_device",
					    t->cgroup, NULL, t->iops, 0) < 0)
		return -1;
	if (t->bps[0] && ra_db_add_setting(db, run_id, t->dev, "blkio.throttle.read_bps_device",
					   t->cgroup, NULL, t->bps, 0) < 0)
		return -1;
	return 0;
}
