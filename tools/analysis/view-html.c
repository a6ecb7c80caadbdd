/*
 * tools/analysis/view-html.c: the page of 'synctrace view' (see view.h).
 *
 * Three reads of the run: the scan (tools/analysis/runscan.h), a sweep
 * that fills the communication matrices and a histogram of call
 * durations (which sets the shortest call the page draws one by one,
 * so at most max_calls are kept), and the walk in global time, which
 * keeps the calls and message lines, fills each lane's bins, and learns
 * from the collective analysis' hook, as each instance completes, how
 * long each member waited for the last arrival.  The page is then
 * written in one go: tables as HTML, the timeline's data as JSON in a
 * script element of type application/json (times as integer
 * nanoseconds since the origin, each call's start as a difference from
 * the previous one on its lane), and the script that draws it.
 *
 * A lane's bins split the run into equal spans; each records, by
 * category (the top functions by time, "other", "waiting"), the time
 * calls covered in it.  The page draws a bin as its busiest category,
 * as high as the share of the span spent in MPI.
 *
 * Colours: the functions with most time in the run take the palette's
 * colours in order of time (tools/analysis/colours.h), the same in the
 * timeline, its legend and every table; the rest are "other".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync.h"
#include "tools/analysis/blame.h"
#include "tools/analysis/colours.h"
#include "tools/analysis/fn-names.h"
#include "tools/analysis/format.h"
#include "tools/analysis/imbalance.h"
#include "tools/analysis/matrix.h"
#include "tools/analysis/merge.h"
#include "tools/analysis/p2p.h"
#include "tools/analysis/runscan.h"
#include "tools/analysis/timeline.h"
#include "tools/analysis/u64map.h"
#include "tools/analysis/view.h"
#include "writer/event.h"
#include "writer/fn-info.h"

#define NTOP 11			/* functions with a colour of their own */
#define CAT_OTHER NTOP
#define CAT_WAIT (NTOP + 1)
#define NCAT (NTOP + 2)
#define MAX_CELLS (1u << 20)	/* bins over all lanes */
#define MAX_BINS 2048		/* per lane */
#define HEAT_MAX 96		/* heat map side, in blocks of ranks */

