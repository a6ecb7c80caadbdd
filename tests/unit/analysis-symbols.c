/*
 * tests/unit/analysis-symbols.c: call-site symbolisation.  Frames map to
 * the right object and offset (PIE, shared, non-PIE at base 0); the
 * addr2line output parser splits inline chains by the echoed addresses
 * and rejects output that does not match; one real addr2line run names
 * a function of this test program; a missing addr2line leaves
 * "object+0xoffset".
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/symbols.h"
#include "tools-test.h"

static void add(struct st_objmap *m, uint64_t base, uint64_t len,
		const char *path)
{
	cr_assert_eq(st_objmap_add(m, base, len, path, strlen(path)), 0);
}

Test(tools_symbols, objmap_finds_object_and_call_address)
{
	struct st_objmap m;
	const struct st_object *o;
	uint64_t addr = 0;

	st_objmap_init(&m);
	add(&m, 0, 0x500000, "/bin/app");	/* non-PIE: base 0 */
	add(&m, 0x7f0000000000, 0x20000, "/lib/libc.so.6");
	add(&m, 0x7f0000100000, 0x1000, "/lib/libm.so.6");

	o = st_objmap_find(&m, 0x401235, &addr);
	cr_assert(o);
	cr_expect_str_eq(o->path, "/bin/app");
	cr_expect_eq(addr, 0x401234, "non-PIE: absolute address - 1");

	o = st_objmap_find(&m, 0x7f0000000100, &addr);
	cr_assert(o);
	cr_expect_str_eq(o->path, "/lib/libc.so.6");
	cr_expect_eq(addr, 0xff);

	o = st_objmap_find(&m, 0x7f0000100fff, &addr);
	cr_assert(o);
	cr_expect_str_eq(o->path, "/lib/libm.so.6");
	cr_expect_null(st_objmap_find(&m, 0x7f0000101000, &addr),
		       "one past the end is outside");
	cr_expect_null(st_objmap_find(&m, 0x600000, &addr));
	st_objmap_release(&m);
	cr_expect_eq(m.nr, 0);
}

Test(tools_symbols, objmap_prefers_the_most_specific_overlap)
{
	struct st_objmap m;
	const struct st_object *o;
	uint64_t addr;

	st_objmap_init(&m);
	/* A non-PIE executable at 0 whose span covers everything below. */
	add(&m, 0, UINT64_C(0x7fffffffffff), "/bin/app");
	add(&m, 0x7f0000000000, 0x1000, "/lib/libx.so");
	o = st_objmap_find(&m, 0x7f0000000010, &addr);
	cr_assert(o);
	cr_expect_str_eq(o->path, "/lib/libx.so");
	cr_expect_eq(addr, 0xf);
	st_objmap_release(&m);
}

Test(tools_symbols, object_is_mpi_by_basename)
{
	cr_expect(st_object_is_mpi("/usr/lib/x86_64-linux-gnu/libmpich.so.12"));
	cr_expect(st_object_is_mpi("/usr/lib/libmpichfort.so.12"));
	cr_expect(st_object_is_mpi("libmpifort.so"));
	cr_expect(st_object_is_mpi("/opt/x/libsynctrace.so"));
	cr_expect_not(st_object_is_mpi("/home/u/libmpi/app"));
	cr_expect_not(st_object_is_mpi("/lib/libc.so.6"));
}

Test(tools_symbols, parse_splits_inline_chains)
{
	static const char out[] =
		"0x0000000000001139\n"
		"inner\n"
		"/src/a.c:12 (discriminator 3)\n"
		"middle\n"
		"/src/a.c:20\n"
		"outer\n"
		"/src/b.c:30\n"
		"0x0000000000002000\n"
		"??\n"
		"??:0\n"
		"0x0000000000002010\n"
		"ns::f(int)\n"
		"??:?\n";
	uint64_t addrs[] = { 0x1139, 0x2000, 0x2010 };
	struct st_sym s[3];
	int i;

	memset(s, 0, sizeof(s));
	cr_assert_eq(st_addr2line_parse(out, strlen(out), addrs, s, 3), 0);
	cr_expect_str_eq(s[0].func, "inner");
	cr_expect_str_eq(s[0].file, "/src/a.c");
	cr_expect_eq(s[0].line, 12);
	cr_expect_str_eq(s[0].outer, "outer", "outermost of the chain");
	cr_expect_null(s[1].func);
	cr_expect_null(s[1].file);
	cr_expect_null(s[1].outer);
	cr_expect_str_eq(s[2].func, "ns::f(int)");
	cr_expect_null(s[2].file);
	cr_expect_eq(s[2].line, 0);
	for (i = 0; i < 3; i++)
		st_sym_release(&s[i]);
}

Test(tools_symbols, parse_rejects_mismatched_output)
{
	static const char wrong_addr[] = "0x10\nf\na.c:1\n0x30\ng\nb.c:2\n";
	static const char short_out[] = "0x10\nf\na.c:1\n";
	static const char dangling[] = "0x10\nf\na.c:1\n0x20\ng\n";
	static const char no_addr[] = "f\na.c:1\n";
	uint64_t addrs[] = { 0x10, 0x20 };
	struct st_sym s[2];

	memset(s, 0, sizeof(s));
	cr_expect_eq(st_addr2line_parse(wrong_addr, strlen(wrong_addr), addrs,
					s, 2), -EBADMSG);
	cr_expect_str_eq(s[0].func, "f", "entries before the mismatch stay");
	st_sym_release(&s[0]);
	st_sym_release(&s[1]);
	cr_expect_eq(st_addr2line_parse(short_out, strlen(short_out), addrs,
					s, 2), -EBADMSG);
	st_sym_release(&s[0]);
	cr_expect_eq(st_addr2line_parse(dangling, strlen(dangling), addrs,
					s, 2), -EBADMSG);
	st_sym_release(&s[0]);
	st_sym_release(&s[1]);
	cr_expect_eq(st_addr2line_parse(no_addr, strlen(no_addr), addrs, s,
					2), -EBADMSG);
	cr_expect_eq(st_addr2line_parse("", 0, addrs, s, 0), 0);
}

