/*
 * tests/unit/pmpi-config.c: the SYNCTRACE_* variables of pmpi/config.c.
 * Defaults hold with nothing set; every variable takes its good values;
 * every bad value, of every variable, is an error whose message names
 * the variable and shows the value printable; a misspelt variable is an
 * error too; and the values read later (the run directory pattern, the
 * clock skew list) are checked whole here, at load.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi/config.h"
#include "sync/sync.h"

extern char **environ;

/* No SYNCTRACE_ variable from the environment the tests run in. */
static void clean_env(void)
{
	char name[128];
	char **e;

	for (e = environ; e && *e;) {
		size_t n = strcspn(*e, "=");

		if (strncmp(*e, "SYNCTRACE_", 10) || n >= sizeof(name)) {
			e++;
			continue;
		}
		memcpy(name, *e, n);
		name[n] = '\0';
		unsetenv(name);
		e = environ;
	}
}

TestSuite(pmpi_config, .init = clean_env);

static struct st_settings set;
static char err[512];

static int load(void)
{
	err[0] = '\0';
	return st_config_load(&set, err, sizeof(err));
}

/* VAR=VALUE loads, or fails naming VAR (when 'good' is 0). */
static void expect_value(const char *var, const char *value, int good)
{
	int rc;

	setenv(var, value, 1);
	rc = load();
	if (good) {
		cr_expect_eq(rc, 0, "%s='%s': %s", var, value, err);
	} else {
		cr_expect_eq(rc, -EINVAL, "%s='%s' accepted", var, value);
		cr_expect(!strncmp(err, var, strlen(var)) &&
			  err[strlen(var)] == '=',
			  "%s='%s': message '%s'", var, value, err);
	}
	unsetenv(var);
}

Test(pmpi_config, defaults)
{
	cr_assert_eq(load(), 0, "%s", err);
	cr_expect_str_eq(set.dir, "");
	cr_expect_str_eq(set.notify, "");
	cr_expect_eq(set.buffer, 1 << 20);
	cr_expect_eq(set.async, 1);
	cr_expect_eq(set.depth, 8);
	cr_expect_eq(set.level, 1);
	cr_expect_eq(set.families, ST_FAMILY_ALL);
	cr_expect_eq(set.flush_ms, 5000);
	cr_expect_eq(set.sync_method, ST_SYNC_HCA);
	cr_expect_eq(set.sync_interval_ms, 10000);
	cr_expect_eq(set.sync_node, 1);
	cr_expect_eq(set.sync_span_ms, -1);
	cr_expect_str_eq(set.skew, "");
	cr_expect_eq(set.disable, 0);
	/* A load starts from the defaults, whatever 'set' held. */
	set.depth = 3;
	set.dir[0] = 'x';
	cr_assert_eq(load(), 0);
	cr_expect_eq(set.depth, 8);
	cr_expect_str_eq(set.dir, "");
}

Test(pmpi_config, good_values)
{
	setenv("SYNCTRACE_BUFFER", "64KiB", 1);
	setenv("SYNCTRACE_DEPTH", "0", 1);
	setenv("SYNCTRACE_LEVEL", "9", 1);
	setenv("SYNCTRACE_ASYNC", "0", 1);
	setenv("SYNCTRACE_YIELD", "1", 1);
	setenv("SYNCTRACE_VERBOSE", "2", 1);
	setenv("SYNCTRACE_FLUSH_MS", "0", 1);
	setenv("SYNCTRACE_FAMILIES", "all,-p2p", 1);
	setenv("SYNCTRACE_SYNC", "off", 1);
	setenv("SYNCTRACE_SYNC_INTERVAL", "86400000", 1);
	setenv("SYNCTRACE_SYNC_NODE", "0", 1);
	setenv("SYNCTRACE_SYNC_POINTS", "12", 1);
	setenv("SYNCTRACE_SYNC_EXCHANGES", "4", 1);
	setenv("SYNCTRACE_SYNC_PINGPONGS", "100000", 1);
	setenv("SYNCTRACE_SYNC_SPAN_MS", "-1", 1);
	setenv("SYNCTRACE_SYNC_CHECK", "16", 1);
	setenv("SYNCTRACE_CLOCK_SKEW", "0,+0.5s@+100ppm,-1s@-40ppm,3us", 1);
	setenv("SYNCTRACE_CLOCK", "raw", 1);
	setenv("SYNCTRACE_DIR", "/scratch/%j-%x.%s-%h-%t-%p-%n-%%/", 1);
	setenv("SYNCTRACE_NOTIFY", "/tmp/.synctrace-notify-x", 1);
	setenv("SYNCTRACE_ADDR2LINE", "eu-addr2line", 1);
	cr_assert_eq(load(), 0, "%s", err);
	cr_expect_eq(set.buffer, 64 << 10);
	cr_expect_eq(set.depth, 0);
	cr_expect_eq(set.level, 9);
	cr_expect_eq(set.async, 0);
	cr_expect_eq(set.yield, 1);
	cr_expect_eq(set.verbose, 2);
	cr_expect_eq(set.flush_ms, 0);
	cr_expect_eq(set.families, ST_FAMILY_ALL & ~ST_FAMILY_P2P);
	cr_expect_eq(set.sync_method, -1);
	cr_expect_eq(set.sync_interval_ms, 86400000);
	cr_expect_eq(set.sync_node, 0);
	cr_expect_eq(set.sync_points, 12);
	cr_expect_eq(set.sync_exchanges, 4);
	cr_expect_eq(set.sync_pingpongs, 100000);
	cr_expect_eq(set.sync_span_ms, -1);
	cr_expect_eq(set.sync_check, 16);
	cr_expect_str_eq(set.skew, "0,+0.5s@+100ppm,-1s@-40ppm,3us");
	cr_expect_eq(set.clock_raw, 1);
	cr_expect_str_eq(set.dir, "/scratch/%j-%x.%s-%h-%t-%p-%n-%%/");
	cr_expect_str_eq(set.notify, "/tmp/.synctrace-notify-x");
}

