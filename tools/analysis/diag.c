/*
 * tools/analysis/diag.c: the analysis library's one channel for
 * warnings.  A message longer than the buffer is cut, never dropped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analysis/diag.h"

/* Per thread: a tool may analyse on several threads at once, each
   deciding where its own warnings go. */
static _Thread_local st_warn_fn *receiver;

void st_diag_set_warn(st_warn_fn *fn)
{
	receiver = fn;
}

void st_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (receiver)
		receiver(msg);
	else
		fprintf(stderr, "synctrace: warning: %s\n", msg);
}

int st_msgs_add(struct st_msgs *m, const char *msg)
{
	size_t n = strlen(msg) + 1;

	if (m->len + n > m->alloc) {
		size_t a = m->alloc ? 2 * m->alloc : 512;
		char *t;

		while (a < m->len + n)
			a *= 2;
		if (!(t = realloc(m->text, a)))
			return -ENOMEM;
		m->text = t;
		m->alloc = a;
	}
	memcpy(m->text + m->len, msg, n);
	m->len += n;
	m->n++;
	return 0;
}
