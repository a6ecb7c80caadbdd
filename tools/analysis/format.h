/*
 * tools/analysis/format.h: numbers, sizes, rank lists and CSV fields as
 * every synctrace output writes them, so text, CSV and HTML agree.
 */
#ifndef ST_TOOLS_ANALYSIS_FORMAT_H
#define ST_TOOLS_ANALYSIS_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "512 B", "1.5 KiB", "3.00 MiB"... into 'buf' of 'len' bytes; returns 'buf'. */
char *st_fmt_bytes(uint64_t bytes, char *buf, size_t len);

/*
 * "800 ns", "12.3 us", "4.56 ms", "1.23 s"... into 'buf' of 'len' bytes;
 * a negative 'ns' prints as 0.  Returns 'buf'.
 */
char *st_fmt_ns(double ns, char *buf, size_t len);

/*
 * The 'len' bytes of 's', text a trace provides (a path, a command line,
 * a host name), made safe to print on a terminal, into 'buf' of 'size'
 * bytes (at least 1; cut at a whole escape when it does not fit):
 * control characters, DEL, C1 controls and bytes that are not UTF-8 as
 * "\xHH", a backslash as "\\", all else as it is.  Returns 'buf'.
 */
char *st_fmt_text(const char *s, size_t len, char *buf, size_t size);

/* st_fmt_text() of the NUL-terminated 's'. */
char *st_fmt_str(const char *s, char *buf, size_t size);

/* Write 'len' bytes of 's' to 'f' as one CSV field (RFC 4180). */
void st_csv_field(FILE *f, const char *s, size_t len);

/*
 * Write "2,5-7" style lists: the 'n' sorted ranks of 'v' into 'buf' of
 * 'len' bytes, runs of consecutive ranks as "a-b".
 */
void st_rank_list(const int *v, size_t n, char *buf, size_t len);

#endif