static const char view_js[] =
"(function () {\n"
"\"use strict\";\n"
"var errs = document.getElementById(\"st-errors\");\n"
"window.addEventListener(\"error\", function (e) {\n"
"	errs.textContent += \"error: \" + e.message + \"\\n\";\n"
"});\n"
"var D = JSON.parse(document.getElementById(\"st-data\").textContent);\n"
"var cv = document.getElementById(\"st-timeline\");\n"
"var ctx = cv.getContext(\"2d\");\n"
"var tip = document.getElementById(\"st-tip\");\n"
"var status = document.getElementById(\"st-status\");\n"
"var LABEL = 100, AXIS = 26;\n"
"var nl = D.lanes.length;\n"
"var LH = nl <= 16 ? 22 : nl <= 64 ? 10 : Math.max(2, Math.floor(640 / nl));\n"
"var lanes = D.lanes.map(function (l) {\n"
"	var e = l.e, n = e.length / 5, i, k, t = 0;\n"
"	var L = { label: l.label, n: n, s: new Float64Array(n),\n"
"		d: new Float64Array(n), c: new Uint16Array(n),\n"
"		site: new Uint32Array(n), w: new Float64Array(n) };\n"
"	for (i = 0; i < n; i++) {\n"
"		t += e[5 * i];\n"
"		L.s[i] = t;\n"
"		L.d[i] = e[5 * i + 1];\n"
"		L.c[i] = e[5 * i + 2];\n"
"		L.site[i] = e[5 * i + 3];\n"
"		L.w[i] = e[5 * i + 4];\n"
"	}\n"
"	L.nb = l.bins.length / 4;\n"
"	L.bc = new Uint8Array(L.nb);\n"
"	L.bf = new Uint8Array(L.nb);\n"
"	for (k = 0; k < L.nb; k++) {\n"
"		L.bc[k] = parseInt(l.bins.substr(4 * k, 2), 16);\n"
"		L.bf[k] = parseInt(l.bins.substr(4 * k + 2, 2), 16);\n"
"	}\n"
"	return L;\n"
"});\n"
"var colours = D.cats.map(function (c) { return c.colour; });\n"
"var fcol = D.fns.map(function (f) { return colours[f.cat]; });\n"
"var WAIT = D.cats.length - 1;\n"
"var v0 = 0, v1 = D.span > 0 ? D.span : 1;\n"
"\n"
"function fmt(ns) {\n"
"	var a = Math.abs(ns);\n"
"	if (a >= 1e9) return (ns / 1e9).toPrecision(4) + \" s\";\n"
"	if (a >= 1e6) return (ns / 1e6).toPrecision(4) + \" ms\";\n"
"	if (a >= 1e3) return (ns / 1e3).toPrecision(4) + \" us\";\n"
"	return ns.toFixed(0) + \" ns\";\n"
"}\n"
"function width() { return cv.width - LABEL; }\n"
"function px(t) { return LABEL + (t - v0) / (v1 - v0) * width(); }\n"
"function tAt(x) { return v0 + (x - LABEL) / width() * (v1 - v0); }\n"
"function lower(a, n, t) {\n"
"	var lo = 0, hi = n, m;\n"
"	while (lo < hi) {\n"
"		m = (lo + hi) >> 1;\n"
"		if (a[m] < t) lo = m + 1; else hi = m;\n"
"	}\n"
"	return lo;\n"
"}\n"
"function box(colour, a, b, y, h) {\n"
"	var x0 = Math.max(a, LABEL), x1 = Math.min(b, cv.width);\n"
"	if (x1 <= x0) return;\n"
"	ctx.fillStyle = colour;\n"
"	ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);\n"
"}\n"
"var lastMode = \"\";\n"
"function drawLane(L, y) {\n"
"	var w = width(), pxns = (v1 - v0) / w, h = LH - 2, i, k;\n"
"	var lo = lower(L.s, L.n, v0), hi = lower(L.s, L.n, v1);\n"
"	if (lo > 0 && L.s[lo - 1] + L.d[lo - 1] > v0) lo--;\n"
"	var binPx = D.binw / pxns;\n"
"	if (binPx <= 4 && (D.minDur > 0 || hi - lo > 20 * w)) {\n"
"		var k0 = Math.max(0, Math.floor(v0 / D.binw));\n"
"		var k1 = Math.min(L.nb, Math.ceil(v1 / D.binw));\n"
"		for (k = k0; k < k1; k++) {\n"
"			if (L.bc[k] === 255) continue;\n"
"			var bh = Math.max(1, Math.round(h * L.bf[k] / 255));\n"
"			box(colours[L.bc[k]], px(k * D.binw),\n"
"			    px((k + 1) * D.binw), y + h - bh, bh);\n"
"		}\n"
"		return \"bins\";\n"
"	}\n"
"	var col = -1, best = -1, bestd = -1;\n"
"	function flush() {\n"
"		if (best >= 0)\n"
"			box(fcol[L.c[best]], col, col + 1, y, h);\n"
"		best = -1;\n"
"	}\n"
"	for (i = lo; i < hi; i++) {\n"
"		var a = px(L.s[i]), b = px(L.s[i] + L.d[i]);\n"
"		if (b - a < 1) {\n"
"			var x = Math.floor(a);\n"
"			if (x !== col) { flush(); col = x; }\n"
"			if (L.d[i] > bestd || best < 0) { best = i; bestd = L.d[i]; }\n"
"			continue;\n"
"		}\n"
"		flush();\n"
"		bestd = -1;\n"
"		if (L.w[i] > 0) {\n"
"			var wb = px(L.s[i] + L.w[i]);\n"
"			box(colours[WAIT], a, wb, y, h);\n"
"			box(fcol[L.c[i]], wb, b, y, h);\n"
"		} else {\n"
"			box(fcol[L.c[i]], a, b, y, h);\n"
"		}\n"
"	}\n"
"	flush();\n"
"	return \"calls\";\n"
"}\n"
"function drawAxis() {\n"
"	var span = v1 - v0, step = Math.pow(10, Math.floor(Math.log10(span / 8)));\n"
"	if (span / step > 40) step *= 5; else if (span / step > 16) step *= 2;\n"
"	ctx.fillStyle = \"#333\";\n"
"	ctx.font = \"11px sans-serif\";\n"
"	ctx.strokeStyle = \"#ddd\";\n"
"	for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {\n"
"		var x = px(t);\n"
"		ctx.fillText(fmt(t), x + 2, 12);\n"
"		ctx.beginPath();\n"
"		ctx.moveTo(x + 0.5, 16);\n"
"		ctx.lineTo(x + 0.5, cv.height);\n"
"		ctx.stroke();\n"
"	}\n"
"}\n"
"function laneY(l) { return AXIS + l * LH; }\n"
"function drawMessages() {\n"
"	var m = D.msgs, n = m.length / 4, span = v1 - v0, i, cnt = 0;\n"
"	var lo = 0, hi = n;\n"
"	while (lo < hi) {\n"
"		var mid = (lo + hi) >> 1;\n"
"		if (m[4 * mid + 1] < v0 - span) lo = mid + 1; else hi = mid;\n"
"	}\n"
"	for (i = lo; i < n && m[4 * i + 1] <= v1; i++)\n"
"		if (m[4 * i + 3] >= v0) cnt++;\n"
"	if (cnt > 1500) return \"messages hidden (\" + cnt + \" in view: zoom in)\";\n"
"	ctx.strokeStyle = \"rgba(0,0,0,0.55)\";\n"
"	ctx.lineWidth = 1;\n"
"	for (i = lo; i < n && m[4 * i + 1] <= v1; i++) {\n"
"		if (m[4 * i + 3] < v0) continue;\n"
"		ctx.beginPath();\n"
"		ctx.moveTo(px(m[4 * i + 1]), laneY(m[4 * i]) + LH / 2);\n"
"		ctx.lineTo(px(m[4 * i + 3]), laneY(m[4 * i + 2]) + LH / 2);\n"
"		ctx.stroke();\n"
"	}\n"
"	return cnt + \" messages in view\";\n"
"}\n"
"function draw() {\n"
"	var modes = {}, l, msg, t0 = performance.now();\n"
"	ctx.fillStyle = \"#fff\";\n"
"	ctx.fillRect(0, 0, cv.width, cv.height);\n"
"	drawAxis();\n"
"	for (l = 0; l < nl; l++)\n"
"		modes[drawLane(lanes[l], laneY(l) + 1)] = 1;\n"
"	msg = drawMessages();\n"
"	ctx.fillStyle = \"#fff\";\n"
"	ctx.fillRect(0, 0, LABEL, cv.height);\n"
"	ctx.fillStyle = \"#222\";\n"
"	ctx.font = (LH >= 10 ? 11 : 8) + \"px sans-serif\";\n"
"	if (LH >= 8)\n"
"		for (l = 0; l < nl; l++)\n"
"			ctx.fillText(lanes[l].label, 4, laneY(l) + LH / 2 + 4);\n"
"	lastMode = Object.keys(modes).join(\", \");\n"
"	status.textContent = \"view \" + fmt(v0) + \" to \" + fmt(v1) + \" (\" +\n"
"		fmt(v1 - v0) + \"); drawn from \" + (lastMode || \"nothing\") +\n"
"		\"; \" + msg + (D.minDur > 0 && modes.calls ?\n"
"		\"; calls shorter than \" + fmt(D.minDur) +\n"
"		\" are not in this detail\" : \"\");\n"
"	cv.setAttribute(\"data-draw-ms\", (performance.now() - t0).toFixed(1));\n"
"}\n"
"function resize() {\n"
"	cv.width = Math.max(400, cv.parentNode.clientWidth - 2);\n"
"	cv.height = AXIS + nl * LH + 4;\n"
"	draw();\n"
"}\n"
"function zoom(f, at) {\n"
"	var t = at === undefined ? (v0 + v1) / 2 : at;\n"
"	var n0 = t - (t - v0) * f, n1 = t + (v1 - t) * f;\n"
"	if (n1 - n0 < 100) return;\n"
"	v0 = Math.max(-0.05 * D.span, n0);\n"
"	v1 = Math.min(1.05 * D.span, n1);\n"
"	draw();\n"
"}\n"
"cv.addEventListener(\"wheel\", function (e) {\n"
"	e.preventDefault();\n"
"	zoom(e.deltaY < 0 ? 0.75 : 1 / 0.75, tAt(e.offsetX));\n"
"});\n"
"var drag = null;\n"
"cv.addEventListener(\"mousedown\", function (e) {\n"
"	drag = { x: e.offsetX, v0: v0, v1: v1 };\n"
"});\n"
"window.addEventListener(\"mouseup\", function () { drag = null; });\n"
"cv.addEventListener(\"mousemove\", function (e) {\n"
"	if (drag) {\n"
"		var dt = (e.offsetX - drag.x) / width() * (drag.v1 - drag.v0);\n"
"		v0 = drag.v0 - dt;\n"
"		v1 = drag.v1 - dt;\n"
"		draw();\n"
"		return;\n"
"	}\n"
"	var l = Math.floor((e.offsetY - AXIS) / LH), t = tAt(e.offsetX);\n"
"	if (l < 0 || l >= nl || e.offsetX < LABEL) {\n"
"		tip.style.display = \"none\";\n"
"		return;\n"
"	}\n"
"	var L = lanes[l], i = lower(L.s, L.n, t) - 1;\n"
"	if (i < 0 || L.s[i] + L.d[i] < t) {\n"
"		tip.style.display = \"none\";\n"
"		return;\n"
"	}\n"
"	tip.textContent = L.label + \": \" + D.fns[L.c[i]].name + \" at \" + D.sites[L.site[i]] + \", from \" + fmt(L.s[i]) +\n"
"		\" for \" + fmt(L.d[i]) + (L.w[i] > 0 ? \", waiting \" +\n"
"		fmt(L.w[i]) + \" for the last rank\" : \"\");\n"
"	tip.style.display = \"block\";\n"
"	tip.style.left = (e.pageX + 12) + \"px\";\n"
"	tip.style.top = (e.pageY + 12) + \"px\";\n"
"});\n"
"cv.addEventListener(\"mouseleave\", function () { tip.style.display = \"none\"; });\n"
"cv.addEventListener(\"dblclick\", function () { v0 = 0; v1 = D.span; draw(); });\n"
"document.getElementById(\"st-in\").onclick = function () { zoom(0.5); };\n"
"document.getElementById(\"st-out\").onclick = function () { zoom(2); };\n"
"document.getElementById(\"st-reset\").onclick = function () {\n"
"	v0 = 0; v1 = D.span; draw();\n"
"};\n"
"window.addEventListener(\"resize\", resize);\n"
"\n"
"function heat(id, M, Mm, what) {\n"
"	var c = document.getElementById(id), g, n = D.matrix.n, b = D.matrix.block;\n"
"	var cell = Math.max(2, Math.floor(360 / n)), max = 0, i, j, v;\n"
"	if (!c) return;\n"
"	c.width = n * cell + 60;\n"
"	c.height = n * cell + 40;\n"
"	g = c.getContext(\"2d\");\n"
"	for (i = 0; i < M.length; i++) max = Math.max(max, M[i]);\n"
"	g.fillStyle = \"#fff\";\n"
"	g.fillRect(0, 0, c.width, c.height);\n"
"	for (i = 0; i < n; i++)\n"
"		for (j = 0; j < n; j++) {\n"
"			v = M[i * n + j];\n"
"			if (v <= 0) { g.fillStyle = \"#f4f4f4\"; }\n"
"			else {\n"
"				var f = max > 1 ? Math.log(1 + v) / Math.log(1 + max) : 1;\n"
"				var r = Math.round(255 - 225 * f), gg = Math.round(255 - 170 * f);\n"
"				g.fillStyle = \"rgb(\" + r + \",\" + gg + \",255)\";\n"
"				if (f > 0.6) g.fillStyle = \"rgb(\" + Math.round(80 - 60 * f) + \",\" + Math.round(120 - 80 * f) + \",\" + Math.round(230 - 60 * f) + \")\";\n"
"			}\n"
"			g.fillRect(40 + j * cell, 20 + i * cell, cell - (cell > 3), cell - (cell > 3));\n"
"		}\n"
"	g.fillStyle = \"#333\";\n"
"	g.font = \"11px sans-serif\";\n"
"	g.fillText(\"receiver \" + (b > 1 ? \"(blocks of \" + b + \" ranks) \" : \"\") + \"->\", 40, 12);\n"
"	g.save();\n"
"	g.translate(12, 20 + n * cell);\n"
"	g.rotate(-Math.PI / 2);\n"
"	g.fillText(\"sender ->\", 0, 0);\n"
"	g.restore();\n"
"	c.onmousemove = function (e) {\n"
"		var x = Math.floor((e.offsetX - 40) / cell), y = Math.floor((e.offsetY - 20) / cell);\n"
"		if (x < 0 || y < 0 || x >= n || y >= n) { tip.style.display = \"none\"; return; }\n"
"		tip.textContent = what + \": \" + (b > 1 ? \"ranks \" + y * b + \"-\" + (y * b + b - 1) + \" -> \" + x * b + \"-\" + (x * b + b - 1) : \"rank \" + y + \" -> rank \" + x) +\n"
"			\": \" + M[y * n + x] + \" bytes in \" + Mm[y * n + x] + \" \" + (what === \"point-to-point\" ? \"messages\" : \"transfers\");\n"
"		tip.style.display = \"block\";\n"
"		tip.style.left = (e.pageX + 12) + \"px\";\n"
"		tip.style.top = (e.pageY + 12) + \"px\";\n"
"	};\n"
"	c.onmouseleave = function () { tip.style.display = \"none\"; };\n"
"	c.setAttribute(\"data-max\", String(max));\n"
"}\n"
"\n"
"resize();\n"
"heat(\"st-heat-p2p\", D.matrix.p2p, D.matrix.p2pm, \"point-to-point\");\n"
"heat(\"st-heat-coll\", D.matrix.coll, D.matrix.collm, \"collective\");\n"
"/* Self-check: how many pixels each lane painted, for tests and for the eye. */\n"
"var items = document.getElementById(\"st-lanes\"), l;\n"
"for (l = 0; l < nl; l++) {\n"
"	var y = laneY(l) + 1, img = ctx.getImageData(LABEL, y, width(), LH - 2).data;\n"
"	var painted = 0, p;\n"
"	for (p = 0; p < img.length; p += 4)\n"
"		if (img[p] < 250 || img[p + 1] < 250 || img[p + 2] < 250) painted++;\n"
"	var li = document.createElement(\"li\");\n"
"	li.textContent = lanes[l].label + \": \" + lanes[l].n + \" calls\";\n"
"	li.setAttribute(\"data-lane\", String(l));\n"
"	li.setAttribute(\"data-calls\", String(lanes[l].n));\n"
"	li.setAttribute(\"data-painted\", String(painted));\n"
"	items.appendChild(li);\n"
"}\n"
"var rect = cv.getBoundingClientRect();\n"
"cv.setAttribute(\"data-box\", [rect.left + window.scrollX, rect.top +\n"
"\twindow.scrollY, rect.width, rect.height].map(Math.round).join(\",\"));\n"
"document.body.setAttribute(\"data-ready\", \"1\");\n"
"})();\n";

