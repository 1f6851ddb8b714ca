// SPDX-License-Identifier: LGPL-2.1
/*
 * File names for the inodes of a recording. The events carry (s_dev, i_ino)
 * only, and a file may be gone by the time the trace is stored, so names
 * are taken when they can first be seen:
 *
 *  - before the workload, a walk of the traced file systems (every regular
 *    file: the files the workload deletes keep the name they had);
 *  - while it runs, the regular files its processes have open
 *    (/proc/PID/fd, each file read once; readlink still names a file
 *    unlinked since, with " (deleted)" after it);
 *  - after it, for the inodes still without a name (files created and
 *    closed between two looks), the name the inode number gives: ext2/3/4
 *    open it by a file handle, btrfs lists its paths; a walk where the file
 *    system cannot tell (xfs and others).
 *
 * A name seen open wins, then the name at the end, then the one at the start.
 * The names of the walk before the workload go to a temporary file, read
 * once at the end for the files still without a name: a file system of
 * millions of files costs the recorder no memory for them.
 * Walks stay on one file system (nested mounts are skipped, btrfs
 * subvolumes are not), go WALK_DEPTH_MAX directories deep and stop after
 * RA_PATH_WALK_MAX entries; the walk at the end stats only the entries whose
 * inode number (readdir's) it looks for. stat's
 * st_dev is not the s_dev of the events on btrfs (each subvolume has an
 * anonymous device of its own), so a file's file system is known from its
 * mount: the mount walked, or an open file's mnt_id (/proc/PID/fdinfo).
 */
#include <dirent.h>
#include <linux/btrfs.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "host.h"
#include "ra_bigmem.h"
#include "ra_db.h"
#include "ra_sql.h"
#include "ra_tmpfile.h"

#define RA_PATH_WALK_MAX 2000000
#define WALK_DEPTH_MAX 256	/* directories below one another (an open descriptor each) */
#define SCAN_MAX_PROCS 1024
#define DELETED " (deleted)"
/* Bytes of the walk's names written or read at once */
#define START_BUF (256 << 10)

enum { SRC_NONE, SRC_START, SRC_END, SRC_OPEN };

struct name {
	uint64_t ino;
	uint32_t dev;
	uint32_t off;		/* into the arena, + 1 (0: empty slot) */
	int64_t size;
	uint8_t src;
	uint8_t pref;		/* seen on the mount's own subvolume (btrfs) */
};

struct devmap {
	uint64_t st_dev;
	uint32_t s_dev;
};

struct ra_names {
	const struct ra_fsmap *m;
	const uint32_t *traced;	/* s_dev of the traced file systems */
	int ntraced;		/* -1: every file system with device I/O */
	struct name *tab;	/* open addressing, power-of-two size */
	size_t n, cap;
	char *arena;
	size_t alen, acap;
	struct devmap dm[64];
	int ndm;
	uint32_t unmapped[RA_MAX_UNMAPPED];
	char *unmapped_path[RA_MAX_UNMAPPED];
	int nunmapped;
	/* the walk before the workload: struct start_rec, its path after it */
	struct ra_tmpfile start;
	char *sbuf;
	size_t slen;		/* bytes in sbuf, not yet written */
	off_t send;		/* bytes written */
	bool sfailed;
};

/* A name of the walk before the workload, as its file holds it. */
struct start_rec {
	uint64_t ino;
	int64_t size;
	uint32_t dev;
	uint16_t len;		/* of the path, which follows */
	uint8_t pref;
	uint8_t pad;
};

struct ra_names *ra_names_alloc(const struct ra_fsmap *m, const uint32_t *traced, int ntraced)
{
	struct ra_names *nm = calloc(1, sizeof(*nm));

	if (!nm) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	nm->m = m;
	nm->traced = traced;
	nm->ntraced = ntraced;
	ra_tmpfile_init(&nm->start);
	return nm;
}

