/*
 * tools/analysis/diag.c: the analysis library's one channel for
 * warnings.  A message longer than the buffer is cut, never dropped.
 */
#include <stdarg.h>
#include <stdio.h>

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