/* A call kept for the detailed view. */
struct call {
	double g0, g1, wait;	/* wait: ns from g0, 0 when none known */
	uint16_t fn;		/* index in the page's function list */
	uint32_t site;		/* index in the page's site list */
};

struct lane {
	int rank, thread;
	struct call *v;
	size_t n, alloc;
	float *bins;		/* [nbins][NCAT] ns */
};

/*
 * Call durations in a log-linear histogram, for the threshold of the
 * calls drawn one by one: exact below 16 ns, then 16 buckets an octave
 * (the four bits after the leading one), so the threshold lands within
 * 1/16 of an octave of the --max-calls budget.
 */
#define HIST_N (16 + 60 * 16)

static inline int hist_bucket(uint64_t ns)
{
	int b;

	if (ns < 16)
		return (int)ns;
	b = 64 - __builtin_clzll(ns);	/* bit length, 5 to 64 */
	return 16 + (b - 5) * 16 + (int)((ns >> (b - 5)) & 15);
}

/* The shortest duration in bucket 'i'. */
static inline uint64_t hist_low(int i)
{
	if (i < 16)
		return (uint64_t)i;
	i -= 16;
	return (uint64_t)(16 + i % 16) << (i / 16);
}

struct view {
	struct st_scan *scan;
	const struct st_view_opts *o;
	struct st_view_stats *st;
	struct lane *lanes;
	int nlanes, *lane0;	/* lane0[rank]: its first lane, -1 none */
	size_t nbins;
	double origin, span, binw;
	uint8_t cat_of[65536];	/* function id -> category */
	uint16_t *fn_idx;	/* function id -> page index + 1 */
	uint16_t *fns;		/* page index -> function id */
	size_t nfns;
	long *sites;		/* page index -> symbol */
	size_t nsites;
	struct st_u64map site_idx;	/* symbol + 1 -> page index + 1 */
	uint16_t top[NTOP];	/* the coloured functions */
	int ntop;
	uint64_t hist[HIST_N];	/* calls by duration (hist_bucket()) */
	uint64_t min_ns;
	double *msgs;		/* [4 * nmsgs]: lane, t, lane, t */
	size_t nmsgs, alloc_msgs;
	struct st_p2p *p2p;
	struct st_matrix mx;
	int have_mx;
	int rc;
};

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
		}
	}
}