void ra_names_free(struct ra_names *nm)
{
	if (!nm)
		return;
	for (int i = 0; i < nm->nunmapped; i++)
		free(nm->unmapped_path[i]);
	free(nm->tab);
	free(nm->arena);
	free(nm->sbuf);
	ra_tmpfile_close(&nm->start);
	free(nm);
}

static size_t slot_of(const struct ra_names *nm, uint32_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)dev << 40)) * 0x9E3779B97F4A7C15ULL;
	size_t i = (size_t)(h >> 20) & (nm->cap - 1);

	while (nm->tab[i].off && (nm->tab[i].ino != ino || nm->tab[i].dev != dev))
		i = (i + 1) & (nm->cap - 1);
	return i;
}

static struct name *lookup(const struct ra_names *nm, uint32_t dev, uint64_t ino)
{
	struct name *e;

	if (!nm || !nm->cap)
		return NULL;
	e = &nm->tab[slot_of(nm, dev, ino)];
	return e->off ? e : NULL;
}

static int grow(struct ra_names *nm)
{
	struct name *old = nm->tab;
	size_t ocap = nm->cap;

	nm->cap = ocap ? ocap * 2 : 4096;
	nm->tab = calloc(nm->cap, sizeof(*nm->tab));
	if (!nm->tab) {
		nm->tab = old;
		nm->cap = ocap;
		return -1;
	}
	for (size_t i = 0; i < ocap; i++)
		if (old[i].off)
			nm->tab[slot_of(nm, old[i].dev, old[i].ino)] = old[i];
	free(old);
	return 0;
}

static int arena_add(struct ra_names *nm, const char *path, size_t len)
{
	size_t off = nm->alen;

	if (nm->alen + len + 1 > nm->acap) {
		size_t cap = nm->acap ? nm->acap * 2 : 65536;
		char *a;

		while (cap < nm->alen + len + 1)
			cap *= 2;
		a = realloc(nm->arena, cap);
		if (!a)
			return -1;
		nm->arena = a;
		nm->acap = cap;
	}
	memcpy(nm->arena + off, path, len);
	nm->arena[off + len] = '\0';
	nm->alen += len + 1;
	return (int)off;
}

/* Keep @path for (dev, ino) unless a better name is known; 0, or -1 when out of memory. */
static int put(struct ra_names *nm, uint32_t dev, uint64_t ino, const char *path, size_t len,
	       int64_t size, int src, bool pref)
{
	struct name *e;
	int off;

	if ((nm->n + 1) * 2 > nm->cap && grow(nm) < 0)
		return -1;
	e = &nm->tab[slot_of(nm, dev, ino)];
	if (e->off && (e->src > src || (e->src == src && (e->pref || !pref))))
		return 0;
	off = arena_add(nm, path, len);
	if (off < 0 || nm->alen > UINT32_MAX)
		return -1;
	if (!e->off)
		nm->n++;
	*e = (struct name){ .ino = ino, .dev = dev, .off = (uint32_t)off + 1, .size = size,
			    .src = (uint8_t)src, .pref = pref };
	return 0;
}

static const char *name_path(const struct ra_names *nm, const struct name *e)
{
	return nm->arena + e->off - 1;
}

bool ra_names_traced(const struct ra_names *nm, uint32_t s_dev)
{
	const struct ra_fs *fs = ra_fsmap_find(nm->m, s_dev);

	if (fs && fs->pseudo)
		return false;
	if (nm->ntraced < 0)
		return true;
	for (int i = 0; i < nm->ntraced; i++)
		if (nm->traced[i] == s_dev)
			return true;
	return false;
}

/* ---- walks ---- */

struct walk {
	struct ra_names *nm;		/* before the workload: every file into nm */
	uint32_t s_dev;
	dev_t root_dev;			/* st_dev of the mount's root */
	const char *const *skip;	/* nested mount points, sorted */
	size_t nskip;
	struct want *w;			/* after it: the inodes without a name, sorted */
	struct ra_pool *names;		/* ... and their names */
	size_t nw, found;
	size_t visited;
	int src;
};

