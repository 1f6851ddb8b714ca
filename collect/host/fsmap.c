// SPDX-License-Identifier: LGPL-2.1
/*
 * The mounted file systems, the block devices under each and the bdi that
 * governs its readahead.
 *
 * Page-cache and readahead events carry the file system's s_dev, block events
 * the block device. For ext4 or xfs the two are the same device and the bdi
 * is the disk's (queue/read_ahead_kb). btrfs tags its events with an
 * anonymous s_dev (0:N), lists its member devices in
 * /sys/fs/btrfs/FSID/devices and reads ahead through a bdi of its own
 * (/sys/fs/btrfs/FSID/bdi -> btrfs-N). overlayfs has no page cache of its own:
 * its files' events are its layers'. Other file systems with an anonymous
 * s_dev (fuse, nfs, erofs on a file, ...) have no block device ratrace can
 * name; those that set up a bdi of their own name it after their s_dev.
 *
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS] - TYPE
 * SOURCE SUPER_OPTIONS", with spaces, tabs, newlines and backslashes of the
 * paths written as octal escapes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host.h"

#define MOUNTINFO "/proc/self/mountinfo"
#define BTRFS_SYSFS "/sys/fs/btrfs"
#define LOWER_DEPTH 4		/* device-mapper / md levels followed below a member */

/* File systems without device I/O: nothing to map, nothing to warn about. */
static const char *const pseudo_types[] = {
	"proc", "sysfs", "devtmpfs", "devpts", "tmpfs", "ramfs", "cgroup", "cgroup2",
	"tracefs", "debugfs", "securityfs", "pstore", "bpf", "configfs", "mqueue", "hugetlbfs",
	"autofs", "binfmt_misc", "fusectl", "efivarfs", "rpc_pipefs", "nsfs", "selinuxfs",
	"nfsd", NULL
};

static bool is_pseudo(const char *fstype)
{
	for (int i = 0; pseudo_types[i]; i++)
		if (strcmp(fstype, pseudo_types[i]) == 0)
			return true;
	return false;
}

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static char *read_all(const char *path)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap), *nb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb)
				goto fail;
			buf = nb;
		}
	}
	if (n < 0)
		goto fail;
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* One line of mountinfo, cut in place into @m; 0, or -1 for a line not understood. */
static int parse_mount(char *line, struct ra_mount *m)
{
	char *f[6], *sep, *save = NULL;
	unsigned int ma, mi;
	int n = 0;

	sep = strstr(line, " - ");
	if (!sep)
		return -1;
	*sep = '\0';
	for (char *t = strtok_r(line, " ", &save); t && n < 6; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n < 5 || sscanf(f[2], "%u:%u", &ma, &mi) != 2)
		return -1;
	m->id = atoi(f[0]);
	m->s_dev = RA_MKDEV(ma, mi);
	m->root = f[3];
	m->point = f[4];
	save = NULL;
	m->fstype = strtok_r(sep + 3, " ", &save);
	m->source = strtok_r(NULL, " ", &save);
	m->options = strtok_r(NULL, " \n", &save);
	if (!m->fstype || !m->source)
		return -1;
	if (!m->options)
		m->options = m->source + strlen(m->source);	/* "" */
	unescape(m->root);
	unescape(m->point);
	unescape(m->source);
	return 0;
}