/* A JSON string inside a script element: "</" never appears. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *cat_colour(int cat)
{
	if (cat == CAT_OTHER)
		return ST_COLOUR_OTHER;
	if (cat == CAT_WAIT)
		return ST_COLOUR_WAIT;
	return st_colour((size_t)cat);
}

static int cmp_time(const void *a, const void *b, void *ctx)
{
	const struct st_scan_fn *fn = ctx;
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	if (fn[x].time_ns != fn[y].time_ns)
		return fn[x].time_ns < fn[y].time_ns ? 1 : -1;
	return x - y;
}

/* Categories: the NTOP functions with most time, then "other". */
static int pick_colours(struct view *v)
{
	unsigned nfn = st_fn_count(), fn;
	uint16_t *ids = malloc(nfn * sizeof(*ids));
	size_t n = 0, i;

	if (!ids)
		return -ENOMEM;
	memset(v->cat_of, CAT_OTHER, sizeof(v->cat_of));
	for (fn = 1; fn < nfn; fn++)
		if (v->scan->fn[fn].calls)
			ids[n++] = (uint16_t)fn;
	qsort_r(ids, n, sizeof(*ids), cmp_time, v->scan->fn);
	for (i = 0; i < n && i < NTOP; i++) {
		v->top[i] = ids[i];
		v->cat_of[ids[i]] = (uint8_t)i;
	}
	v->ntop = (int)i;
	free(ids);
	return 0;
}

static int sweep(void *ctx, int rank, const struct st_event *ev)
{
	struct view *v = ctx;

	if (v->have_mx && st_matrix_add(&v->mx, v->scan, rank, ev))
		return -ENOMEM;
	if (ev->kind != ST_REC_CALL || !st_gclock_epochs(v->scan->rank[rank].clk))
		return 0;
	v->hist[hist_bucket(ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0)]++;
	return 0;
}

/* The shortest duration kept so that at most 'max' calls are. */
static void pick_threshold(struct view *v, size_t max)
{
	uint64_t total = 0, above = 0;
	int b;

	for (b = 0; b < HIST_N; b++)
		total += v->hist[b];
	v->min_ns = 0;
	if (total <= max)
		return;
	for (b = HIST_N - 1; b >= 0; b--) {
		if (above + v->hist[b] > max)
			break;
		above += v->hist[b];
	}
	/* Buckets above b are kept. */
	v->min_ns = b + 1 < HIST_N ? hist_low(b + 1) : UINT64_MAX;
}

static uint32_t site_index(struct view *v, long sym)
{
	uint64_t *p;
	int added;

	p = st_u64map_put(&v->site_idx, (uint64_t)(sym + 1), 0, &added);
	if (!p) {
		v->rc = -ENOMEM;
		return 0;
	}
	if (added) {
		long *n = realloc(v->sites, (v->nsites + 1) * sizeof(*n));

		if (!n) {
			v->rc = -ENOMEM;
			return 0;
		}
		v->sites = n;
		v->sites[v->nsites] = sym;
		*p = ++v->nsites;
	}
	return (uint32_t)(*p - 1);
}

static uint16_t fn_index(struct view *v, uint16_t fn)
{
	if (!v->fn_idx[fn]) {
		v->fns[v->nfns] = fn;
		v->fn_idx[fn] = (uint16_t)++v->nfns;
	}
	return (uint16_t)(v->fn_idx[fn] - 1);
}

/* Add 'ns' of category 'cat' over [a, b] to lane 'l's bins. */
static void bin_add(struct view *v, struct lane *l, double a, double b,
		    int cat, double sign)
{
	double x0 = (a - v->origin) / v->binw, x1 = (b - v->origin) / v->binw;
	long k, k0, k1;

	if (!(x1 > x0))
		return;
	k0 = (long)floor(x0);
	k1 = (long)floor(x1);
	for (k = k0 < 0 ? 0 : k0; k <= k1 && k < (long)v->nbins; k++) {
		double lo = x0 > k ? x0 : (double)k;
		double hi = x1 < k + 1 ? x1 : (double)(k + 1);

		if (hi > lo)
			l->bins[(size_t)k * NCAT + cat] +=
				(float)(sign * (hi - lo) * v->binw);
	}
}

