// SPDX-License-Identifier: LGPL-2.1
/*
 * The mount table read from mountinfo text: fields, octal escapes, optional
 * tags, the mount that names a file system, pseudo and unmapped file
 * systems, overlay layers, and what "-d 0:N" says of a file system without a
 * block device. The device numbers are ones no machine has (250:77), so the
 * sysfs lookups find nothing and only the text decides.
 *
 * Overlay layers are the paths given at mount time, as the kernel shows them:
 * in "lowerdir=" a backslash escapes the next character ("\\" a backslash,
 * "\:" a colon, each then octal-escaped by mountinfo), "lowerdir+=" is taken
 * as it is; a layer is on the mount that held its path when the overlay was
 * mounted (one made later on the path, the overlay itself on its lower
 * directory included, did not); a relative path has no known file system.
 */
#include "host.h"
#include "test.h"

static const char mountinfo[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"27 1 250:77 / / rw,relatime - ext4 /dev/ratrace-none rw\n"
	"40 27 0:40 /sub /mnt/a\\040b rw - btrfs /dev/ratrace-none rw,subvol=/sub\n"
	"41 27 0:40 / /mnt/top rw shared:5 master:1 - btrfs /dev/ratrace-none rw\n"
	"50 27 0:50 / /x\\134y rw - tmpfs tmp\\040fs rw,size=4k\n"
	"60 27 0:60 / /ov rw - overlay overlay rw,lowerdir=/mnt/top/l1:/x\\134\\134y/l2,"
	"upperdir=/mnt/a\\040b/u,workdir=/mnt/a\\040b/w\n"
	"not a mountinfo line\n"
	"61 27 0:61 / /short rw\n"
	"70 27 0:70 / /rel rw - overlay overlay rw,lowerdir=l1,upperdir=u,workdir=w\n"
	"71 27 250:78 / /base rw - ext4 /dev/ratrace-none rw\n"
	"72 71 0:72 / /base/low rw - overlay overlay rw,lowerdir=/base/low,"
	"upperdir=/base/up,workdir=/base/w\n"
	"73 27 0:73 / /late/ov rw - overlay overlay rw,lowerdir=/late/l\n"
	"74 27 0:74 / /late rw - tmpfs tmpfs rw\n"
	"75 27 0:75 / /esc rw - overlay overlay rw,lowerdir=/x\\134\\134y/a\\134:b:/mnt/top/l3\n"
	"76 27 0:76 / /plus rw - overlay overlay rw,lowerdir+=/x\\134y/c,datadir+=/base/d\n";

static const struct ra_fs *fs_of(const struct ra_fsmap *m, unsigned int ma, unsigned int mi)
{
	return ra_fsmap_find(m, RA_MKDEV(ma, mi));
}

static void test_fields(void)
{
	struct ra_fsmap *m = ra_fsmap_parse(mountinfo);
	const struct ra_mount *mnt;

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK_INT(m->nmnt, 13);	/* two lines are not mounts */
	mnt = ra_fsmap_mount(m, 40);
	CHECK(mnt != NULL);
	if (mnt) {
		CHECK_INT(mnt->s_dev, RA_MKDEV(0, 40));
		CHECK_STR(mnt->root, "/sub");
		CHECK_STR(mnt->point, "/mnt/a b");
		CHECK_STR(mnt->fstype, "btrfs");
		CHECK_STR(mnt->source, "/dev/ratrace-none");
		CHECK_STR(mnt->options, "rw,subvol=/sub");
	}
	mnt = ra_fsmap_mount(m, 41);
	CHECK(mnt && strcmp(mnt->fstype, "btrfs") == 0);	/* after the optional tags */
	mnt = ra_fsmap_mount(m, 50);
	CHECK(mnt != NULL);
	if (mnt) {
		CHECK_STR(mnt->point, "/x\\y");
		CHECK_STR(mnt->source, "tmp fs");
	}
	CHECK(ra_fsmap_mount(m, 61) == NULL);
	ra_fsmap_free(m);
}

static void test_file_systems(void)
{
	struct ra_fsmap *m = ra_fsmap_parse(mountinfo);
	const struct ra_fs *fs;

	if (!m) {
		CHECK(m != NULL);
		return;
	}
	CHECK_INT(m->nfs, 12);
	fs = fs_of(m, 0, 40);
	CHECK(fs && fs->mnt->id == 41);	/* the mount of its root names it */
	fs = fs_of(m, 0, 50);
	CHECK(fs && fs->pseudo && !ra_fs_unmapped(fs));
	fs = fs_of(m, 0, 21);
	CHECK(fs && fs->pseudo);
	fs = fs_of(m, 250, 77);
	CHECK(fs && !fs->pseudo && fs->ndevs == 0 && ra_fs_unmapped(fs));
	fs = fs_of(m, 0, 60);
	CHECK(fs != NULL);
	if (fs) {
		/* three layer directories on two file systems; no bdi of its own */
		CHECK_INT(fs->nlayers, 2);
		CHECK_INT(fs->layers[0], RA_MKDEV(0, 40));
		CHECK_INT(fs->layers[1], RA_MKDEV(0, 50));
		CHECK(!fs->own_bdi && !ra_fs_unmapped(fs));
	}
	ra_fsmap_free(m);
}

/* One overlay's layers: the s_dev of each, in order, "" for none; what is not resolved. */
static void check_layers(const struct ra_fsmap *m, unsigned int mi, const char *want,
			 const char *unresolved)
{
	const struct ra_fs *fs = fs_of(m, 0, mi);
	char got[128] = "";
	size_t off = 0;

	CHECK(fs != NULL);
	if (!fs)
		return;
	for (int i = 0; i < fs->nlayers; i++)
		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%u:%u", i ? " " : "",
					RA_MAJOR(fs->layers[i]), RA_MINOR(fs->layers[i]));
	CHECK_STR(got, want);
	CHECK_STR(fs->unresolved, unresolved);
}