static int read_mounts(struct ra_fsmap *m)
{
	char *line, *save = NULL;
	int cap = 0;

	for (line = strtok_r(m->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (m->nmnt == cap) {
			struct ra_mount *nm = realloc(m->mnt, (size_t)(cap = cap ? 2 * cap : 64) *
								  sizeof(*nm));

			if (!nm)
				goto nomem;
			m->mnt = nm;
		}
		if (parse_mount(line, &m->mnt[m->nmnt]) == 0)
			m->nmnt++;
	}
	return 0;
nomem:
	ra_set_error(RA_ERR_IO, "out of memory");
	return -1;
}

static void add_dev(struct ra_fs *fs, uint32_t dev)
{
	for (int i = 0; i < fs->ndevs; i++)
		if (fs->devs[i] == dev)
			return;
	if (fs->ndevs < RA_FS_MAX_DEVS)
		fs->devs[fs->ndevs++] = dev;
}

static int dev_of_name(const char *name, uint32_t *dev)
{
	char path[PATH_MAX], buf[32];
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	if (ra_read_small(path, buf, sizeof(buf)) < 0 || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -1;
	*dev = RA_MKDEV(ma, mi);
	return 0;
}

/* A device under a file system: its disk's bdi and queue/read_ahead_kb. */
static void disk_bdi(struct ra_fs *fs, uint32_t dev)
{
	char arg[32], path[PATH_MAX], link[PATH_MAX];
	struct ra_blockdev bd;
	ssize_t n;

	snprintf(arg, sizeof(arg), "%u:%u", RA_MAJOR(dev), RA_MINOR(dev));
	if (ra_blockdev_resolve(arg, &bd) < 0)
		return;
	snprintf(path, sizeof(path), "/sys/class/block/%s/bdi", bd.parent_name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(fs->bdi, sizeof(fs->bdi), "%s", basename(link));
	} else {
		snprintf(fs->bdi, sizeof(fs->bdi), "%u:%u", RA_MAJOR(bd.parent),
			 RA_MINOR(bd.parent));
	}
	snprintf(fs->ra_path, sizeof(fs->ra_path), "/sys/class/block/%s/queue/read_ahead_kb",
		 bd.parent_name);
}

/* The FSID directory of the btrfs whose devices include @dev; 0 or -1. */
static int btrfs_dir(uint32_t dev, char *out, size_t len)
{
	DIR *d = opendir(BTRFS_SYSFS);
	struct dirent *de;
	int found = -1;

	while (d && found < 0 && (de = readdir(d))) {
		char path[PATH_MAX];
		struct dirent *me;
		DIR *devs;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), BTRFS_SYSFS "/%s/devices", de->d_name);
		devs = opendir(path);
		while (devs && found < 0 && (me = readdir(devs))) {
			uint32_t md;

			if (me->d_name[0] == '.' || dev_of_name(me->d_name, &md) < 0)
				continue;
			if (md == dev) {
				snprintf(out, len, BTRFS_SYSFS "/%s", de->d_name);
				found = 0;
			}
		}
		if (devs)
			closedir(devs);
	}
	if (d)
		closedir(d);
	return found;
}

/* The block device a mount names as its source, or 0. */
static uint32_t source_dev(const struct ra_mount *mnt)
{
	struct stat sb;

	if (mnt->source[0] != '/' || stat(mnt->source, &sb) < 0 || !S_ISBLK(sb.st_mode))
		return 0;
	return RA_MKDEV(major(sb.st_rdev), minor(sb.st_rdev));
}

/* btrfs: every member device, and the bdi of its own. */
static void map_btrfs(struct ra_fs *fs)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], link[PATH_MAX];
	uint32_t src = source_dev(fs->mnt);
	struct dirent *de;
	ssize_t n;
	DIR *d;

	if (!src || btrfs_dir(src, dir, sizeof(dir)) < 0) {
		if (src)
			add_dev(fs, src);
		return;
	}
	snprintf(path, sizeof(path), "%s/devices", dir);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		uint32_t md;

		if (de->d_name[0] != '.' && dev_of_name(de->d_name, &md) == 0)
			add_dev(fs, md);
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "%s/bdi", dir);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	snprintf(fs->bdi, sizeof(fs->bdi), "%s", basename(link));
	snprintf(fs->ra_path, sizeof(fs->ra_path), "/sys/class/bdi/%s/read_ahead_kb", fs->bdi);
	fs->own_bdi = true;
}

/* A bdi named after the s_dev (super_setup_bdi(): fuse, nfs, ...) is the file system's own. */
static void own_bdi_by_sdev(struct ra_fs *fs)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb", RA_MAJOR(fs->s_dev),
		 RA_MINOR(fs->s_dev));
	if (access(path, F_OK) < 0)
		return;
	snprintf(fs->bdi, sizeof(fs->bdi), "%u:%u", RA_MAJOR(fs->s_dev), RA_MINOR(fs->s_dev));
	snprintf(fs->ra_path, sizeof(fs->ra_path), "%s", path);
	fs->own_bdi = true;
}

static void map_fs(struct ra_fs *fs)
{
	char path[64];
	uint32_t src;

	fs->pseudo = is_pseudo(fs->mnt->fstype);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", RA_MAJOR(fs->s_dev),
		 RA_MINOR(fs->s_dev));
	if (RA_MAJOR(fs->s_dev) && access(path, F_OK) == 0) {
		add_dev(fs, fs->s_dev);
		disk_bdi(fs, fs->s_dev);
		return;
	}
	if (strcmp(fs->mnt->fstype, "btrfs") == 0) {
		map_btrfs(fs);
		if (fs->bdi[0])
			return;
	} else if ((src = source_dev(fs->mnt))) {
		add_dev(fs, src);
	}
	own_bdi_by_sdev(fs);
}