static int on_msg(void *ctx, const struct st_p2p_msg *m)
{
	struct view *v = ctx;
	const struct st_p2p_end *s, *r;

	if (!m->paired)
		return 0;
	v->st->messages++;
	if (v->nmsgs >= v->o->max_messages)
		return 0;
	s = m->end.recv ? &m->other : &m->end;
	r = m->end.recv ? &m->end : &m->other;
	if (v->lane0[s->rank] < 0 || v->lane0[r->rank] < 0)
		return 0;
	if (v->nmsgs == v->alloc_msgs) {
		size_t a = v->alloc_msgs ? 2 * v->alloc_msgs : 1024;
		double *n = realloc(v->msgs, 4 * a * sizeof(*n));

		if (!n)
			return -ENOMEM;
		v->msgs = n;
		v->alloc_msgs = a;
	}
	v->msgs[4 * v->nmsgs] = v->lane0[s->rank] + s->thread;
	v->msgs[4 * v->nmsgs + 1] = s->g0 - v->origin;
	v->msgs[4 * v->nmsgs + 2] = v->lane0[r->rank] + r->thread;
	v->msgs[4 * v->nmsgs + 3] = r->g1 - v->origin;
	v->nmsgs++;
	v->st->kept_messages++;
	return 0;
}

static int on_record(void *ctx, const struct st_merged *x)
{
	struct view *v = ctx;
	const struct st_event *ev = x->ev;
	struct lane *l;
	uint64_t cookie = UINT64_MAX;
	int li;

	if (isnan(x->g0) || isnan(x->g1))
		return 0;
	if (ev->kind == ST_REC_CALL && v->lane0[x->rank] >= 0 &&
	    ev->thread < (unsigned)v->scan->rank[x->rank].nthreads) {
		li = v->lane0[x->rank] + ev->thread;
		l = &v->lanes[li];
		v->st->calls++;
		bin_add(v, l, x->g0, x->g1, v->cat_of[ev->fn], 1);
		cookie = (uint64_t)li << 32 | 0xffffffffu;
		if ((ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0) >= v->min_ns &&
		    v->st->kept < v->o->max_calls) {
			struct call *c;

			if (l->n == l->alloc) {
				size_t a = l->alloc ? 2 * l->alloc : 256;
				struct call *n = realloc(l->v, a * sizeof(*n));

				if (!n)
					return -ENOMEM;
				l->v = n;
				l->alloc = a;
			}
			c = &l->v[l->n];
			c->g0 = x->g0;
			c->g1 = x->g1 > x->g0 ? x->g1 : x->g0;
			c->wait = 0;
			c->fn = fn_index(v, ev->fn);
			c->site = site_index(v, st_scan_site(v->scan, x->rank,
							     ev->site));
			cookie = (uint64_t)li << 32 | l->n;
			l->n++;
			v->st->kept++;
		}
	}
	st_imb_set_cookie(v->scan->imb, cookie);
	if (st_p2p_add(v->p2p, x->rank, ev, x->g0, x->g1, on_msg, v))
		return -ENOMEM;
	return v->rc;
}

/* An instance completed: each member's waiting, in its bins and call. */
static void on_instance(void *ctx, const struct st_imb_done *d)
{
	struct view *v = ctx;
	uint32_t i;

	for (i = 0; i < d->n; i++) {
		uint64_t ck = d->cookie[i];
		double g0 = d->t[i][0], g1 = d->t[i][1];
		double end = g1 < d->last_arr ? g1 : d->last_arr;
		struct lane *l;
		uint32_t at;

		if (ck == UINT64_MAX || (ck >> 32) >= (uint64_t)v->nlanes ||
		    !(end > g0))
			continue;
		l = &v->lanes[ck >> 32];
		bin_add(v, l, g0, end, v->cat_of[d->fn], -1);
		bin_add(v, l, g0, end, CAT_WAIT, 1);
		at = (uint32_t)ck;
		if (at < l->n)
			l->v[at].wait = end - g0;
	}
}

static void write_bins(FILE *f, const struct view *v, const struct lane *l)
{
	size_t k;
	int c;

	fputc('"', f);
	for (k = 0; k < v->nbins; k++) {
		const float *b = &l->bins[k * NCAT];
		double busy = 0, most = 0;
		int best = 255;

		for (c = 0; c < NCAT; c++) {
			if (b[c] > most) {
				most = b[c];
				best = c;
			}
			if (b[c] > 0)
				busy += b[c];
		}
		busy = busy / v->binw * 255;
		fprintf(f, "%02x%02x", best, most > 0 ?
			(unsigned)(busy > 255 ? 255 : busy < 1 ? 1 : busy) : 0);
	}
	fputc('"', f);
}

