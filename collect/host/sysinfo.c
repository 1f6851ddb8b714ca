// SPDX-License-Identifier: LGPL-2.1
/*
 * System snapshot: block devices, their queue settings and counters,
 * /proc/vmstat, kernel and machine facts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host.h"

int ra_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int64_t read_int(const char *path)
{
	char buf[64];

	if (ra_read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

static uint64_t read_sectors(const char *name, const char *attr)
{
	char path[PATH_MAX];
	int64_t v;

	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", name, attr);
	v = read_int(path);
	return v > 0 ? (uint64_t)v : 0;
}

/* A partition: its disk (the parent directory in sysfs) and where it starts on it. */
static int partition_of(const char *name, struct ra_blockdev *bd)
{
	char path[PATH_MAX], real[PATH_MAX], buf[64];
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	if (access(path, F_OK) < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/class/block/%s", name);
	if (!realpath(path, real))
		return -1;
	snprintf(bd->parent_name, sizeof(bd->parent_name), "%s", basename(dirname(real)));
	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", bd->parent_name);
	if (ra_read_small(path, buf, sizeof(buf)) == 0 && sscanf(buf, "%u:%u", &ma, &mi) == 2)
		bd->parent = RA_MKDEV(ma, mi);
	bd->start = read_sectors(name, "start");
	return 0;
}

/*
 * The first of @names under @dir that holds text, kept printable: a device's
 * strings come from its firmware.
 */
static void hw_string(const char *dir, const char *const *names, char *out, size_t len)
{
	char path[PATH_MAX], buf[256];

	out[0] = '\0';
	for (; *names; names++) {
		char *s = buf;

		snprintf(path, sizeof(path), "%s/%s", dir, *names);
		if (ra_read_small(path, buf, sizeof(buf)) < 0)
			continue;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		for (char *c = s; *c; c++)
			if (!isprint((unsigned char)*c))
				*c = '?';
		snprintf(out, len, "%s", s);
		return;
	}
}

/*
 * The disk's hardware from its sysfs device: the bus it hangs on (the
 * device's subsystem; nvme-subsystem of a multipath namespace is nvme) and
 * what the bus calls vendor, model and firmware revision. Nothing for a
 * disk with no device (loop, device-mapper, md, zram).
 */
static void hardware_of(struct ra_blockdev *bd)
{
	/* the files of vendor, model and firmware: of the other buses, of MMC */
	static const char *const names[2][3][3] = {
		{ { "vendor" }, { "model" }, { "firmware_rev", "rev" } },
		{ { "manfid" }, { "name" }, { "fwrev" } },
	};
	char dir[PATH_MAX], path[PATH_MAX], real[PATH_MAX];
	const char *bus;
	int mmc;

	snprintf(dir, sizeof(dir), "/sys/class/block/%s/device", bd->parent_name);
	snprintf(path, sizeof(path), "%s/subsystem", dir);
	if (!realpath(path, real))
		return;
	bus = basename(real);
	mmc = strcmp(bus, "mmc") == 0;
	snprintf(bd->transport, sizeof(bd->transport), "%s",
		 strncmp(bus, "nvme", 4) == 0 ? "nvme" : bus);
	hw_string(dir, names[mmc][0], bd->vendor, sizeof(bd->vendor));
	hw_string(dir, names[mmc][1], bd->model, sizeof(bd->model));
	hw_string(dir, names[mmc][2], bd->firmware, sizeof(bd->firmware));
}

/* Fill name, dev, parent, start and size of @bd from its /sys/class/block entry. */
static int from_sysfs(const char *name, struct ra_blockdev *bd)
{
	char path[PATH_MAX], buf[64];
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (ra_read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -1;
	memset(bd, 0, sizeof(*bd));
	snprintf(bd->name, sizeof(bd->name), "%s", name);
	bd->dev = RA_MKDEV(ma, mi);
	bd->parent = bd->dev;
	snprintf(bd->parent_name, sizeof(bd->parent_name), "%s", name);
	bd->nr_sectors = read_sectors(name, "size");
	if (partition_of(name, bd) < 0)
		return -1;
	hardware_of(bd);
	return 0;
}

static int name_of_devnum(unsigned int ma, unsigned int mi, char *name, size_t len)
{
	char path[64], real[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", ma, mi);
	if (!realpath(path, real))
		return -1;
	snprintf(name, len, "%s", basename(real));
	return 0;
}

int ra_blockdev_resolve(const char *arg, struct ra_blockdev *bd)
{
	char name[64] = "";
	unsigned int ma, mi;
	char tail;
	struct stat sb;

	if (sscanf(arg, "%u:%u%c", &ma, &mi, &tail) == 2) {
		if (name_of_devnum(ma, mi, name, sizeof(name)) < 0)
			goto unknown;
	} else if (strchr(arg, '/')) {
		if (stat(arg, &sb) < 0 || !S_ISBLK(sb.st_mode) ||
		    name_of_devnum(major(sb.st_rdev), minor(sb.st_rdev), name, sizeof(name)) < 0)
			goto unknown;
	} else {
		snprintf(name, sizeof(name), "%s", arg);
	}
	if (strchr(name, '/') || from_sysfs(name, bd) < 0)
		goto unknown;
	return 0;
unknown:
	ra_set_error(RA_ERR_USAGE, "unknown block device '%s'", arg);
	return -1;
}

int ra_queue_read(const struct ra_blockdev *bd, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/%s", bd->parent_name, attr);
	return ra_read_small(path, buf, len);
}

int ra_queue_write(const struct ra_blockdev *bd, const char *attr, const char *value)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/%s", bd->parent_name, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ra_set_error(RA_ERR_ENV, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, value, strlen(value));
	if (n < 0)
		ra_set_error(RA_ERR_USAGE, "cannot write '%s' to '%s': %s", value, path,
			     strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

static int64_t queue_int(const struct ra_blockdev *bd, const char *attr)
{
	char buf[64];

	if (ra_queue_read(bd, attr, buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* "mq-deadline [none]" -> "none" */
static void active_scheduler(const char *s, char *out, size_t len)
{
	const char *a = strchr(s, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(out, len, "%s", s);
}

int ra_blockdev_snapshot(const struct ra_blockdev *bd, struct ra_dev_snapshot *snap)
{
	char path[PATH_MAX], buf[512], *p, *end;

	memset(snap, 0, sizeof(*snap));
	snap->read_ahead_kb = queue_int(bd, "read_ahead_kb");
	snap->rotational = queue_int(bd, "rotational");
	snap->nr_requests = queue_int(bd, "nr_requests");
	snap->max_sectors_kb = queue_int(bd, "max_sectors_kb");
	snap->logical_block_size = queue_int(bd, "logical_block_size");
	if (ra_queue_read(bd, "scheduler", buf, sizeof(buf)) == 0)
		active_scheduler(buf, snap->scheduler, sizeof(snap->scheduler));
	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", bd->name);
	if (ra_read_small(path, buf, sizeof(buf)) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	for (p = buf; snap->nstat < 17; p = end) {
		long long v = strtoll(p, &end, 10);

		if (end == p)
			break;
		snap->stat[snap->nstat++] = v;
	}
	return 0;
}

int64_t ra_blockdev_inflight(const struct ra_blockdev *bd)
{
	char path[PATH_MAX], buf[64];
	long long r = 0, w = 0;

	snprintf(path, sizeof(path), "/sys/class/block/%s/inflight", bd->name);
	if (ra_read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%lld %lld", &r, &w) != 2)
		return -1;
	return r + w;
}

int ra_blockdev_all(struct ra_blockdev **out)
{
	struct ra_blockdev *v = NULL, *nv;
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int n = 0;

	*out = NULL;
	if (!d) {
		ra_set_error(RA_ERR_ENV, "cannot list '/sys/block': %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
		if (read_int(path) <= 0)
			continue;
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		if (from_sysfs(de->d_name, &v[n]) == 0)
			n++;
	}
	closedir(d);
	*out = v;
	return n;
}

void ra_sysinfo_read(struct ra_sysinfo *si)
{
	struct utsname u;
	char buf[256];

	memset(si, 0, sizeof(*si));
	if (uname(&u) == 0) {
		snprintf(si->kernel, sizeof(si->kernel), "%s", u.release);
		snprintf(si->hostname, sizeof(si->hostname), "%s", u.nodename);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
	}
	si->page_size = sysconf(_SC_PAGESIZE);
	si->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ra_read_small("/proc/meminfo", buf, sizeof(buf)) == 0) {
		long long kb;

		if (sscanf(buf, "MemTotal: %lld kB", &kb) == 1)
			si->mem_bytes = kb * 1024;
	}
}

/* The /proc/vmstat counters that bear on readahead and reclaim. */
static const char *const vmstat_keys[] = {
	"pgpgin", "pgpgout", "pgfault", "pgmajfault", "nr_file_pages", "nr_inactive_file",
	"nr_active_file", "workingset_refault_file", "workingset_activate_file",
	"workingset_restore_file", "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd",
	"pgsteal_direct", "pginodesteal", "allocstall_normal", "allocstall_movable",
	"pgactivate", "pgdeactivate", "thp_file_alloc",
	"drop_pagecache",	/* writes to drop_caches: by anyone, during the run */
	"oom_kill",		/* processes the OOM killer ended, anywhere, during the run */
	NULL
};

void ra_vmstat_read(struct ra_vmstat *vm)
{
	FILE *f = fopen("/proc/vmstat", "re");
	char key[64];
	long long v;

	vm->n = 0;
	if (!f)
		return;
	while (vm->n < 32 && fscanf(f, "%63s %lld", key, &v) == 2) {
		for (int i = 0; vmstat_keys[i]; i++) {
			if (strcmp(key, vmstat_keys[i]) != 0)
				continue;
			snprintf(vm->name[vm->n], sizeof(vm->name[0]), "%s", key);
			vm->value[vm->n++] = v;
		}
	}
	fclose(f);
}

int ra_vmstat_write(struct ra_db *db, int64_t run_id, const char *phase,
		    const struct ra_vmstat *vm)
{
	for (int i = 0; i < vm->n; i++)
		if (ra_db_add_vmstat(db, run_id, phase, vm->name[i], vm->value[i]) < 0)
			return -1;
	return 0;
}