/*
 * The mount that held @path when the mount @before was made: the longest
 * mount point that is a prefix of it among the mounts listed before @before
 * (mountinfo lists mounts in the order they were made; of mounts stacked on
 * one point the last is on top). A later mount on the path, the overlay
 * itself mounted on its lower directory included, did not hold it.
 */
static const struct ra_mount *mount_of_path(const struct ra_fsmap *m, const char *path,
					    const struct ra_mount *before)
{
	const struct ra_mount *best = NULL;
	size_t best_len = 0;

	for (const struct ra_mount *mnt = m->mnt; mnt < before; mnt++) {
		const char *p = mnt->point;
		size_t len = strlen(p);

		if (strncmp(path, p, len) != 0 || (path[len] != '/' && path[len] && len > 1))
			continue;
		if (!best || len >= best_len) {
			best = mnt;
			best_len = len;
		}
	}
	return best;
}

/* The first mount of @fs in the table: when it was mounted. */
static const struct ra_mount *first_mount(const struct ra_fsmap *m, const struct ra_fs *fs)
{
	for (int i = 0; i < m->nmnt; i++)
		if (m->mnt[i].s_dev == fs->s_dev)
			return &m->mnt[i];
	return fs->mnt;
}

/*
 * One layer directory of an overlay: its file system's devices become the
 * overlay's. The path is the one given at mount time: symbolic links in it
 * are followed now; a relative path was relative to the directory of the
 * process that mounted, which nothing records, so its file system is unknown.
 */
static void add_layer(struct ra_fsmap *m, struct ra_fs *fs, const char *dir)
{
	char real[PATH_MAX];
	const struct ra_mount *mnt;
	const struct ra_fs *lower;

	if (dir[0] != '/') {
		if (!fs->unresolved[0])
			snprintf(fs->unresolved, sizeof(fs->unresolved), "%s", dir);
		return;
	}
	mnt = mount_of_path(m, realpath(dir, real) ? real : dir, first_mount(m, fs));
	lower = mnt ? ra_fsmap_find(m, mnt->s_dev) : NULL;
	if (!lower || lower == fs)
		return;
	for (int i = 0; i < fs->nlayers; i++)
		if (fs->layers[i] == lower->s_dev)
			return;
	if (fs->nlayers < RA_FS_MAX_DEVS)
		fs->layers[fs->nlayers++] = lower->s_dev;
	for (int i = 0; i < lower->ndevs; i++)
		add_dev(fs, lower->devs[i]);
}

/*
 * The layers of one option value, its octal escapes undone: as overlayfs
 * parses it, "lowerdir=A:B" lists paths in which a backslash escapes the next
 * character (a colon of a path is "\:"), "upperdir=" is one such path, and
 * "lowerdir+=" and "datadir+=" are one path each, taken as they are.
 */
static void add_layers(struct ra_fsmap *m, struct ra_fs *fs, char *v, bool esc, bool list)
{
	char *out = v, *dir = v;

	unescape(v);
	for (char *p = v;; p++) {
		char c = *p;

		if (esc && c == '\\' && p[1]) {
			*out++ = *++p;
			continue;
		}
		if (c && (c != ':' || !list)) {
			*out++ = c;
			continue;
		}
		*out++ = '\0';
		if (*dir)
			add_layer(m, fs, dir);
		if (!c)
			return;
		dir = out;
	}
}

/* overlay: "lowerdir=A:B,upperdir=C,workdir=D" (or lowerdir+=, datadir+=) in the super options */
static void map_overlay(struct ra_fsmap *m, struct ra_fs *fs)
{
	static const struct {
		const char *key;
		bool esc, list;
	} keys[] = { { "lowerdir=", true, true }, { "upperdir=", true, false },
		     { "lowerdir+=", false, false }, { "datadir+=", false, false } };
	char *opts = strdup(fs->mnt->options), *save = NULL;

	if (!opts)
		return;
	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strncmp(o, keys[k].key, strlen(keys[k].key)) == 0)
				add_layers(m, fs, o + strlen(keys[k].key), keys[k].esc,
					   keys[k].list);
	free(opts);
}