static void write_heat(FILE *f, const char *name,
		       const struct st_matrix_part *p, int n, int block)
{
	int side = (n + block - 1) / block, i, j;
	double *b = calloc((size_t)side * side, sizeof(*b));
	uint64_t *m = calloc((size_t)side * side, sizeof(*m));

	fprintf(f, ",\"%s\":[", name);
	for (i = 0; b && m && i < n; i++)
		for (j = 0; j < n; j++) {
			b[(size_t)(i / block) * side + j / block] +=
				p->bytes[(size_t)i * n + j];
			m[(size_t)(i / block) * side + j / block] +=
				p->msgs[(size_t)i * n + j];
		}
	for (i = 0; b && m && i < side * side; i++)
		fprintf(f, "%s%.0f", i ? "," : "", b[i]);
	fprintf(f, "],\"%sm\":[", name);
	for (i = 0; b && m && i < side * side; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", m[i]);
	fputc(']', f);
	free(b);
	free(m);
}

static void write_data(FILE *f, struct view *v)
{
	char buf[512];
	size_t i, k;
	int c, block;

	fputs("<script id=\"st-data\" type=\"application/json\">\n{", f);
	fprintf(f, "\"origin\":%.0f,\"span\":%.0f,\"binw\":%.3f,\"minDur\":%"
		PRIu64 ",\"cats\":[", v->origin, v->span, v->binw,
		v->min_ns);
	for (c = 0; c < NCAT; c++) {
		const char *name = c < v->ntop ?
			st_fn_name(v->top[c], buf, sizeof(buf)) :
			c == CAT_OTHER ? "other functions" :
			c == CAT_WAIT ? "waiting for the last rank" : "-";

		fprintf(f, "%s{\"name\":", c ? "," : "");
		json_str(f, name);
		fprintf(f, ",\"colour\":\"%s\"}", cat_colour(c));
	}
	fputs("],\"fns\":[", f);
	for (i = 0; i < v->nfns; i++) {
		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_str(f, st_fn_name(v->fns[i], buf, sizeof(buf)));
		fprintf(f, ",\"cat\":%d}", v->cat_of[v->fns[i]]);
	}
	fputs("],\"sites\":[", f);
	for (i = 0; i < v->nsites; i++) {
		fputs(i ? "," : "", f);
		json_str(f, st_scan_site_label(v->scan, v->sites[i], buf,
					       sizeof(buf)));
	}
	fputs("],\"lanes\":[", f);
	for (k = 0; k < (size_t)v->nlanes; k++) {
		const struct lane *l = &v->lanes[k];
		double prev = 0;

		fprintf(f, "%s\n{\"label\":\"rank %d", k ? "," : "", l->rank);
		if (v->scan->rank[l->rank].nthreads > 1)
			fprintf(f, ".%d", l->thread);
		fputs("\",\"e\":[", f);
		for (i = 0; i < l->n; i++) {
			const struct call *c = &l->v[i];
			double t = llround(c->g0 - v->origin);

			fprintf(f, "%s%.0f,%.0f,%u,%u,%.0f", i ? "," : "",
				t - prev, (double)llround(c->g1 - c->g0),
				c->fn, c->site, (double)llround(c->wait));
			prev = t;
		}
		fputs("],\"bins\":", f);
		write_bins(f, v, l);
		fputc('}', f);
	}
	fputs("],\n\"msgs\":[", f);
	for (i = 0; i < 4 * v->nmsgs; i++)
		fprintf(f, "%s%.0f", i ? "," : "", v->msgs[i]);
	fputs("],\n\"matrix\":{", f);
	if (v->have_mx) {
		block = (v->mx.n + HEAT_MAX - 1) / HEAT_MAX;
		fprintf(f, "\"n\":%d,\"block\":%d", (v->mx.n + block - 1) / block,
			block);
		write_heat(f, "p2p", &v->mx.p2p, v->mx.n, block);
		write_heat(f, "coll", &v->mx.coll, v->mx.n, block);
	} else {
		fputs("\"n\":0,\"block\":1,\"p2p\":[],\"p2pm\":[],\"coll\":[],"
		      "\"collm\":[]", f);
	}
	fputs("}}\n</script>\n", f);
}

static void swatch(FILE *f, const char *colour)
{
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>",
		colour);
}

static const char *fn_colour(const struct view *v, uint16_t fn)
{
	return cat_colour(v->cat_of[fn]);
}

static void write_head(FILE *f, const struct view *v)
{
	const struct st_scan *s = v->scan;
	char a[32], b[32], line[512];
	struct st_blame bl;
	int r, c;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\""
	      "utf-8\">\n<title>synctrace view: ", f);
	esc(f, s->dir);
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:1em;"
	      "font-size:14px}\ntable{border-collapse:collapse;margin:.5em 0}"
	      "\ntd,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
	      "font-size:13px}\ntd.l,th.l{text-align:left}\n.sw{display:"
	      "inline-block;width:10px;height:10px;margin-right:4px;border:"
	      "1px solid #888}\n#st-tip{position:absolute;display:none;"
	      "background:#ffe;border:1px solid #999;padding:3px;font-size:"
	      "12px;pointer-events:none;max-width:600px}\n#st-wrap{border:1px "
	      "solid #ccc}\n#st-timeline{cursor:grab;display:block}\n.verdict{"
	      "font-weight:bold}\n.warn{color:#a00}\n#st-errors{color:#c00;"
	      "white-space:pre}\n.legend span{margin-right:12px;white-space:"
	      "nowrap}\n.heat{display:inline-block;vertical-align:top;"
	      "margin-right:2em}\n</style>\n</head>\n<body>\n<h1>", f);
	esc(f, s->dir);
	fputs("</h1>\n<table>\n<tr><th class=\"l\">command</th><td class=\"l\">",
	      f);
	esc(f, s->cmdline ? s->cmdline : "unknown");
	fprintf(f, "</td></tr>\n<tr><th class=\"l\">ranks</th><td class=\"l\">"
		"n=%d declared, n=%d read, n=%d with global time%s</td></tr>\n",
		s->nranks, s->nread, s->nsynced, s->complete == 0 ?
		" (run incomplete: not every rank finished)" : "");
	fputs("<tr><th class=\"l\">clock</th><td class=\"l\">", f);
	esc(f, s->clock ? s->clock : "unknown");
	fprintf(f, "; synchronised by %s</td></tr>\n<tr><th class=\"l\">shown"
		"</th><td class=\"l\">%s of global time from %s (rank 0's "
		"clock origin: 0); n=%" PRIu64 " of n=%" PRIu64 " calls drawn "
		"one by one", s->sync_method < 0 ? "nothing" :
		st_sync_method_name(s->sync_method),
		st_fmt_ns(v->span, a, sizeof(a)),
		st_fmt_ns(v->origin, b, sizeof(b)), v->st->kept,
		v->st->calls);
	if (v->min_ns)
		fprintf(f, " (those of %s and longer; the rest only in each "
			"lane's %zu bins)", st_fmt_ns((double)v->min_ns, a,
						      sizeof(a)), v->nbins);
	fprintf(f, "; n=%" PRIu64 " of n=%" PRIu64 " messages as lines</td>"
		"</tr>\n</table>\n", v->st->kept_messages, v->st->messages);
	st_blame_find(s, &bl);
	fputs("<p class=\"verdict\" id=\"st-verdict\">", f);
	esc(f, st_blame_verdict(s, &bl, line, sizeof(line)));
	fputs("</p>\n", f);
	if (st_blame_oversubscribed(s, line, sizeof(line))) {
		fputs("<p class=\"warn\" id=\"st-oversubscribed\">", f);
		esc(f, line);
		fputs("</p>\n", f);
	}
	fputs("<div id=\"st-errors\"></div>\n<h2>Timeline</h2>\n<p>Wheel: zoom "
	      "at the pointer; drag: move; double click: all.  <button id=\""
	      "st-in\">zoom in</button> <button id=\"st-out\">zoom out"
	      "</button> <button id=\"st-reset\">all</button></p>\n<p class=\""
	      "legend\">", f);
	for (c = 0; c < NCAT; c++) {
		if (c < NTOP && c >= v->ntop)
			continue;
		fputs("<span>", f);
		swatch(f, cat_colour(c));
		if (c < v->ntop)
			esc(f, st_fn_name(v->top[c], line, sizeof(line)));
		else
			fputs(c == CAT_OTHER ? "other functions" :
			      "waiting for the last rank (blocking collectives)",
			      f);
		fputs("</span>", f);
	}
	fputs("<span>&#8212; message (send entry to receive exit)</span></p>\n"
	      "<div id=\"st-wrap\"><canvas id=\"st-timeline\" width=\"1000\" "
	      "height=\"100\"></canvas></div>\n<p id=\"st-status\"></p>\n"
	      "<ol id=\"st-lanes\" start=\"0\" style=\"display:none\"></ol>\n"
	      "<div id=\"st-tip\"></div>\n", f);
	(void)r;
}

