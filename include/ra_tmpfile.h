/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Temporary files of the passes and the recorder (the sorters' runs, records
 * out of memory, the names of a walk, big memory): made in $TMPDIR (else
 * /tmp, or where the command was told), unnamed,
 * so that nothing is left behind when the process ends, however it ends.
 */
#ifndef RA_TMPFILE_H
#define RA_TMPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ra_tmpfile {
	int fd;			/* -1 until made */
	int self;		/* its ra_self_file_begin() slot */
	char dir[256];
};

/**
 * ra_tmpfile_set_dir - the directory of the process's temporary files from
 * now on, SQLite's too, instead of $TMPDIR (a command's option); NULL:
 * $TMPDIR again. @dir is kept, not copied. Before any database is open.
 */
void ra_tmpfile_set_dir(const char *dir);
/** ra_tmpfile_dir - where temporary files are made: the one set, else $TMPDIR, else /tmp */
const char *ra_tmpfile_dir(void);
/** ra_tmpfile_init - a file to be made in ra_tmpfile_dir() */
void ra_tmpfile_init(struct ra_tmpfile *t);
/** ra_tmpfile_open - the file made (unnamed), when it is not yet: 0, or -1 (error set) */
int ra_tmpfile_open(struct ra_tmpfile *t);
/** ra_tmpfile_io - @len bytes between @buf and the file at @off, whole: 0, or -1 (error set) */
int ra_tmpfile_io(const struct ra_tmpfile *t, bool out, void *buf, size_t len, off_t off);
void ra_tmpfile_close(struct ra_tmpfile *t);

#endif