Test(tools_symbols, symtab_deduplicates_per_object)
{
	struct st_symtab *t = st_symtab_new();
	long a, b, c, d;
	int i;

	cr_assert(t);
	a = st_symtab_add(t, "/lib/a.so", 0x10);
	b = st_symtab_add(t, "/lib/b.so", 0x10);
	c = st_symtab_add(t, "/lib/a.so", 0x10);
	d = st_symtab_add(t, "/lib/a.so", 0x11);
	cr_expect_eq(a, c);
	cr_expect_neq(a, b);
	cr_expect_neq(a, d);
	cr_expect_eq(st_symtab_count(t), 3);
	/* Enough entries to grow the hash table several times. */
	for (i = 0; i < 5000; i++)
		cr_assert_geq(st_symtab_add(t, "/lib/c.so", (uint64_t)i * 7),
			      0);
	cr_expect_eq(st_symtab_count(t), 5003);
	cr_expect_eq(st_symtab_add(t, "/lib/c.so", 7 * 4999), 5002);
	cr_expect_eq(st_symtab_get(t, d)->addr, 0x11);
	cr_expect_str_eq(st_symtab_get(t, b)->path, "/lib/b.so");
	cr_expect_null(st_symtab_get(t, 5003));
	st_symtab_free(t);
}

static char sym_buf[256];

static const char *fmt(const char *path, uint64_t addr, const char *func,
		       const char *file, unsigned line, const char *outer,
		       int brief)
{
	struct st_sym s = { .path = path, .addr = addr, .func = (char *)func,
			    .file = (char *)file, .line = line,
			    .outer = (char *)outer };

	return st_sym_format(&s, brief, sym_buf, sizeof(sym_buf));
}

Test(tools_symbols, format_every_case)
{
	cr_expect_str_eq(fmt("/bin/app", 0x1234, "solve", "/src/s.c", 42,
			     NULL, 0), "solve (/src/s.c:42)");
	cr_expect_str_eq(fmt("/bin/app", 0x1234, "solve", "/src/s.c", 42,
			     NULL, 1), "solve (s.c:42)");
	cr_expect_str_eq(fmt("/bin/app", 0x1234, "inl", "/src/s.c", 7, "main",
			     0), "inl (/src/s.c:7) inlined into main");
	cr_expect_str_eq(fmt("/bin/app", 0x1234, "inl", "/src/s.c", 7, "main",
			     1), "inl (s.c:7)");
	cr_expect_str_eq(fmt("/lib/libx.so", 0xff, "f", NULL, 0, NULL, 1),
			 "f (libx.so+0xff)");
	cr_expect_str_eq(fmt("/lib/libx.so", 0xff, NULL, NULL, 0, NULL, 0),
			 "/lib/libx.so+0xff");
	cr_expect_str_eq(fmt("/lib/libx.so", 0xff, NULL, NULL, 0, NULL, 1),
			 "libx.so+0xff");
	cr_expect_str_eq(fmt("?", 0xdead, NULL, NULL, 0, NULL, 1), "0xdead");
}

/* A function addr2line must name; noinline so it has its own code. */
__attribute__((noinline)) int symbols_marker(int x)
{
	return x * 3 + 1;
}

Test(tools_symbols, resolve_names_a_function_of_this_program)
{
	struct fake_obj obj;
	struct st_symtab *t = st_symtab_new();
	const struct st_sym *s;
	uintptr_t fn = (uintptr_t)symbols_marker;
	long idx, bogus;

	find_object((const void *)fn, &obj);
	cr_assert(t);
	/* As if the return address were 1 byte into the function. */
	idx = st_symtab_add(t, obj.path, fn + 1 - 1 - obj.base);
	bogus = st_symtab_add(t, "/nonexistent/libnone.so", 0x10);
	cr_assert_eq(st_symtab_resolve(t, "addr2line"), 0);
	s = st_symtab_get(t, idx);
	cr_assert(s->func, "addr2line did not name the function");
	cr_expect_str_eq(s->func, "symbols_marker");
	cr_assert(s->file);
	cr_expect(strstr(s->file, "analysis-symbols.c"), "file is %s", s->file);
	cr_expect_gt(s->line, 0);
	cr_expect_null(st_symtab_get(t, bogus)->func,
		       "an unreadable object stays unresolved");
	cr_expect_eq(symbols_marker(1), 4);
	st_symtab_free(t);
}

Test(tools_symbols, missing_addr2line_leaves_offsets)
{
	struct st_symtab *t = st_symtab_new();
	char buf[128];
	long idx;

	cr_assert(t);
	idx = st_symtab_add(t, "/bin/sh", 0x42);
	cr_expect_eq(st_symtab_resolve(t, "/nonexistent/addr2line"), -ENOENT);
	cr_expect_null(st_symtab_get(t, idx)->func);
	cr_expect_str_eq(st_sym_format(st_symtab_get(t, idx), 1, buf,
				       sizeof(buf)), "sh+0x42");
	st_symtab_free(t);
}
