/*
 * tools/analysis/format.c: how the tools write numbers and lists for
 * people and for spreadsheets: sizes in binary units, times in SI units
 * with three significant digits, RFC 4180 CSV fields, rank lists.
 */
#include <inttypes.h>
#include <stdio.h>

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
