/*
 * tests/unit/cli-usage.c: the command-line helpers and the message
 * functions: die() exits 1 with "synctrace: fatal: ", usage_die() exits
 * 129 after the usage text, error() returns -1; option values come as
 * "--opt=v" or "--opt v"; integers and sizes are parsed strictly.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tools/cli/synctrace.h"
#include "tools/cli/usage.h"
#include "tools-test.h"

static char dir[256];

static void setup(void)
{
	scratch_dir(dir, sizeof(dir));
}

static void teardown(void)
{
	remove_tree(dir);
}

static int call_die(int argc, char **argv)
{
	(void)argc;
	die("cannot open '%s': %s", argv[0], strerror(ENOENT));
}

static int call_usage_die(int argc, char **argv)
{
	(void)argc;
	usage_die("usage: synctrace x\n", "unknown option '%s'", argv[0]);
}

static int call_error_warning(int argc, char **argv)
{
	(void)argc;
	warning("'%s' is odd", argv[0]);
	return error("bad '%s'", argv[0]) == -1 ? 7 : 0;
}

TestSuite(tools_usage_exit, .init = setup, .fini = teardown);

Test(tools_usage_exit, die_usage_die_error_warning)
{
	char *argv[] = { "thing", NULL };
	struct captured c;

	c = run_cmd(dir, call_die, argv);
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "synctrace: fatal: cannot open 'thing': No "
			 "such file or directory\n");
	cr_expect_str_eq(c.out, "");
	captured_free(&c);
	c = run_cmd(dir, call_usage_die, argv);
	cr_expect_eq(c.status, 129);
	cr_expect_str_eq(c.err, "synctrace: unknown option 'thing'\n"
			 "usage: synctrace x\n");
	captured_free(&c);
	c = run_cmd(dir, call_error_warning, argv);
	cr_expect_eq(c.status, 7);
	cr_expect_str_eq(c.err, "synctrace: warning: 'thing' is odd\n"
			 "synctrace: error: bad 'thing'\n");
	captured_free(&c);
}

Test(tools_usage, opt_value_forms)
{
	char *argv[] = { "x", "--rank=3", "--rank", "4", "--ranks", "--rank",
			 NULL };
	const char *v = NULL;
	int i = 1;

	cr_expect_eq(st_opt_value(6, argv, &i, "--rank", &v), 1);
	cr_expect_str_eq(v, "3");
	cr_expect_eq(i, 1);
	i = 2;
	cr_expect_eq(st_opt_value(6, argv, &i, "--rank", &v), 1);
	cr_expect_str_eq(v, "4");
	cr_expect_eq(i, 3, "moved past the value");
	i = 4;
	cr_expect_eq(st_opt_value(6, argv, &i, "--rank", &v), 0,
		     "--ranks is another option");
	i = 5;
	cr_expect_eq(st_opt_value(6, argv, &i, "--rank", &v), -1,
		     "value missing");
}

Test(tools_usage, parse_int_is_strict)
{
	long v = 0;

	cr_expect_eq(st_parse_int("42", 0, 100, &v), 0);
	cr_expect_eq(v, 42);
	cr_expect_eq(st_parse_int("-3", -5, 5, &v), 0);
	cr_expect_eq(v, -3);
	cr_expect_eq(st_parse_int("", 0, 100, &v), -EINVAL);
	cr_expect_eq(st_parse_int("4x", 0, 100, &v), -EINVAL);
	cr_expect_eq(st_parse_int(" 4", 0, 100, &v), -EINVAL);
	cr_expect_eq(st_parse_int("+4", 0, 100, &v), -EINVAL);
	cr_expect_eq(st_parse_int("101", 0, 100, &v), -EINVAL);
	cr_expect_eq(st_parse_int("99999999999999999999", 0, INT64_MAX, &v),
		     -EINVAL);
}

Test(tools_usage, size_suffixes_are_binary)
{
	uint64_t b = 0;

	cr_expect_eq(st_size_parse("1048576", &b), 0);
	cr_expect_eq(b, 1048576);
	cr_expect_eq(st_size_parse("64K", &b), 0);
	cr_expect_eq(b, 65536);
	cr_expect_eq(st_size_parse("4mib", &b), 0);
	cr_expect_eq(b, 4 << 20);
	cr_expect_eq(st_size_parse("2GB", &b), 0);
	cr_expect_eq(b, 2ULL << 30);
	cr_expect_eq(st_size_parse("8b", &b), 0);
	cr_expect_eq(b, 8);
	cr_expect_eq(st_size_parse("0", &b), -EINVAL);
	cr_expect_eq(st_size_parse("1T", &b), -EINVAL);
	cr_expect_eq(st_size_parse("K", &b), -EINVAL);
	cr_expect_eq(st_size_parse("-1", &b), -EINVAL);
	cr_expect_eq(st_size_parse("1.5M", &b), -EINVAL);
	cr_expect_eq(st_size_parse("8589934592G", &b), 0);
	cr_expect_eq(b, 1ULL << 63);
	cr_expect_eq(st_size_parse("8589934593G", &b), -EINVAL, "> 2^63");
	cr_expect_eq(st_size_parse("99999999999999999999999", &b), -EINVAL);
}
