// SPDX-License-Identifier: LGPL-2.1
/*
 * The BTF reader on this machine's kernel BTF: the parameters of the
 * readahead functions and where the members the kprobes read lie, through
 * pointers and anonymous unions; members and functions that are not there
 * give an error naming them. Without /sys/kernel/btf/vmlinux the error of a
 * kernel without BTF is checked instead. The offsets themselves are checked
 * against the kernels' own reading of BTF names in the guests
 * (t_vm_scenarios: 6.12 with BTF names and with these offsets).
 */
#include <unistd.h>

#include "test.h"
#include "trace.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

static void test_no_btf(void)
{
	CHECK(ra_btf_open("/nonexistent/vmlinux") == NULL);
	CHECK(strstr(ra_last_error(), "this kernel has no BTF ('/nonexistent/vmlinux'") != NULL);
	CHECK(ra_btf_open("/proc/self/status") == NULL);
	CHECK(strstr(ra_last_error(), "cannot read the kernel's BTF '/proc/self/status'") != NULL);
}

static void test_readahead_control(void)
{
	struct ra_btf_fetch size, async, pages, prev, idx, ino;
	struct ra_btf_func fn;
	struct ra_btf *b;

	if (access(VMLINUX, R_OK) < 0) {
		printf("# no %s: only the errors of a kernel without BTF are checked\n", VMLINUX);
		return;
	}
	b = ra_btf_open(NULL);
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_INT(ra_btf_func(b, "page_cache_sync_ra", &fn), 0);
	CHECK_INT(fn.nparams, 2);
	CHECK_STR(fn.param[0], "ractl");
	CHECK_STR(fn.pointee[0], "readahead_control");
	CHECK_STR(fn.pointee[1], "");
	CHECK_INT(ra_btf_path(b, &fn, 1, "ra->size", &size), 0);
	CHECK_INT(size.nderef, 2);
	CHECK_INT(size.size, 4);
	CHECK(!size.is_signed);
	/* struct file_ra_state: start, then size, async_size, ra_pages (unsigned int) */
	CHECK_INT(ra_btf_path(b, &fn, 1, "ra->async_size", &async), 0);
	CHECK_INT(ra_btf_path(b, &fn, 1, "ra->ra_pages", &pages), 0);
	CHECK_INT(async.off[0], size.off[0]);
	CHECK_INT(async.off[1], size.off[1] + 4);
	CHECK_INT(pages.off[1], size.off[1] + 8);
	CHECK_INT(ra_btf_path(b, &fn, 1, "ra->prev_pos", &prev), 0);
	CHECK_INT(prev.size, 8);
	CHECK(prev.is_signed);		/* loff_t */
	CHECK_INT(ra_btf_path(b, &fn, 1, "_index", &idx), 0);
	CHECK_INT(idx.nderef, 1);
	CHECK_INT(idx.size, 8);
	CHECK_INT(ra_btf_path(b, &fn, 1, "mapping->host->i_ino", &ino), 0);
	CHECK_INT(ino.nderef, 3);
	CHECK_INT(ino.size, 8);
	CHECK_INT(ra_btf_path(b, &fn, 2, "", &idx), 0);	/* req_count itself */
	CHECK_INT(idx.nderef, 0);
	CHECK_INT(idx.size, 8);
	/* what is not there is named */
	CHECK_INT(ra_btf_path(b, &fn, 1, "ra->no_such_member", &idx), -1);
	CHECK(strstr(ra_last_error(), "no member 'no_such_member'") != NULL);
	CHECK_INT(ra_btf_path(b, &fn, 3, "", &idx), -1);
	CHECK_INT(ra_btf_path(b, &fn, 2, "x", &idx), -1);	/* req_count is no pointer */
	CHECK_INT(ra_btf_func(b, "no_such_function_in_any_kernel", &fn), -1);
	CHECK(strstr(ra_last_error(), "no_such_function_in_any_kernel is not in the kernel's BTF") != NULL);
	ra_btf_close(b);
}

static void test_anonymous_members(void)
{
	struct ra_btf_fetch count, pos;
	struct ra_btf_func fn;
	struct ra_btf *b;

	if (access(VMLINUX, R_OK) < 0)
		return;
	b = ra_btf_open(NULL);
	CHECK(b != NULL);
	if (!b)
		return;
	/* filemap_read(iocb, iter, already_read): iov_iter's count is in an anonymous member */
	CHECK_INT(ra_btf_func(b, "filemap_read", &fn), 0);
	CHECK_INT(fn.nparams, 3);
	CHECK_STR(fn.pointee[0], "kiocb");
	CHECK_STR(fn.pointee[1], "iov_iter");
	CHECK_INT(ra_btf_path(b, &fn, 2, "count", &count), 0);
	CHECK_INT(count.nderef, 1);
	CHECK_INT(count.size, 8);
	CHECK_INT(ra_btf_path(b, &fn, 1, "ki_pos", &pos), 0);
	CHECK(pos.is_signed);
	/* filemap_fault(vmf): vmf->vma is in an anonymous struct in newer kernels */
	CHECK_INT(ra_btf_func(b, "filemap_fault", &fn), 0);
	CHECK_INT(ra_btf_path(b, &fn, 1, "vma->vm_file->f_mapping->host->i_sb->s_dev", &pos), 0);
	CHECK_INT(pos.nderef, 6);
	CHECK_INT(pos.size, 4);
	ra_btf_close(b);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "no_btf", test_no_btf },
		{ "readahead_control", test_readahead_control },
		{ "anonymous_members", test_anonymous_members },
		{ NULL, NULL },
	};

	return test_run("btf", cases);
}