static void test_overlay_layers(void)
{
	struct ra_fsmap *m = ra_fsmap_parse(mountinfo);

	if (!m) {
		CHECK(m != NULL);
		return;
	}
	check_layers(m, 60, "0:40 0:50", "");
	/* relative to the mounter's directory: unknown, said */
	check_layers(m, 70, "", "l1");
	CHECK(ra_fs_unmapped(fs_of(m, 0, 70)));
	/* mounted on its own lower directory: the layer is the file system below */
	check_layers(m, 72, "250:78", "");
	/* a mount made later on the layer's path did not hold it */
	check_layers(m, 73, "250:77", "");
	/* "\\" and "\:" in lowerdir= are a backslash and a colon of one path */
	check_layers(m, 75, "0:50 0:40", "");
	/* lowerdir+= and datadir+= are one path each, backslashes and all */
	check_layers(m, 76, "0:50 250:78", "");
	ra_fsmap_free(m);
}

struct target_case {
	const char *arg;
	const char *error;
};

static void test_targets(void)
{
	static const struct target_case cases[] = {
		{ "0:50", "cannot trace '0:50': it is the s_dev of the tmpfs file system at '/x\\y',"
			  " which has no block device ratrace can map" },
		{ "250:77", "cannot trace '250:77': it is the s_dev of the ext4 file system at '/',"
			    " which has no block device ratrace can map" },
		{ "0:99", "unknown block device '0:99'" },
		{ "ratrace-none", "unknown block device 'ratrace-none'" },
	};
	struct ra_fsmap *m = ra_fsmap_parse(mountinfo);
	struct ra_target t;

	if (!m) {
		CHECK(m != NULL);
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(ra_target_resolve(m, cases[i].arg, &t), -1);
		CHECK_STR(ra_last_error(), cases[i].error);
		CHECK_INT(ra_last_error_kind(), RA_ERR_USAGE);
	}
	ra_fsmap_free(m);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "fields", test_fields },
		{ "file_systems", test_file_systems },
		{ "overlay_layers", test_overlay_layers },
		{ "targets", test_targets },
		{ NULL, NULL },
	};

	return test_run("fsmap", cases);
}
