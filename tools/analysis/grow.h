/*
 * tools/analysis/grow.h: growing an array by doubling, for the readers
 * that collect records of unknown number.
 */
#ifndef ST_ANALYSIS_GROW_H
#define ST_ANALYSIS_GROW_H

#include <errno.h>
#include <stdlib.h>

/*
 * Make room in '*v' (of '*alloc' elements of 'size' bytes) for element
 * 'n': doubles the array, from 16.  Returns 0 or -ENOMEM ('*v' kept).
 */
static inline int st_grow(void **v, size_t n, size_t *alloc, size_t size)
{
	size_t a;
	void *p;

	if (n < *alloc)
		return 0;
	a = *alloc ? 2 * *alloc : 16;
	p = realloc(*v, a * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*alloc = a;
	return 0;
}

#define ST_GROW(v, n, alloc) \
	st_grow((void **)&(v), (n), &(alloc), sizeof(*(v)))

#endif