struct want {
	uint64_t ino;
	char *path;
	int64_t size;
	bool pref;
	bool gone;	/* its inode number names no file at the end */
	char *start;	/* its name before the workload, and that name's size */
	int64_t start_size;
	bool start_pref;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_ino(const void *a, const void *b)
{
	uint64_t x = ((const struct want *)a)->ino, y = ((const struct want *)b)->ino;

	return x < y ? -1 : x > y;
}

static void want_file(struct walk *wk, const char *path, const struct stat *sb, bool pref)
{
	struct want key = { .ino = sb->st_ino }, *hit;

	hit = bsearch(&key, wk->w, wk->nw, sizeof(*wk->w), cmp_ino);
	if (!hit || (hit->path && (hit->pref || !pref)))
		return;
	if (!hit->path)
		wk->found++;
	/* a name replaced stays in the pool until the end */
	hit->path = ra_pool_strndup(wk->names, path, strlen(path));
	hit->size = sb->st_size;
	hit->pref = pref;
}

static int start_flush(struct ra_names *nm)
{
	if (!nm->slen)
		return 0;
	if (ra_tmpfile_open(&nm->start) < 0 ||
	    ra_tmpfile_io(&nm->start, true, nm->sbuf, nm->slen, nm->send) < 0) {
		nm->sfailed = true;
		return -1;
	}
	nm->send += (off_t)nm->slen;
	nm->slen = 0;
	return 0;
}

/* A name of the walk before the workload, to its file; -1 on error. */
static int start_put(struct ra_names *nm, uint32_t dev, const char *path, const struct stat *sb,
		     bool pref)
{
	size_t len = strlen(path);
	struct start_rec r = { .ino = sb->st_ino, .size = sb->st_size, .dev = dev,
			       .len = (uint16_t)len, .pref = pref };

	if (len >= PATH_MAX)
		return 0;
	if (!nm->sbuf && !(nm->sbuf = malloc(START_BUF))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		nm->sfailed = true;
		return -1;
	}
	if (nm->slen + sizeof(r) + len > START_BUF && start_flush(nm) < 0)
		return -1;
	memcpy(nm->sbuf + nm->slen, &r, sizeof(r));
	memcpy(nm->sbuf + nm->slen + sizeof(r), path, len);
	nm->slen += sizeof(r) + len;
	return 0;
}

/* One regular file of the walk (@sb its stat); false stops the walk. */
static bool visit_file(struct walk *wk, const char *path, const struct stat *sb)
{
	bool pref = sb->st_dev == wk->root_dev;

	if (wk->w) {
		want_file(wk, path, sb, pref);
		return wk->found < wk->nw;
	}
	return start_put(wk->nm, wk->s_dev, path, sb, pref) == 0;
}

/* Is inode @ino one the walk looks for (every regular file before the run)? */
static bool wanted_ino(const struct walk *wk, uint64_t ino)
{
	struct want key = { .ino = ino };

	return !wk->w || bsearch(&key, wk->w, wk->nw, sizeof(*wk->w), cmp_ino);
}

/*
 * The entries of directory @dfd, whose path is @path (@len bytes, the buffer
 * PATH_MAX), and below: readdir's inode numbers pick the entries, so that
 * after the run only the files looked for are stat'ed. Entries in readdir
 * order, a directory's contents where it is met; symbolic links not followed.
 * false once the walk is to stop.
 */
static bool walk_dir(struct walk *wk, int dfd, char *path, size_t len, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	bool go = true;

	if (!d) {
		close(dfd);
		return true;
	}
	while (go && (de = readdir(d))) {
		const char *n = de->d_name;
		size_t nl = strlen(n);
		unsigned char type = de->d_type;
		struct stat sb;

		if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
			continue;
		if (++wk->visited > RA_PATH_WALK_MAX || len + 1 + nl >= PATH_MAX) {
			go = wk->visited <= RA_PATH_WALK_MAX;
			continue;
		}
		if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
			continue;
		if (type == DT_REG && !wanted_ino(wk, de->d_ino))
			continue;
		snprintf(path + len, PATH_MAX - len, "%s%s", len == 1 ? "" : "/", n);
		if (fstatat(dirfd(d), n, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			path[len] = '\0';
			continue;
		}
		if (S_ISREG(sb.st_mode)) {
			go = visit_file(wk, path, &sb);
		} else if (S_ISDIR(sb.st_mode) && depth < WALK_DEPTH_MAX &&
			   !bsearch(&(const char *){ path }, wk->skip, wk->nskip, sizeof(*wk->skip),
				    cmp_str)) {	/* not another file system mounted here */
			int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				go = walk_dir(wk, sub, path, strlen(path), depth + 1);
		}
		path[len] = '\0';
	}
	closedir(d);
	return go;
}

/* Walk the root mount of file system @s_dev, nested mounts left out. */
static void walk_fs(const struct ra_fsmap *m, uint32_t s_dev, struct walk *wk)
{
	const struct ra_fs *fs = ra_fsmap_find(m, s_dev);
	const char **skip = NULL;
	size_t len, n = 0;
	struct stat sb;
	char *path;
	int dfd;

	if (!fs || fs->pseudo || stat(fs->mnt->point, &sb) < 0)
		return;
	skip = calloc((size_t)m->nmnt, sizeof(*skip));
	if (!skip)
		return;
	len = strlen(fs->mnt->point);
	for (int i = 0; i < m->nmnt; i++) {
		const char *p = m->mnt[i].point;

		if (&m->mnt[i] != fs->mnt && strncmp(p, fs->mnt->point, len) == 0 &&
		    (p[len] == '/' || (len == 1 && p[1])))
			skip[n++] = p;
	}
	qsort(skip, n, sizeof(*skip), cmp_str);
	wk->s_dev = s_dev;
	wk->root_dev = sb.st_dev;
	wk->skip = skip;
	wk->nskip = n;
	path = malloc(PATH_MAX);
	dfd = open(fs->mnt->point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (path && dfd >= 0 && len < PATH_MAX) {
		memcpy(path, fs->mnt->point, len + 1);
		walk_dir(wk, dfd, path, len, 0);
	} else if (dfd >= 0) {
		close(dfd);
	}
	free(path);
	free(skip);
}

int ra_names_walk(struct ra_names *nm)
{
	for (int i = 0; i < nm->m->nfs; i++) {
		const struct ra_fs *fs = &nm->m->fs[i];
		struct walk wk = { .nm = nm, .src = SRC_START };

		/* the file systems with device I/O; overlay files are their layers' */
		if (!fs->ndevs || fs->nlayers || !ra_names_traced(nm, fs->s_dev))
			continue;
		walk_fs(nm->m, fs->s_dev, &wk);
		if (nm->sfailed)
			return -1;
	}
	return start_flush(nm);
}

/* ---- the files the workload has open ---- */

static void note_unmapped(struct ra_names *nm, uint32_t s_dev, const char *path)
{
	for (int i = 0; i < nm->nunmapped; i++)
		if (nm->unmapped[i] == s_dev)
			return;
	if (nm->nunmapped == RA_MAX_UNMAPPED)
		return;
	nm->unmapped[nm->nunmapped] = s_dev;
	nm->unmapped_path[nm->nunmapped++] = strdup(path);
}

/*
 * The s_dev of the file system of open file @fd of @pid (st_dev @st_dev);
 * @fd NULL: a mapping, whose mount /proc does not tell.
 */
static uint32_t sdev_of(struct ra_names *nm, dev_t st_dev, int pid, const char *fd)
{
	const struct ra_mount *mnt = NULL;
	char path[64], buf[512], *p;

	for (int i = 0; i < nm->ndm; i++)
		if (nm->dm[i].st_dev == st_dev)
			return nm->dm[i].s_dev;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd ? fd : "");
	if (fd && ra_read_small(path, buf, sizeof(buf)) == 0 && (p = strstr(buf, "mnt_id:")))
		mnt = ra_fsmap_mount(nm->m, atoi(p + 7));
	if (!mnt)	/* mounted after the start: its st_dev is the best guess */
		return RA_MKDEV(major(st_dev), minor(st_dev));
	if (nm->ndm < (int)(sizeof(nm->dm) / sizeof(nm->dm[0])))
		nm->dm[nm->ndm++] = (struct devmap){ .st_dev = st_dev, .s_dev = mnt->s_dev };
	return mnt->s_dev;
}

/* An open file (@map false) or a mapped one (@map: /proc/PID/map_files/@fd). */
static void scan_fd(struct ra_names *nm, int pid, int dfd, const char *fd, bool map)
{
	const struct ra_fs *fs;
	char path[4096];
	struct name *e;
	struct stat sb;
	uint32_t s_dev;
	ssize_t len;
	size_t dl = strlen(DELETED);

	if (fstatat(dfd, fd, &sb, 0) < 0 || !S_ISREG(sb.st_mode))
		return;
	s_dev = sdev_of(nm, sb.st_dev, pid, map ? NULL : fd);
	e = lookup(nm, s_dev, sb.st_ino);
	if (e && e->src == SRC_OPEN) {
		if (sb.st_size > e->size)	/* seen growing: written, then read */
			e->size = sb.st_size;
		return;
	}
	if (!ra_names_traced(nm, s_dev))
		return;
	len = readlinkat(dfd, fd, path, sizeof(path) - 1);
	if (len <= 0 || path[0] != '/')
		return;
	path[len] = '\0';
	if ((size_t)len > dl && strcmp(path + len - dl, DELETED) == 0)
		len -= (ssize_t)dl;
	path[len] = '\0';
	put(nm, s_dev, sb.st_ino, path, (size_t)len, sb.st_size, SRC_OPEN, true);
	fs = ra_fsmap_find(nm->m, s_dev);
	if (fs && ra_fs_unmapped(fs))
		note_unmapped(nm, s_dev, path);
}

/*
 * The files @pid has open (/proc/PID/fd) and mapped (map_files: the program,
 * its libraries, what it maps), so that the walk at the end has few to find.
 */
static void scan_fds(struct ra_names *nm, int pid)
{
	static const char *const dirs[] = { "fd", "map_files" };
	char dir[64];
	struct dirent *de;
	DIR *d;

	for (int k = 0; k < 2; k++) {
		snprintf(dir, sizeof(dir), "/proc/%d/%s", pid, dirs[k]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				scan_fd(nm, pid, dirfd(d), de->d_name, k == 1);
		closedir(d);
	}
}

/* The children of every thread of @pid (/proc/PID/task/TID/children). */
static int children(int pid, int *out, int max)
{
	char path[128], buf[4096];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	while (d && n < max && (de = readdir(d))) {
		char *p, *end;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/children", pid, de->d_name);
		if (ra_read_small(path, buf, sizeof(buf)) < 0)
			continue;
		for (p = buf; n < max; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			out[n++] = (int)c;
		}
	}
	if (d)
		closedir(d);
	return n;
}

void ra_names_scan(struct ra_names *nm, int pid)
{
	int queue[SCAN_MAX_PROCS], n = 1;

	queue[0] = pid;
	for (int i = 0; i < n; i++) {
		scan_fds(nm, queue[i]);
		n += children(queue[i], queue + n, SCAN_MAX_PROCS - n);
	}
}

int ra_names_open_size(const struct ra_names *nm, uint32_t dev, uint64_t ino, int64_t *size)
{
	const struct name *e = lookup(nm, dev, ino);

	if (!e || e->src != SRC_OPEN)
		return 0;
	*size = e->size;
	return 1;
}

int ra_names_unmapped(const struct ra_names *nm, int i, uint32_t *s_dev, const char **path)
{
	if (!nm || i >= nm->nunmapped)
		return 0;
	*s_dev = nm->unmapped[i];
	*path = nm->unmapped_path[i];
	return 1;
}

/* ---- a name from the inode number, without a walk ---- */

#define FILEID_INO32_GEN 1	/* the handle of ext2/3/4: inode number, generation */

/* @path as the name of @w, kept in @names (none: only its size is asked); 1, or -1 */
static int keep_name(struct want *w, struct ra_pool *names, const char *path)
{
	if (!names)
		return 1;
	w->path = ra_pool_strndup(names, path, strlen(path));
	return w->path ? 1 : -1;
}

/*
 * The name file @fd (@ino) has now, checked: a path whose stat is the same
 * inode. A file deleted but still open keeps the name it had. 1, or -1.
 */
static int fd_name(int fd, uint64_t ino, struct want *w, struct ra_pool *names)
{
	char link[64], path[PATH_MAX];
	struct stat fsb, psb;
	size_t dl = strlen(DELETED);
	ssize_t len;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0 || path[0] != '/' || fstat(fd, &fsb) < 0 || fsb.st_ino != ino ||
	    !S_ISREG(fsb.st_mode))
		return -1;
	path[len] = '\0';
	if ((size_t)len > dl && strcmp(path + len - dl, DELETED) == 0) {
		path[len - (ssize_t)dl] = '\0';
	} else if (stat(path, &psb) < 0 || psb.st_ino != fsb.st_ino || psb.st_dev != fsb.st_dev) {
		return -1;	/* a dentry not connected to the tree: no usable path */
	}
	w->size = fsb.st_size;
	w->pref = true;
	return keep_name(w, names, path);
}

/* ext2/3/4: a handle of the inode number and generation 0, which is not checked. */
static int name_by_handle(const struct ra_mount *mnt, uint64_t ino, struct want *w,
			  struct ra_pool *names)
{
	struct {
		struct file_handle fh;
		uint32_t id[2];
	} h = { .fh = { .handle_bytes = sizeof(h.id), .handle_type = FILEID_INO32_GEN } };
	int mfd, fd, ret;

	if (ino > UINT32_MAX)
		return -1;
	h.id[0] = (uint32_t)ino;
	mfd = open(mnt->point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -1;
	fd = open_by_handle_at(mfd, &h.fh, O_PATH | O_CLOEXEC);
	ret = fd < 0 ? (errno == ESTALE ? 0 : -1) : fd_name(fd, ino, w, names);
	if (fd >= 0)
		close(fd);
	close(mfd);
	return ret;
}

/* btrfs: the paths of an inode number in the subvolume mounted at @mnt. */
static int name_by_ino_paths(const struct ra_mount *mnt, uint64_t ino, struct want *w,
			     struct ra_pool *names)
{
	uint64_t buf[(4096 + sizeof(struct btrfs_data_container)) / sizeof(uint64_t)];
	struct btrfs_data_container *dc = (void *)buf;
	struct btrfs_ioctl_ino_path_args a = {
		.inum = ino, .size = sizeof(buf), .fspath = (uintptr_t)buf,
	};
	char path[PATH_MAX];
	struct stat sb;
	int mfd, rc;

	mfd = open(mnt->point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -1;
	rc = ioctl(mfd, BTRFS_IOC_INO_PATHS, &a);
	close(mfd);
	if (rc < 0)
		return errno == ENOENT ? 0 : -1;
	if (dc->elem_cnt < 1 || dc->val[0] >= sizeof(buf) - sizeof(*dc))
		return -1;
	((char *)buf)[sizeof(buf) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/%s", strcmp(mnt->point, "/") ? mnt->point : "",
		 (const char *)dc->val + dc->val[0]);
	if (stat(path, &sb) < 0 || sb.st_ino != ino || !S_ISREG(sb.st_mode))
		return -1;
	w->size = sb.st_size;
	w->pref = true;
	return keep_name(w, names, path);
}

/*
 * The name of inode @ino of file system @fs at the end of the run, from the
 * inode number where the file system can tell it, into @names (NULL: its
 * size alone): 1 named, 0 the file is gone (no walk finds it), -1 not known
 * (the walk looks).
 */
static int name_by_ino(const struct ra_fs *fs, uint64_t ino, struct want *w,
		       struct ra_pool *names)
{
	const char *t;

	if (!fs || fs->pseudo || !fs->mnt || strcmp(fs->mnt->root, "/") != 0)
		return -1;
	t = fs->mnt->fstype;
	if (!strcmp(t, "ext4") || !strcmp(t, "ext3") || !strcmp(t, "ext2"))
		return name_by_handle(fs->mnt, ino, w, names);
	if (!strcmp(t, "btrfs"))
		return name_by_ino_paths(fs->mnt, ino, w, names);
	return -1;
}

int ra_names_size_by_ino(const struct ra_names *nm, uint32_t dev, uint64_t ino, int64_t *size)
{
	struct want w = { .ino = ino };
	int got = name_by_ino(ra_fsmap_find(nm->m, dev), ino, &w, NULL);

	if (got != 1)
		return 0;
	*size = w.size;
	return 1;
}

/* ---- into the database ---- */

struct resolve {
	struct ra_db *db;
	int64_t run_id;
	const struct ra_names *nm;
	struct ra_fsmap *now;		/* the mounts after the run, for the walk at the end */
	struct ra_name_counts *counts;
	struct ra_batch *rows;		/* into files */
	struct ra_pool names;		/* the files' names (big memory) */
};

/*
 * The names of the walk before the workload for the files of @dev in @w
 * (sorted by inode number) still without one, into @names: the first name
 * the walk gave a file, or a later one on the mount's own subvolume. 0, or
 * -1 on error.
 */
static int start_names(const struct ra_names *nm, uint32_t dev, struct want *w, size_t n,
		       struct ra_pool *names)
{
	char *buf;
	off_t at = 0;
	int ret = 0;

	if (!nm->send)
		return 0;
	if (!(buf = malloc(START_BUF))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	while (at < nm->send && ret == 0) {
		size_t len = nm->send - at < START_BUF ? (size_t)(nm->send - at) : START_BUF, k = 0;

		if (ra_tmpfile_io(&nm->start, false, buf, len, at) < 0) {
			ret = -1;
			break;
		}
		/* whole records only: the next read starts at the first cut */
		while (k + sizeof(struct start_rec) <= len) {
			struct start_rec r;
			struct want key, *hit;

			memcpy(&r, buf + k, sizeof(r));
			if (k + sizeof(r) + r.len > len)
				break;
			key.ino = r.ino;
			hit = r.dev == dev ? bsearch(&key, w, n, sizeof(*w), cmp_ino) : NULL;
			if (hit && !hit->path && (!hit->start || (r.pref && !hit->start_pref))) {
				char *p = ra_pool_strndup(names, buf + k + sizeof(r), r.len);

				if (!p) {
					ra_set_error(RA_ERR_IO, "out of memory");
					ret = -1;
					break;
				}
				hit->start = p;
				hit->start_size = r.size;
				hit->start_pref = r.pref;
			}
			k += sizeof(r) + r.len;
		}
		if (!k && ret == 0) {	/* a record longer than the buffer: not written */
			ra_set_error(RA_ERR_DATA, "a damaged record in the names' temporary file");
			ret = -1;
		}
		at += (off_t)k;
	}
	free(buf);
	return ret;
}

static int store(struct resolve *rs, uint32_t dev, struct want *w, size_t n)
{
	const struct ra_names *nm = rs->nm;
	const struct ra_fs *fs = rs->now ? ra_fsmap_find(rs->now, dev) : NULL;
	struct walk wk = { .w = w, .names = &rs->names, .src = SRC_END };
	int ret = 0;
	size_t nw = 0, nunnamed = 0;

	/*
	 * Names seen open are final; the others are the names the files have
	 * at the end: from the inode number where the file system tells it,
	 * else from a walk. A file gone by then keeps the name it had before.
	 */
	for (size_t i = 0; i < n; i++) {
		const struct name *e = lookup(nm, dev, w[i].ino);
		int got = -1;

		if (e && e->src == SRC_OPEN) {
			const char *path = name_path(nm, e);

			w[i].path = ra_pool_strndup(&rs->names, path, strlen(path));
			w[i].size = e->size;
			w[i].pref = true;	/* not replaced by the walk */
			rs->counts->open++;
			continue;
		}
		got = name_by_ino(fs, w[i].ino, &w[i], &rs->names);
		rs->counts->by_ino += got == 1;
		w[i].gone = got == 0;
	}
	ra_sort(w, n, sizeof(*w), cmp_ino);
	for (size_t i = 0; i < n; i++)
		nw += !w[i].path && !w[i].gone;
	for (size_t i = 0; i < n; i++)
		nunnamed += !w[i].path;
	wk.nw = n;
	wk.found = n - nw;
	if (nw && rs->now) {
		walk_fs(rs->now, dev, &wk);
		rs->counts->walked += wk.found - (n - nw);
	}
	if (nunnamed && start_names(nm, dev, w, n, &rs->names) < 0)
		ret = -1;
	for (size_t i = 0; i < n; i++) {
		if (!w[i].path && w[i].start) {
			w[i].path = w[i].start;
			w[i].start = NULL;
			w[i].size = w[i].start_size;
			rs->counts->before++;
		}
		w[i].start = NULL;
		rs->counts->unnamed += !w[i].path;
		if (!ret && ra_batch_put(rs->rows, "iiitj", rs->run_id, (int64_t)dev,
					 (int64_t)w[i].ino, w[i].path,
					 w[i].path ? (int64_t)w[i].size : (int64_t)-1) < 0)
			ret = -1;
		w[i].path = NULL;
	}
	return ret;
}

int ra_paths_resolve(struct ra_db *db, int64_t run_id, const struct ra_names *nm,
		     const struct ra_file_id *files, size_t nfiles, struct ra_name_counts *counts)
{
	struct ra_name_counts none;
	struct resolve rs = { .db = db, .run_id = run_id, .nm = nm, .now = ra_fsmap_read(),
			      .counts = counts ? counts : &none };
	struct want *w = ra_big_alloc((nfiles + 1) * sizeof(*w));
	size_t n = 0;
	uint32_t dev = 0;
	int ret = -1;

	if (!w) {
		ra_set_error(RA_ERR_IO, "out of memory");
		goto out;
	}
	/* a statement of many rows, not one prepared a file */
	rs.rows = ra_batch_new(db, "INSERT OR REPLACE INTO files (run_id, dev, ino, path, size_bytes)",
			       5);
	if (!rs.rows)
		goto out;
	for (size_t i = 0; i < nfiles; i++) {
		if (n && files[i].dev != dev) {
			if (store(&rs, dev, w, n) < 0)
				goto out;
			n = 0;
		}
		dev = files[i].dev;
		w[n++] = (struct want){ .ino = files[i].ino };
	}
	if ((!n || store(&rs, dev, w, n) == 0) && ra_batch_flush(rs.rows) == 0)
		ret = 0;
out:
	ra_batch_free(rs.rows);
	ra_fsmap_free(rs.now);
	ra_pool_release(&rs.names);
	ra_big_free(w);
	return ret;
}
