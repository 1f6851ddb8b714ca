// SPDX-License-Identifier: LGPL-2.1
/*
 * The running kernel's BTF, read with libbpf: what a function's parameters
 * are, and where a member reached through them lies. The dynamic events
 * (dynevent.c) take every offset from here; none is written in the code.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "trace.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct ra_btf {
	struct btf *btf;
	char path[256];
};

/* libbpf prints its own warnings to stderr: ratrace says what failed itself. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

struct ra_btf *ra_btf_open(const char *path)
{
	struct ra_btf *b;

	if (!path)
		path = getenv("RATRACE_BTF") ? getenv("RATRACE_BTF") : VMLINUX_BTF;
	if (access(path, R_OK) < 0) {
		ra_set_error(RA_ERR_ENV, "this kernel has no BTF ('%s': %s)", path,
			     strerror(errno));
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	snprintf(b->path, sizeof(b->path), "%s", path);
	libbpf_set_print(quiet);
	b->btf = btf__parse_raw(path);
	if (!b->btf) {
		ra_set_error(RA_ERR_ENV, "cannot read the kernel's BTF '%s': %s", path,
			     strerror(errno));
		free(b);
		return NULL;
	}
	return b;
}

void ra_btf_close(struct ra_btf *b)
{
	if (!b)
		return;
	btf__free(b->btf);
	free(b);
}

/* @id without typedefs and qualifiers; 0 when it cannot be resolved */
static __u32 plain(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r > 0 ? (__u32)r : 0;
}

/* The name of the struct or union @id points to, or NULL. */
static const char *pointee_name(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, plain(btf, id));

	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, plain(btf, t->type));
	if (!t || !btf_is_composite(t))
		return NULL;
	return btf__name_by_offset(btf, t->name_off);
}

int ra_btf_func(struct ra_btf *b, const char *name, struct ra_btf_func *fn)
{
	const struct btf_type *t, *proto;
	const struct btf_param *p;
	__s32 id = btf__find_by_name_kind(b->btf, name, BTF_KIND_FUNC);

	memset(fn, 0, sizeof(*fn));
	if (id <= 0) {
		ra_set_error(RA_ERR_ENV, "%s is not in the kernel's BTF", name);
		return -1;
	}
	t = btf__type_by_id(b->btf, (__u32)id);
	proto = t ? btf__type_by_id(b->btf, t->type) : NULL;
	if (!proto || !btf_is_func_proto(proto)) {
		ra_set_error(RA_ERR_ENV, "%s has no prototype in the kernel's BTF", name);
		return -1;
	}
	fn->nparams = btf_vlen(proto);
	fn->ret_size = proto->type ? (int)btf__resolve_size(b->btf, proto->type) : 0;
	p = btf_params(proto);
	for (int i = 0; i < fn->nparams && i < RA_BTF_MAX_PARAMS; i++) {
		const char *pn = btf__name_by_offset(b->btf, p[i].name_off);
		const char *sn = pointee_name(b->btf, p[i].type);

		fn->type_id[i] = p[i].type;
		snprintf(fn->param[i], sizeof(fn->param[i]), "%s", pn ? pn : "");
		snprintf(fn->pointee[i], sizeof(fn->pointee[i]), "%s", sn ? sn : "");
	}
	return 0;
}

/*
 * Member @name of the struct or union @id, looked for also in its anonymous
 * members: its type in *@type, its byte offset added to *@off. 0, or -1.
 */
static int find_member(const struct btf *btf, __u32 id, const char *name, __u32 *type,
		       __u32 *off, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, plain(btf, id));
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		__u32 bit = btf_member_bit_offset(t, (__u32)i);

		if (mn && *mn) {
			if (strcmp(mn, name) != 0)
				continue;
			if (bit % 8 || btf_member_bitfield_size(t, (__u32)i))
				return -1;	/* a bit field cannot be fetched by offset */
			*type = m[i].type;
			*off += bit / 8;
			return 0;
		}
		/* an anonymous struct or union: its members are the parent's */
		{
			__u32 sub = *off + bit / 8;

			if (bit % 8 == 0 && find_member(btf, m[i].type, name, type, &sub,
							depth + 1) == 0) {
				*off = sub;
				return 0;
			}
		}
	}
	return -1;
}

int ra_btf_path(struct ra_btf *b, const struct ra_btf_func *fn, int param, const char *path,
		struct ra_btf_fetch *out)
{
	__u32 type;
	const char *p = path;

	memset(out, 0, sizeof(out[0]));
	if (param < 1 || param > fn->nparams || param > RA_BTF_MAX_PARAMS) {
		ra_set_error(RA_ERR_ENV, "no parameter %d", param);
		return -1;
	}
	type = fn->type_id[param - 1];
	/* each "->member" reads memory at the pointer's value plus the member's offset */
	while (*p) {
		const struct btf_type *t = btf__type_by_id(b->btf, plain(b->btf, type));
		char name[64];
		size_t len = strcspn(p, "-");
		__u32 off = 0;

		if (!t || !btf_is_ptr(t) || len == 0 || len >= sizeof(name) ||
		    out->nderef == RA_BTF_MAX_DEREF) {
			ra_set_error(RA_ERR_ENV, "%s->%s: not a pointer to a structure", fn->param[param - 1],
				     path);
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (find_member(b->btf, t->type, name, &type, &off, 0) < 0) {
			ra_set_error(RA_ERR_ENV, "%s->%s: no member '%s' in the kernel's BTF",
				     fn->param[param - 1], path, name);
			return -1;
		}
		out->off[out->nderef++] = off;
		p += len;
		if (*p && strncmp(p, "->", 2) != 0) {
			ra_set_error(RA_ERR_ENV, "bad member path '%s'", path);
			return -1;
		}
		if (*p)
			p += 2;
	}
	{
		const struct btf_type *t = btf__type_by_id(b->btf, plain(b->btf, type));
		__s64 size = btf__resolve_size(b->btf, type);

		if (!t || size <= 0 || size > 8 || (size & (size - 1)) ||
		    !(btf_is_int(t) || btf_is_ptr(t) || btf_is_enum(t))) {
			ra_set_error(RA_ERR_ENV, "%s%s%s is not a number", fn->param[param - 1],
				     *path ? "->" : "", path);
			return -1;
		}
		out->size = (int)size;
		out->is_signed = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);
	}
	return 0;
}