static void write_tables(FILE *f, struct view *v)
{
	const struct st_scan *s = v->scan;
	const struct st_imb_row *rows;
	const struct st_imb_blame *ball;
	char a[32], b[32], c[32], nm[64], site[256];
	uint64_t mpi = 0, *order;
	size_t i, j, n, top;
	int r, nball;
	unsigned fn, nfn = st_fn_count();

	for (fn = 1; fn < nfn; fn++)
		mpi += s->fn[fn].time_ns;
	fprintf(f, "<h2>Functions</h2>\n<p>Time in each MPI function, summed "
		"over n=%d ranks (local clocks), MPI_Init and MPI_Finalize "
		"included.</p>\n<table id=\"st-fns\">\n<tr><th class=\"l\">"
		"function</th><th>calls</th><th>time</th><th>%% of the time in "
		"MPI</th></tr>\n", s->nread);
	order = malloc(nfn * sizeof(*order));
	if (!order) {
		v->rc = -ENOMEM;
		return;
	}
	for (fn = 1, n = 0; fn < nfn; fn++)
		if (s->fn[fn].calls)
			order[n++] = fn;
	for (i = 1; i < n; i++)	/* few functions: insertion sort */
		for (j = i; j > 0 && s->fn[order[j]].time_ns >
				     s->fn[order[j - 1]].time_ns; j--) {
			uint64_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		const struct st_scan_fn *x = &s->fn[order[i]];

		fputs("<tr><td class=\"l\">", f);
		swatch(f, fn_colour(v, (uint16_t)order[i]));
		esc(f, st_fn_name((unsigned)order[i], nm, sizeof(nm)));
		fprintf(f, "</td><td>n=%" PRIu64 "</td><td>%s</td><td>%.1f %%"
			"</td></tr>\n", x->calls,
			st_fmt_ns((double)x->time_ns, a, sizeof(a)),
			mpi ? 100.0 * (double)x->time_ns / (double)mpi : 0.0);
	}
	free(order);
	fputs("</table>\n", f);

	ball = st_imb_blame_all(s->imb, &nball);
	fputs("<h2>Ranks</h2>\n<p>Run time: from the end of MPI_Init to the "
	      "start of MPI_Finalize, on each rank's clock; MPI time: its "
	      "calls in between.  Last arrivals and the waiting they caused: "
	      "over every blocking collective instance longer than the clock "
	      "error.</p>\n<table id=\"st-ranks\">\n<tr><th>rank</th><th class"
	      "=\"l\">host</th><th>run time</th><th>MPI time</th><th>MPI %"
	      "</th><th>arrived last</th><th>waiting caused</th></tr>\n", f);
	for (r = 0; r < s->nranks; r++) {
		const struct st_scan_rank *x = &s->rank[r];

		if (!x->read)
			continue;
		fprintf(f, "<tr><td>%d</td><td class=\"l\">", r);
		esc(f, x->host ? x->host : "?");
		fprintf(f, "</td><td>%s</td><td>%s</td><td>", x->have_run ?
			st_fmt_ns((double)x->run_ns, a, sizeof(a)) : "-",
			st_fmt_ns((double)x->mpi_ns, b, sizeof(b)));
		if (x->have_run)
			fprintf(f, "%.1f %%", 100.0 * (double)x->mpi_ns /
				(double)x->run_ns);
		else
			fputc('-', f);
		fprintf(f, "</td><td>n=%" PRIu64 "</td><td>%s</td></tr>\n",
			r < nball ? ball[r].last : 0,
			st_fmt_ns(r < nball ? ball[r].caused_ns : 0, c,
				  sizeof(c)));
	}
	fputs("</table>\n", f);

	rows = st_imb_by_site(s->imb, &n);
	fprintf(f, "<h2>Imbalance by call site</h2>\n<p>Blocking collectives "
		"matched across ranks in global time; waiting: from each "
		"rank's arrival to the last arrival, summed over ranks; the "
		"rank that caused most of it, how often it arrived last and "
		"its share of the waiting.  Top %d by waiting.</p>\n<table id="
		"\"st-sites\">\n<tr><th class=\"l\">function</th><th class="
		"\"l\">call site</th><th>instances</th><th>waiting</th><th>"
		"after last arrival</th><th>latest rank</th><th>arrived last"
		"</th><th>%% of waiting</th></tr>\n", v->o->top);
	order = malloc((n + 1) * sizeof(*order));
	if (!order) {
		v->rc = -ENOMEM;
		return;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && rows[order[j]].s.wait_ns >
				     rows[order[j - 1]].s.wait_ns; j--) {
			uint64_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	top = n < (size_t)v->o->top ? n : (size_t)v->o->top;
	for (i = 0; i < top; i++) {
		const struct st_imb_row *x = &rows[order[i]];
		int worst = -1;

		for (r = 0; r < x->nblame; r++)
			if (x->blame[r].last && (worst < 0 ||
			    x->blame[r].caused_ns > x->blame[worst].caused_ns))
				worst = r;
		fputs("<tr><td class=\"l\">", f);
		swatch(f, fn_colour(v, x->fn));
		esc(f, st_fn_name(x->fn, nm, sizeof(nm)));
		fputs("</td><td class=\"l\">", f);
		esc(f, st_scan_site_label(s, x->sym, site, sizeof(site)));
		fprintf(f, "</td><td>n=%" PRIu64 " (n=%" PRIu64 " flagged)</td>"
			"<td>%s</td><td>%s</td>", x->s.n, x->s.flagged,
			st_fmt_ns(x->s.wait_ns, a, sizeof(a)),
			st_fmt_ns(x->s.after_ns, b, sizeof(b)));
		if (worst >= 0 && x->s.n)
			fprintf(f, "<td>%d</td><td>%.0f %% (n=%" PRIu64 ")</td>"
				"<td>%.0f %%</td></tr>\n", worst, 100.0 *
				(double)x->blame[worst].last / (double)x->s.n,
				x->blame[worst].last, x->s.wait_ns > 0 ?
				100.0 * x->blame[worst].caused_ns /
				x->s.wait_ns : 0.0);
		else
			fputs("<td>-</td><td>-</td><td>-</td></tr>\n", f);
	}
	free(order);
	fputs("</table>\n", f);

	fputs("<h2>Who talks to whom</h2>\n", f);
	if (!v->have_mx) {
		fprintf(f, "<p>No matrix: more than %d ranks.</p>\n",
			ST_MATRIX_MAX_RANKS);
		return;
	}
	{
		double pb, cb;
		uint64_t pm, cm, pp, cp;

		st_matrix_sum(&v->mx.p2p, v->mx.n, &pb, &pm, &pp);
		st_matrix_sum(&v->mx.coll, v->mx.n, &cb, &cm, &cp);
		fprintf(f, "<p>Bytes from each sender (row) to each receiver "
			"(column), darker for more (log scale); hover for the "
			"figures.  Point-to-point: %s in n=%" PRIu64 " messages "
			"between n=%" PRIu64 " pairs, counted at the sender.  "
			"Collectives: %s in n=%" PRIu64 " transfers between n=%"
			PRIu64 " pairs, as each operation's definition moves "
			"data (not the MPI library's own messages)",
			st_fmt_bytes((uint64_t)pb, a, sizeof(a)), pm, pp,
			st_fmt_bytes((uint64_t)cb, b, sizeof(b)), cm, cp);
		if (v->mx.coll_unattributed_calls)
			fprintf(f, "; n=%" PRIu64 " calls (%s) not attributed "
				"to pairs (neighbourhood collectives, "
				"inter-communicators)",
				v->mx.coll_unattributed_calls,
				st_fmt_bytes((uint64_t)v->mx.coll_unattributed,
					     c, sizeof(c)));
		fputs(".</p>\n<div class=\"heat\"><h3>point-to-point</h3>"
		      "<canvas id=\"st-heat-p2p\"></canvas></div><div class=\""
		      "heat\"><h3>collectives</h3><canvas id=\"st-heat-coll\">"
		      "</canvas></div>\n", f);
	}
}

int st_view_write(FILE *f, struct st_scan *scan,
		  const struct st_view_opts *opts, struct st_view_stats *st)
{
	struct st_view_opts o = *opts;
	struct view *v;
	size_t cells;
	int r, rc, k;

	if (!o.max_calls)
		o.max_calls = 400000;
	if (!o.max_messages)
		o.max_messages = 100000;
	if (o.top <= 0)
		o.top = 20;
	memset(st, 0, sizeof(*st));
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->scan = scan;
	v->o = &o;
	v->st = st;
	v->origin = isnan(scan->g_min) ? 0 : floor(scan->g_min);
	v->span = isnan(scan->g_max) ? 1 : scan->g_max - v->origin;
	if (!(v->span > 0))
		v->span = 1;
	v->lane0 = malloc((size_t)scan->nranks * sizeof(*v->lane0));
	v->fn_idx = calloc(65536, sizeof(*v->fn_idx));
	v->fns = calloc(65536, sizeof(*v->fns));
	v->p2p = st_p2p_new(scan);
	if (!v->lane0 || !v->fn_idx || !v->fns || !v->p2p)
		goto oom;
	for (r = 0; r < scan->nranks; r++) {
		const struct st_scan_rank *x = &scan->rank[r];

		v->lane0[r] = -1;
		if (!x->read || !st_gclock_epochs(x->clk))
			continue;
		v->lane0[r] = v->nlanes;
		v->nlanes += x->nthreads ? (int)x->nthreads : 1;
	}
	st->lanes = v->nlanes;
	v->lanes = calloc((size_t)v->nlanes + 1, sizeof(*v->lanes));
	if (!v->lanes)
		goto oom;
	cells = v->nlanes ? MAX_CELLS / (size_t)v->nlanes : MAX_BINS;
	v->nbins = cells > MAX_BINS ? MAX_BINS : cells < 16 ? 16 : cells;
	v->binw = v->span / (double)v->nbins;
	for (r = 0; r < scan->nranks; r++)
		for (k = 0; v->lane0[r] >= 0 &&
			    k < (int)(scan->rank[r].nthreads ?
				      scan->rank[r].nthreads : 1); k++) {
			struct lane *l = &v->lanes[v->lane0[r] + k];

			l->rank = r;
			l->thread = k;
			l->bins = calloc(v->nbins * NCAT, sizeof(float));
			if (!l->bins)
				goto oom;
		}
	if (pick_colours(v))
		goto oom;
	rc = st_matrix_init(&v->mx, scan->nranks);
	if (rc == -ENOMEM)
		goto oom;
	v->have_mx = !rc;
	rc = st_scan_sweep(scan, sweep, v);
	if (rc)
		goto out;
	if (v->have_mx)
		st_matrix_finish(&v->mx, scan);
	pick_threshold(v, o.max_calls);
	st->min_ns = (double)v->min_ns;
	st_imb_set_hook(scan->imb, on_instance, v);
	rc = st_scan_walk(scan, on_record, v);
	st_imb_set_hook(scan->imb, NULL, NULL);
	if (rc)
		goto out;
	write_head(f, v);
	write_tables(f, v);
	write_data(f, v);
	fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", view_js);
	rc = v->rc ? v->rc : ferror(f) ? -EIO : 0;
	goto out;
oom:
	rc = -ENOMEM;
out:
	for (k = 0; v->lanes && k < v->nlanes; k++) {
		free(v->lanes[k].v);
		free(v->lanes[k].bins);
	}
	free(v->lanes);
	free(v->lane0);
	free(v->fn_idx);
	free(v->fns);
	free(v->sites);
	free(v->msgs);
	st_u64map_release(&v->site_idx);
	st_p2p_free(v->p2p);
	if (v->have_mx)
		st_matrix_release(&v->mx);
	free(v);
	return rc;
}
