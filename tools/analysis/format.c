/*
 * tools/analysis/format.c: how the tools write numbers and lists for
 * people and for spreadsheets: sizes in binary units, times in SI units
 * with three significant digits, RFC 4180 CSV fields, rank lists, and
 * text from a trace with what a terminal would obey escaped.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/analysis/format.h"

char *st_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	v /= 1024;
	/* Three significant digits; rounding up to 1024 moves a unit up. */
	while (u + 1 < sizeof(unit) / sizeof(unit[0]) && v >= 1023.5) {
		v /= 1024;
		u++;
	}
	if (v < 9.995)
		snprintf(buf, len, "%.2f %s", v, unit[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	return buf;
}

char *st_fmt_ns(double ns, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	size_t u = 0;
	double v = ns < 0 ? 0 : ns;

	while (u + 1 < sizeof(unit) / sizeof(unit[0]) && v >= 999.5) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f ns", v);
	else if (v < 9.995)
		snprintf(buf, len, "%.2f %s", v, unit[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	return buf;
}

void st_csv_field(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' ||
		    s[i] == '\r')
			break;
	if (i == len && !(len && (s[0] == ' ' || s[len - 1] == ' '))) {
		fwrite(s, 1, len, f);
		return;
	}
	putc('"', f);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			putc('"', f);
		putc(s[i], f);
	}
	putc('"', f);
}

void st_rank_list(const int *v, size_t n, char *buf, size_t len)
{
	size_t i = 0, used = 0;

	if (len)
		*buf = '\0';
	while (i < n && used < len) {
		size_t j = i;
		int w;

		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			w = snprintf(buf + used, len - used, "%s%d",
				     i ? "," : "", v[i]);
		else
			w = snprintf(buf + used, len - used, "%s%d-%d",
				     i ? "," : "", v[i], v[j]);
		if (w < 0)
			break;
		used += (size_t)w;
		i = j + 1;
	}
}

/*
 * Length of the UTF-8 sequence at 's' ('n' bytes left) if it is a valid
 * one and no C1 control (U+0080..U+009F, which terminals obey as well),
 * else 0.  Overlong forms and surrogates are not valid.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (n < k)
		return 0;
	if (s[0] == 0xc2)
		lo = 0xa0;	/* c2 80..9f: the C1 controls */
	else if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return k;
}

char *st_fmt_text(const char *s, size_t len, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, in, out;
	char esc[8];

	while (i < len) {
		/* 'in' bytes of 's' print as the 'out' bytes at 'esc' */
		in = p[i] >= 0x80 ? utf8_len(p + i, len - i) : 0;
		if (in) {
			memcpy(esc, p + i, in);
			out = in;
		} else if (p[i] == '\\') {
			memcpy(esc, "\\\\", 2);
			in = 1;
			out = 2;
		} else if (p[i] >= 0x20 && p[i] < 0x7f) {
			esc[0] = (char)p[i];
			in = out = 1;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", p[i]);
			in = 1;
			out = 4;
		}
		if (o + out >= size)
			break;
		memcpy(buf + o, esc, out);
		o += out;
		i += in;
	}
	buf[o] = '\0';
	return buf;
}

char *st_fmt_str(const char *s, char *buf, size_t size)
{
	return st_fmt_text(s, strlen(s), buf, size);
}
