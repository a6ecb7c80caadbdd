/*
 * tests/unit/analysis-format.c: text from a trace is printed escaped.
 * Printable ASCII and valid UTF-8 pass; control characters, DEL, C1
 * controls (also as UTF-8), overlong forms, surrogates and stray bytes
 * come out as \xHH, a backslash as \\; the output is cut at a whole
 * escape, never past the buffer.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tools/analysis/format.h"

static const char *fmt(const char *s, size_t len)
{
	static char buf[256];

	return st_fmt_text(s, len, buf, sizeof(buf));
}

Test(tools_format, text_escapes_what_a_terminal_obeys)
{
	cr_expect_str_eq(fmt("/usr/lib/libmpi.so.12", 21),
			 "/usr/lib/libmpi.so.12");
	cr_expect_str_eq(fmt("a\x1b[2Jb", 6), "a\\x1b[2Jb");
	cr_expect_str_eq(fmt("t\tn\nd\x7f", 6), "t\\x09n\\x0ad\\x7f");
	cr_expect_str_eq(fmt("back\\slash", 10), "back\\\\slash");
	cr_expect_str_eq(fmt("nul\0x", 5), "nul\\x00x");
	/* UTF-8: e acute, a euro sign, an emoji pass */
	cr_expect_str_eq(fmt("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9),
			 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* CSI as one byte and as UTF-8 U+009B; overlong '/'; a surrogate */
	cr_expect_str_eq(fmt("\x9b" "1m", 3), "\\x9b1m");
	cr_expect_str_eq(fmt("\xc2\x9b", 2), "\\xc2\\x9b");
	cr_expect_str_eq(fmt("\xc0\xaf", 2), "\\xc0\\xaf");
	cr_expect_str_eq(fmt("\xed\xa0\x80", 3), "\\xed\\xa0\\x80");
	/* a sequence cut by the end of the text */
	cr_expect_str_eq(fmt("x\xe2\x82", 3), "x\\xe2\\x82");
	cr_expect_str_eq(fmt(NULL, 0), "");
}

Test(tools_format, text_is_cut_at_a_whole_escape)
{
	char buf[8];

	cr_expect_str_eq(st_fmt_text("abcdefghij", 10, buf, sizeof(buf)),
			 "abcdefg");
	cr_expect_str_eq(st_fmt_text("abcde\x1b", 6, buf, sizeof(buf)),
			 "abcde");
	cr_expect_str_eq(st_fmt_text("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8,
				     buf, sizeof(buf)), "\xc3\xa9\xc3\xa9"
			 "\xc3\xa9");
	cr_expect_str_eq(st_fmt_text("abc", 3, buf, 1), "");
	cr_expect_str_eq(st_fmt_str("\x1b", buf, sizeof(buf)), "\\x1b");
}
