/*
 * tools/analysis/colours.c: the palette (Tableau 10, then two more that
 * stay apart from it), dark enough to show on white and apart from the
 * grey of "other" and the pale red of waiting.
 */
#include "tools/analysis/colours.h"

static const char *const palette[ST_NCOLOURS] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
	"#8c564b", "#e377c2", "#bcbd22", "#393b79", "#637939", "#7b4173",
};

const char *st_colour(size_t i)
{
	return palette[i % ST_NCOLOURS];
}