Test(pmpi_config, sizes_and_lists)
{
	static const char *const sizes[] = {
		"8192", "8K", "8k", "8KB", "8KiB", "1M", "1G", "1073741824",
		"16384B",
	};
	static const char *const families[] = {
		"all", "coll", "blocking,nonblocking", "persistent", "neighbor",
		"p2p,complete", "comm", "-p2p", "coll,-neighbor",
	};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		expect_value("SYNCTRACE_BUFFER", sizes[i], 1);
	for (i = 0; i < sizeof(families) / sizeof(*families); i++)
		expect_value("SYNCTRACE_FAMILIES", families[i], 1);
	expect_value("SYNCTRACE_SYNC", "hca2", 1);
	expect_value("SYNCTRACE_SYNC", "skampi-tree", 1);
	expect_value("SYNCTRACE_SYNC", "jk", 1);
	expect_value("SYNCTRACE_CLOCK", "tsc", 1);
	expect_value("SYNCTRACE_CLOCK", "auto", 1);
	expect_value("SYNCTRACE_DIR", "", 1);
	expect_value("SYNCTRACE_CLOCK_SKEW", "", 1);
}

Test(pmpi_config, every_bad_value_is_named)
{
	static const struct {
		const char *var, *value;
	} bad[] = {
		{ "SYNCTRACE_BUFFER", "" }, { "SYNCTRACE_BUFFER", "lots" },
		{ "SYNCTRACE_BUFFER", "4K" }, { "SYNCTRACE_BUFFER", "2G" },
		{ "SYNCTRACE_BUFFER", "8192i" }, { "SYNCTRACE_BUFFER", "1MM" },
		{ "SYNCTRACE_BUFFER", "-1M" }, { "SYNCTRACE_BUFFER", " 1M" },
		{ "SYNCTRACE_BUFFER", "99999999999999999999" },
		{ "SYNCTRACE_DEPTH", "" }, { "SYNCTRACE_DEPTH", "65" },
		{ "SYNCTRACE_DEPTH", "-1" }, { "SYNCTRACE_DEPTH", "8 " },
		{ "SYNCTRACE_DEPTH", " 8" }, { "SYNCTRACE_DEPTH", "0x8" },
		{ "SYNCTRACE_LEVEL", "10" }, { "SYNCTRACE_LEVEL", "fast" },
		{ "SYNCTRACE_ASYNC", "2" }, { "SYNCTRACE_ASYNC", "yes" },
		{ "SYNCTRACE_YIELD", "true" }, { "SYNCTRACE_VERBOSE", "3" },
		{ "SYNCTRACE_DISABLE", "yes" }, { "SYNCTRACE_DISABLE", "2" },
		{ "SYNCTRACE_FLUSH_MS", "-5" },
		{ "SYNCTRACE_FLUSH_MS", "86400001" },
		{ "SYNCTRACE_FLUSH_MS", "1e3" },
		{ "SYNCTRACE_FAMILIES", "" },
		{ "SYNCTRACE_FAMILIES", "MPI_Allreduce" },
		{ "SYNCTRACE_FAMILIES", "coll," },
		{ "SYNCTRACE_FAMILIES", ",coll" },
		{ "SYNCTRACE_FAMILIES", "coll,,p2p" },
		{ "SYNCTRACE_FAMILIES", "Coll" },
		{ "SYNCTRACE_SYNC", "" }, { "SYNCTRACE_SYNC", "ntp" },
		{ "SYNCTRACE_SYNC_INTERVAL", "-1" },
		{ "SYNCTRACE_SYNC_INTERVAL", "10s" },
		{ "SYNCTRACE_SYNC_NODE", "2" },
		{ "SYNCTRACE_SYNC_POINTS", "100001" },
		{ "SYNCTRACE_SYNC_EXCHANGES", "-1" },
		{ "SYNCTRACE_SYNC_PINGPONGS", "many" },
		{ "SYNCTRACE_SYNC_SPAN_MS", "-2" },
		{ "SYNCTRACE_SYNC_SPAN_MS", "3600001" },
		{ "SYNCTRACE_SYNC_CHECK", "-1" },
		{ "SYNCTRACE_CLOCK_SKEW", "garbage" },
		{ "SYNCTRACE_CLOCK_SKEW", "1e999s" },
		{ "SYNCTRACE_CLOCK_SKEW", "0,1s@1e999ppm" },
		{ "SYNCTRACE_CLOCK_SKEW", "0,+1s,x" },
		{ "SYNCTRACE_CLOCK_SKEW", "1s@5" },
		{ "SYNCTRACE_CLOCK_SKEW", "0,,1s" },
		{ "SYNCTRACE_CLOCK_SKEW", "nan" },
		{ "SYNCTRACE_CLOCK", "" }, { "SYNCTRACE_CLOCK", "hpet" },
		{ "SYNCTRACE_DIR", "trace-%q" }, { "SYNCTRACE_DIR", "a%" },
		{ "SYNCTRACE_NOTIFY", "relative/file" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		expect_value(bad[i].var, bad[i].value, 0);
}

Test(pmpi_config, messages)
{
	char longdir[PATH_MAX];

	setenv("SYNCTRACE_CLOCK_SKEW", "garbage", 1);
	cr_expect_eq(load(), -EINVAL);
	cr_expect_str_eq(err, "SYNCTRACE_CLOCK_SKEW='garbage' is not a list "
			 "of OFFSET[@DRIFT] per rank such as 0,+0.5s@-20ppm "
			 "(units s, ms, us, ns; |offset| up to 1e18 ns, "
			 "|drift| up to 1e5 ppm)");
	unsetenv("SYNCTRACE_CLOCK_SKEW");
	setenv("SYNCTRACE_DIR", "t-%q", 1);
	cr_expect_eq(load(), -EINVAL);
	cr_expect_str_eq(err, "SYNCTRACE_DIR='t-%q' is not a valid pattern: "
			 "unknown escape '%q' (known: %j %s %x %h %t %p %n "
			 "%%)");
	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	setenv("SYNCTRACE_DIR", longdir, 1);
	cr_expect_eq(load(), -EINVAL);
	cr_expect(strstr(err, "...' is too long"), "%s", err);
	unsetenv("SYNCTRACE_DIR");
	/* A terminal escape in a value is not sent to the terminal. */
	setenv("SYNCTRACE_DEPTH", "\033[2J", 1);
	cr_expect_eq(load(), -EINVAL);
	cr_expect_str_eq(err, "SYNCTRACE_DEPTH='?[2J' is not a whole number "
			 "from 0 to 64");
}

Test(pmpi_config, misspelt_variables)
{
	setenv("SYNCTRACE_BUFER", "64K", 1);
	cr_expect_eq(load(), -EINVAL);
	cr_expect_str_eq(err, "SYNCTRACE_BUFER is not a synctrace variable "
			 "(see \"Environment variables\" in README.md)");
	unsetenv("SYNCTRACE_BUFER");
	setenv("SYNCTRACE_", "", 1);
	cr_expect_eq(load(), -EINVAL);
	unsetenv("SYNCTRACE_");
	/* Not ours: other prefixes. */
	setenv("SYNCTRACEX", "1", 1);
	setenv("XSYNCTRACE_DIR", "1", 1);
	cr_expect_eq(load(), 0, "%s", err);
	unsetenv("SYNCTRACEX");
	unsetenv("XSYNCTRACE_DIR");
}

/*
 * What loading synctrace's module sets (Spack's and Lmod's <NAME>_ROOT,
 * <NAME>_HOME...) is not a misspelling: tracing stays on.
 */
Test(pmpi_config, module_variables_pass)
{
	const char *names[] = { "SYNCTRACE_ROOT", "SYNCTRACE_HOME",
				"SYNCTRACE_PREFIX", "SYNCTRACE_VERSION" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++) {
		setenv(names[i], "/opt/synctrace", 1);
		cr_expect_eq(load(), 0, "%s: %s", names[i], err);
		unsetenv(names[i]);
	}
	/* A name like them, but not theirs, is still reported. */
	setenv("SYNCTRACE_ROOTS", "/opt/synctrace", 1);
	cr_expect_eq(load(), -EINVAL);
	unsetenv("SYNCTRACE_ROOTS");
}