static int build_fs(struct ra_fsmap *m)
{
	m->fs = calloc((size_t)(m->nmnt ? m->nmnt : 1), sizeof(*m->fs));
	if (!m->fs) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	for (int i = 0; i < m->nmnt; i++) {
		struct ra_fs *fs = (struct ra_fs *)ra_fsmap_find(m, m->mnt[i].s_dev);

		if (!fs) {
			fs = &m->fs[m->nfs++];
			fs->s_dev = m->mnt[i].s_dev;
			fs->mnt = &m->mnt[i];
		} else if (strcmp(fs->mnt->root, "/") != 0 && strcmp(m->mnt[i].root, "/") == 0) {
			fs->mnt = &m->mnt[i];	/* the mount of its root names it best */
		}
	}
	for (int i = 0; i < m->nfs; i++)
		if (strcmp(m->fs[i].mnt->fstype, "overlay") != 0)
			map_fs(&m->fs[i]);
	for (int i = 0; i < m->nfs; i++)
		if (strcmp(m->fs[i].mnt->fstype, "overlay") == 0)
			map_overlay(m, &m->fs[i]);
	return 0;
}

struct ra_fsmap *ra_fsmap_parse(const char *text)
{
	struct ra_fsmap *m = calloc(1, sizeof(*m));

	if (!m || !(m->text = strdup(text))) {
		free(m);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	if (read_mounts(m) < 0 || build_fs(m) < 0) {
		ra_fsmap_free(m);
		return NULL;
	}
	return m;
}

struct ra_fsmap *ra_fsmap_read(void)
{
	char *text = read_all(MOUNTINFO);
	struct ra_fsmap *m;

