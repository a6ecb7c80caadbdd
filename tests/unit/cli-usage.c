/*
 * tests/unit/cli-usage.c: the command-line helpers and the message
 * functions: die() exits 1 with "synctrace: fatal: ", usage_die() exits
 * 129 after the one wrong line and the synopsis, error() returns -1; st_getopt() is
 * getopt_long(3) (values as "--opt=v" or "--opt v", unique prefixes,
 * options among the operands unless "+") with messages that name the
 * wrong argument; integers and sizes are parsed strictly; die() calls
 * the hook its thread set (st_on_die()) before it exits.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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

/* A help text whose synopsis has two forms and an example. */
static const char two_forms[] =
"usage: synctrace y [--a] RUN\n"
"   or: synctrace y --b RUN\n"
"   eg: synctrace y --a here\n"
"\n"
"What y does.\n"
"\n"
"    --a   the a option\n";

static int call_usage_die_long(int argc, char **argv)
{
	(void)argc;
	usage_die(two_forms, "bad '%s'", argv[0]);
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
			 "usage: synctrace x\n"
			 "Run 'synctrace x --help' for its options.\n");
	captured_free(&c);
	c = run_cmd(dir, call_usage_die_long, argv);
	cr_expect_eq(c.status, 129);
	cr_expect_str_eq(c.err, "synctrace: bad 'thing'\n"
			 "usage: synctrace y [--a] RUN\n"
			 "   or: synctrace y --b RUN\n"
			 "Run 'synctrace y --help' for its options.\n",
			 "the synopsis, not the whole help");
	captured_free(&c);
	c = run_cmd(dir, call_error_warning, argv);
	cr_expect_eq(c.status, 7);
	cr_expect_str_eq(c.err, "synctrace: warning: 'thing' is odd\n"
			 "synctrace: error: bad 'thing'\n");
	captured_free(&c);
}

static const struct option longopts[] = {
	{ "rank", required_argument, NULL, 'r' },
	{ "rate", required_argument, NULL, 'R' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "sites", no_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 }
};

/* st_getopt() over 'argv' ('argc' of it) into 'got' ("r=3 q ..."). */
static void all_options(int argc, char **argv, const char *shortopts,
			char *got, size_t len)
{
	const char *val;
	size_t n = 0;
	int c;

	*got = '\0';
	optind = 0;
	while ((c = st_getopt(argc, argv, shortopts, longopts, &val)) != -1)
		n += (size_t)snprintf(got + n, len - n, "%s%c=%s", n ? " " : "",
				      c, val ? val : "(null)");
}

Test(tools_usage, getopt_forms_and_permutation)
{
	char *argv[] = { "x", "RUN", "--rank=3", "--rank", "4", "--ran", "5",
			 "-q", "--si", "--", "--rank", NULL };
	char got[256];

	all_options(11, argv, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "r=3 r=4 r=5 q=(null) s=(null)",
			 "'--opt=v', '--opt v', a unique prefix");
	cr_expect_eq(optind, 9, "the operands come last");
	cr_expect_str_eq(argv[9], "RUN", "permuted");
	cr_expect_str_eq(argv[10], "--rank", "after '--': an operand");
}

Test(tools_usage, getopt_plus_stops_at_first_operand)
{
	char *argv[] = { "x", "-q", "cmd", "--rank", "1", NULL };
	char got[256];

	all_options(5, argv, "+:q", got, sizeof(got));
	cr_expect_str_eq(got, "q=(null)");
	cr_expect_eq(optind, 2);
}

Test(tools_usage, getopt_mistakes_name_the_argument)
{
	char *unknown[] = { "x", "--frob=1", NULL };
	char *ambiguous[] = { "x", "--ra", "1", NULL };
	char *novalue[] = { "x", "--quiet=yes", NULL };
	char *short_unknown[] = { "x", "-z", NULL };
	char *missing[] = { "x", "--rank", NULL };
	char got[256];

	all_options(2, unknown, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "?=unknown option '--frob'");
	all_options(3, ambiguous, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "?=ambiguous option '--ra' (could be --rank "
			 "or --rate)");
	all_options(2, novalue, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "?=option '--quiet' takes no value");
	all_options(2, short_unknown, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "?=unknown option '-z'");
	all_options(2, missing, ":q", got, sizeof(got));
	cr_expect_str_eq(got, "r=(null)", "the caller says what it needs");
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

/* die()'s hook: a command joins its threads there (st_on_die()). */
static void hook_exit_7(void *arg)
{
	cr_assert_eq(*(int *)arg, 42);
	_exit(7);
}

Test(cli_usage, die_calls_the_hook_of_its_thread_first, .exit_code = 7)
{
	static int v = 42;

	st_on_die(hook_exit_7, &v);
	die("with a hook");
}

static void *die_on_thread(void *arg)
{
	(void)arg;
	die("from another thread");
}

Test(cli_usage, die_on_another_thread_leaves_the_hook_alone,
     .exit_code = 1)
{
	static int v = 42;
	pthread_t th;

	st_on_die(hook_exit_7, &v);
	cr_assert_eq(pthread_create(&th, NULL, die_on_thread, NULL), 0);
	pthread_join(th, NULL);
}

Test(cli_usage, die_after_the_hook_is_cleared_exits_1, .exit_code = 1)
{
	static int v = 42;

	st_on_die(hook_exit_7, &v);
	st_on_die(NULL, NULL);
	die("without a hook");
}
