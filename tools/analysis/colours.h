/*
 * tools/analysis/colours.h: the colours of synctrace's pages.  A page
 * gives each thing it colours (a process count, a function) an index
 * once, for the whole page, and every plot, legend and table of the page
 * takes that index's colour, so one function or process count looks the
 * same everywhere on it.
 */
#ifndef ST_TOOLS_ANALYSIS_COLOURS_H
#define ST_TOOLS_ANALYSIS_COLOURS_H

#include <stddef.h>

/* Number of distinct colours before they repeat. */
#define ST_NCOLOURS 12

/* "#rrggbb" of index 'i' (taken modulo ST_NCOLOURS). */
const char *st_colour(size_t i);

/* What is left over ("other functions"), and waiting in collectives. */
#define ST_COLOUR_OTHER "#a0a0a0"
#define ST_COLOUR_WAIT "#e8c8c8"

#endif