	if (!text) {
		ra_set_error(RA_ERR_ENV, "cannot read '%s': %s", MOUNTINFO, strerror(errno));
		return NULL;
	}
	m = ra_fsmap_parse(text);
	free(text);
	return m;
}

void ra_fsmap_free(struct ra_fsmap *m)
{
	if (!m)
		return;
	free(m->fs);
	free(m->mnt);
	free(m->text);
	free(m);
}

const struct ra_fs *ra_fsmap_find(const struct ra_fsmap *m, uint32_t s_dev)
{
	for (int i = 0; i < m->nfs; i++)
		if (m->fs[i].s_dev == s_dev)
			return &m->fs[i];
	return NULL;
}

const struct ra_mount *ra_fsmap_mount(const struct ra_fsmap *m, int id)
{
	for (int i = 0; i < m->nmnt; i++)
		if (m->mnt[i].id == id)
			return &m->mnt[i];
	return NULL;
}

bool ra_fs_unmapped(const struct ra_fs *fs)
{
	return !fs->pseudo && !fs->ndevs && !fs->nlayers;
}

/* Whether block device @dev is @target, a partition of it, or lies on it through its slaves. */
static bool dev_on(uint32_t dev, uint32_t target, int depth)
{
	char arg[32], path[PATH_MAX];
	struct ra_blockdev bd;
	struct dirent *de;
	bool on = false;
	DIR *d;

	if (dev == target)
		return true;
	snprintf(arg, sizeof(arg), "%u:%u", RA_MAJOR(dev), RA_MINOR(dev));
	if (ra_blockdev_resolve(arg, &bd) < 0)
		return false;
	if (bd.parent == target)
		return true;
	if (depth >= LOWER_DEPTH)
		return false;
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", bd.name);
	d = opendir(path);
	while (d && !on && (de = readdir(d))) {
		uint32_t lower;

		if (de->d_name[0] != '.' && dev_of_name(de->d_name, &lower) == 0)
			on = dev_on(lower, target, depth + 1);
	}
	if (d)
		closedir(d);
	return on;
}

bool ra_fs_on(const struct ra_fs *fs, uint32_t dev)
{
	for (int i = 0; i < fs->ndevs; i++)
		if (dev_on(fs->devs[i], dev, 0))
			return true;
	return false;
}

static int add_target_dev(struct ra_target *t, uint32_t dev)
{
	char arg[32];

	for (int i = 0; i < t->nbd; i++)
		if (t->bd[i].dev == dev)
			return 0;
	if (t->nbd == RA_FS_MAX_DEVS)
		return 0;
	snprintf(arg, sizeof(arg), "%u:%u", RA_MAJOR(dev), RA_MINOR(dev));
	return ra_blockdev_resolve(arg, &t->bd[t->nbd++]);
}

/* "0:N" of a mounted file system: its block devices, or why it has none. */
static int resolve_sdev(const struct ra_fsmap *m, const char *arg, struct ra_target *t)
{
	unsigned int ma, mi;
	const struct ra_fs *fs;
	char tail;

	if (sscanf(arg, "%u:%u%c", &ma, &mi, &tail) != 2 ||
	    !(fs = ra_fsmap_find(m, RA_MKDEV(ma, mi)))) {
		ra_set_error(RA_ERR_USAGE, "unknown block device '%s'", arg);
		return -1;
	}
	if (!fs->ndevs) {
		ra_set_error(RA_ERR_USAGE, "cannot trace '%s': it is the s_dev of the %s file"
			     " system at '%s', which has no block device ratrace can map", arg,
			     fs->mnt->fstype, fs->mnt->point);
		return -1;
	}
	for (int i = 0; i < fs->ndevs; i++)
		if (add_target_dev(t, fs->devs[i]) < 0)
			return -1;
	return 0;
}

/* A device a file system on the target holds data on, unless its I/O is a named device's. */
static void add_member(struct ra_target *t, const struct ra_blockdev *bd)
{
	for (int i = 0; i < t->nbd; i++)
		if (dev_on(bd->dev, t->bd[i].dev, 0))
			return;	/* the device itself, or a partition of it */
	for (int i = 0; i < t->nmember; i++)
		if (t->member[i].dev == bd->dev)
			return;
	if (t->nmember < RA_FS_MAX_DEVS)
		t->member[t->nmember++] = *bd;
}

/* The devices that hold the data of @dev: itself when it has no slaves, else those below them. */
static void add_leaves(struct ra_target *t, uint32_t dev, int depth)
{
	char arg[32], path[PATH_MAX];
	struct ra_blockdev bd;
	struct dirent *de;
	bool lower = false;
	DIR *d;

	snprintf(arg, sizeof(arg), "%u:%u", RA_MAJOR(dev), RA_MINOR(dev));
	if (ra_blockdev_resolve(arg, &bd) < 0)
		return;
	snprintf(path, sizeof(path), "/sys/class/block/%s/slaves", bd.name);
	d = depth < LOWER_DEPTH ? opendir(path) : NULL;
	while (d && (de = readdir(d))) {
		uint32_t ld;

		if (de->d_name[0] == '.' || dev_of_name(de->d_name, &ld) < 0)
			continue;
		add_leaves(t, ld, depth + 1);
		lower = true;
	}
	if (d)
		closedir(d);
	if (!lower)
		add_member(t, &bd);
}

int ra_target_resolve(const struct ra_fsmap *m, const char *arg, struct ra_target *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->arg, sizeof(t->arg), "%s", arg);
	if (ra_blockdev_resolve(arg, &t->bd[0]) == 0)
		t->nbd = 1;
	else if (resolve_sdev(m, arg, t) < 0)
		return -1;
	for (int i = 0; i < m->nfs && t->nfs < RA_TARGET_MAX_FS; i++) {
		const struct ra_fs *fs = &m->fs[i];
		bool on = false;

		for (int j = 0; j < t->nbd && !on; j++)
			on = ra_fs_on(fs, t->bd[j].dev);
		if (!on)
			continue;
		t->fs[t->nfs++] = fs;
		if (strcmp(fs->mnt->fstype, "overlay") == 0)
			continue;	/* its other layers are other file systems */
		for (int j = 0; j < fs->ndevs; j++)
			add_leaves(t, fs->devs[j], 0);
	}
	return 0;
}

int ra_fs_store(struct ra_db *db, int64_t run_id, const struct ra_fs *fs, const char *ra_kb,
		int64_t unrecorded)
{
	struct ra_db_filesystem f = {
		.fs_dev = fs->s_dev, .fstype = fs->mnt->fstype, .mount_point = fs->mnt->point,
		.bdi = fs->bdi[0] ? fs->bdi : NULL, .unrecorded_events = unrecorded,
		.read_ahead_kb = ra_kb && *ra_kb ? strtoll(ra_kb, NULL, 10) : -1,
	};

	if (!fs->ndevs)
		return ra_db_add_filesystem(db, run_id, &f);
	for (int i = 0; i < fs->ndevs; i++) {
		char arg[32];
		struct ra_blockdev bd;

		snprintf(arg, sizeof(arg), "%u:%u", RA_MAJOR(fs->devs[i]), RA_MINOR(fs->devs[i]));
		f.dev = fs->devs[i];
		f.dev_name = ra_blockdev_resolve(arg, &bd) == 0 ? bd.name : NULL;
		if (ra_db_add_filesystem(db, run_id, &f) < 0)
			return -1;
	}
	return 0;
}
