/*
 * pmpi/site.c: call sites.  A call site is keyed by the wrapper's return
 * address; the first time a key is seen, libunwind walks the stack once
 * (in a cold function, outside the timed window) and the frames go into
 * the trace as an ST_REC_SITE record.  Later calls cost one hash probe.
 * Calls that arrive through the MPI's Fortran bindings (the libraries
 * wrappers.def names for it) all return into the bindings, so for them
 * the key is the first frame outside the bindings, found by a short
 * unwind on every such call.  The bindings' text is found at load, and
 * again for bindings the program loads later (dlopen()).
 *
 * ST_REC_OBJECT records give each loaded object's path and load base, so
 * tools can turn frames into function and file:line offline; they are
 * written at MPI_Init and again whenever the dynamic loader has added
 * objects since.
 */
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "pmpi/hooks.h"
#include "pmpi/internal.h"

#define CAP 65536	/* power of two */

struct site {
	_Atomic(uintptr_t) key;
	uint32_t id;
};

static struct site table[CAP];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nsites;
static unsigned long long seen_adds;	/* dlpi_adds at the last scan */
#define MAX_FORT 8
static uintptr_t fort_lo[MAX_FORT], fort_hi[MAX_FORT]; /* bindings' text */
static atomic_int nfort;	/* entries above in use, published last */
static uintptr_t self_lo, self_hi;	/* this library's text */
/*
 * Bindings loaded after this library (a program that dlopen()s a plugin
 * written in Fortran): the loaded objects are scanned again when the
 * loader has added some since 'fort_adds'.  'not_fort' remembers return
 * addresses seen outside the bindings since, so that each costs one
 * scan at most: a set (open addressing, added to under 'fort_lock',
 * never evicting), as two addresses that took turns in one slot of a
 * cache would each lock and ask the loader on every call.  Once it is
 * half full, further addresses take that path.
 */
#define NOT_FORT 4096	/* power of two */
static _Atomic(uintptr_t) not_fort[NOT_FORT];
static unsigned n_not_fort;
static unsigned long long fort_adds;
static pthread_mutex_t fort_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned hash(uintptr_t k)
{
	return (unsigned)((k * 0x9e3779b97f4a7c15ull) >> (64 - 16));
}

/* Whether 'a' is in 'not_fort'. */
static int known_not_fort(uintptr_t a)
{
	unsigned i, n;

	for (i = hash(a) & (NOT_FORT - 1), n = 0; n < NOT_FORT;
	     n++, i = (i + 1) & (NOT_FORT - 1)) {
		uintptr_t k = atomic_load_explicit(&not_fort[i],
						   memory_order_relaxed);

		if (k == a)
			return 1;
		if (!k)
			return 0;
	}
	return 0;
}

/* Put 'a' (not yet there) into 'not_fort'; with 'fort_lock' held. */
static void add_not_fort(uintptr_t a)
{
	unsigned i = hash(a) & (NOT_FORT - 1);

	if (n_not_fort >= NOT_FORT / 2)
		return;
	while (atomic_load_explicit(&not_fort[i], memory_order_relaxed))
		i = (i + 1) & (NOT_FORT - 1);
	atomic_store_explicit(&not_fort[i], a, memory_order_relaxed);
	n_not_fort++;
}

/* 'a' lies in the text of the bindings found so far. */
static int in_fortran(uintptr_t a)
{
	int i, n = atomic_load_explicit(&nfort, memory_order_acquire);

	for (i = 0; i < n; i++)
		if (a >= fort_lo[i] && a < fort_hi[i])
			return 1;
	return 0;
}

/* 'name' (a loaded object's path) is one of the Fortran bindings. */
static int fortran_lib(const char *name)
{
	const char *base = strrchr(name, '/');
	size_t i, n;

	base = base ? base + 1 : name;
	for (i = 0; st_gen_fortran_libs[i]; i++) {
		n = strlen(st_gen_fortran_libs[i]);
		if (!strncmp(base, st_gen_fortran_libs[i], n) &&
		    (base[n] == '.' || base[n] == '\0'))
			return 1;
	}
	return 0;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data);
static void find_fortran(void *first);

/*
 * in_fortran() of 'a' not in the bindings found so far: look again when
 * the loader has added objects since the last look.
 */
static __attribute__((cold, noinline)) int fortran_late(uintptr_t a)
{
	unsigned long long adds = 0;
	int in;

	pthread_mutex_lock(&fort_lock);
	dl_iterate_phdr(count_adds, &adds);
	if (adds != fort_adds) {
		fort_adds = adds;
		find_fortran(NULL);
	}
	in = in_fortran(a);
	if (!in && !known_not_fort(a))
		add_not_fort(a);
	pthread_mutex_unlock(&fort_lock);
	return in;
}

/*
 * Whether 'a' (a return address) lies in the bindings, those loaded
 * after this library too.
 */
static int from_fortran(uintptr_t a)
{
	if (in_fortran(a))
		return 1;
	if (known_not_fort(a))
		return 0;
	return fortran_late(a);
}

int st_from_fortran(void *ra)
{
	return from_fortran((uintptr_t)ra);
}

uintptr_t st_load_span(const struct dl_phdr_info *info, unsigned flags,
		       uintptr_t *hi)
{
	uintptr_t lo = UINTPTR_MAX;
	int i;

	*hi = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type != PT_LOAD || (p->p_flags & flags) != flags)
			continue;
		if (a < lo)
			lo = a;
		if (a + p->p_memsz > *hi)
			*hi = a + p->p_memsz;
	}
	return lo;
}

/*
 * Add the text of 'info' to the bindings' when it is theirs and new:
 * readers see an entry only once it is whole (nfort is stored last).
 * Entries are never taken out: a binding library is not unloaded while
 * the MPI it calls is in use.  A non-NULL 'data' (the first scan, before
 * any thread can race) also finds this library's own text.
 */
static int find_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t lo, hi, me = (uintptr_t)st_site_init;
	int i, n = atomic_load_explicit(&nfort, memory_order_relaxed);

	(void)size;
	lo = st_load_span(info, PF_X, &hi);
	if (data && me >= lo && me < hi) {
		self_lo = lo;
		self_hi = hi;
	}
	if (!fortran_lib(info->dlpi_name) || n >= MAX_FORT || lo >= hi)
		return 0;
	for (i = 0; i < n; i++)
		if (fort_lo[i] == lo)
			return 0;
	fort_lo[n] = lo;
	fort_hi[n] = hi;
	atomic_store_explicit(&nfort, n + 1, memory_order_release);
	return 0;
}

/*
 * Scan the loaded objects for the bindings, with 'fort_lock' held or
 * before any thread can race; the addresses remembered as outside them
 * are forgotten, as an object loaded since may lie where another was.
 */
static void find_fortran(void *first)
{
	unsigned i;

	dl_iterate_phdr(find_ranges, first);
	for (i = 0; i < NOT_FORT; i++)
		atomic_store_explicit(&not_fort[i], 0, memory_order_relaxed);
	n_not_fort = 0;
}

void st_site_init(void)
{
	dl_iterate_phdr(count_adds, &fort_adds);
	find_fortran(&fort_adds);
}

/* Emit an ST_REC_OBJECT for each object (all of them when 'all'). */
static int emit_object(struct dl_phdr_info *info, size_t size, void *data)
{
	static char exe[PATH_MAX];
	struct st_event ev;
	uintptr_t lo, hi;
	const char *name = info->dlpi_name;

	(void)size;
	(void)data;
	lo = st_load_span(info, 0, &hi);
	if (!name[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return 0;
		exe[n] = '\0';
		name = exe;
	}
	if (hi <= lo || !strncmp(name, "linux-vdso", 10))
		return 0;
	st_event_clear(&ev);
	ev.kind = ST_REC_OBJECT;
	ev.addr = info->dlpi_addr;	/* load bias: frame - addr = file vaddr */
	ev.len = hi - lo;
	ev.text = name;
	ev.text_len = (uint32_t)strlen(name);
	st_emit(&ev);
	return 0;
}

static int count_adds(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(unsigned long long *)data = info->dlpi_adds;
	return 1;
}

/* Called with 'lock' held or before any thread can race. */
static void objects_emit_locked(void)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(count_adds, &adds);
	if (adds == seen_adds)
		return;
	seen_adds = adds;
	dl_iterate_phdr(emit_object, NULL);
}

void st_objects_emit(void)
{
	pthread_mutex_lock(&lock);
	objects_emit_locked();
	pthread_mutex_unlock(&lock);
}

/*
 * The stack above this call: frames from the application's caller of MPI
 * outward.  Returns the number in 'frames' (at most 'max').
 */
static int unwind(uintptr_t *frames, int max, uintptr_t ra)
{
	void *buf[ST_MAX_FRAMES + 16];
	int n, i, k = -1, m = 0;

	n = unw_backtrace(buf, ST_MAX_FRAMES + 16);
	for (i = 0; i < n; i++)
		if ((uintptr_t)buf[i] == ra) {
			k = i;
			break;
		}
	if (k < 0) {
		/* The wrapper's frame was not seen: skip our own frames. */
		for (k = 0; k < n && (uintptr_t)buf[k] >= self_lo &&
			    (uintptr_t)buf[k] < self_hi; k++)
			;
	}
	for (i = k; i < n && m < max; i++) {
		/* Through the Fortran bindings: start at the user's frame. */
		if (m == 0 && in_fortran((uintptr_t)buf[i]))
			continue;
		frames[m++] = (uintptr_t)buf[i];
	}
	return m;
}

static __attribute__((cold, noinline)) uint32_t site_new(uintptr_t key,
							  uintptr_t ra)
{
	struct st_event ev;
	uintptr_t frames[ST_MAX_FRAMES];
	unsigned i = hash(key), n;
	uint32_t id = 0;
	int nf, j;

	pthread_mutex_lock(&lock);
	for (n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uintptr_t k = atomic_load_explicit(&table[i].key,
						   memory_order_relaxed);

		if (k == key) {
			id = table[i].id;
			goto out;
		}
		if (!k)
			break;
	}
	if (n == CAP || nsites >= CAP / 2)
		goto out;	/* full: the site stays unknown (0) */
	nf = unwind(frames, st_set.depth, ra);
	if (nf == 0) {
		frames[0] = ra;
		nf = 1;
	}
	objects_emit_locked();
	id = ++nsites;
	st_event_clear(&ev);
	ev.kind = ST_REC_SITE;
	ev.site = id;
	ev.nframes = (uint32_t)nf;
	for (j = 0; j < nf; j++)
		ev.frames[j] = frames[j];
	st_emit(&ev);
	table[i].id = id;
	atomic_store_explicit(&table[i].key, key, memory_order_release);
out:
	pthread_mutex_unlock(&lock);
	return id;
}

/* Key of a call that came through the Fortran bindings. */
static __attribute__((cold, noinline)) uintptr_t fortran_key(uintptr_t ra)
{
	uintptr_t f[1];

	return unwind(f, 1, ra) ? f[0] : ra;
}

/*
 * The site of 'ra' in the table, made when new; '*fortran' says whether
 * the call came through the Fortran bindings.
 */
static uint32_t site_find(void *ra, int *fortran)
{
	uintptr_t key = (uintptr_t)ra;
	unsigned i, n;

	*fortran = from_fortran(key);
	if (!st_set.depth)
		return 0;
	if (*fortran)
		key = fortran_key(key);
	for (i = hash(key), n = 0; n < CAP; n++, i = (i + 1) & (CAP - 1)) {
		uintptr_t k = atomic_load_explicit(&table[i].key,
						   memory_order_acquire);

		if (k == key)
			return table[i].id;
		if (!k)
			break;
	}
	return site_new(key, (uintptr_t)ra);
}

/*
 * st_site_get() of a call from 'ra' not in this thread's cache: from
 * the table, then cached, but for a call through the Fortran bindings,
 * whose site is the caller's frame.
 */
__attribute__((noinline)) uint32_t st_site_fill(void *ra)
{
	int fortran;
	uint32_t site = site_find(ra, &fortran);
	struct st_csite *cs;

	if (fortran)
		return site;
	if (!st_tls.csite)
		st_tls_adopt();
	if (!st_tls.csite) {
		st_tls.csite = calloc(1u << ST_CSITE_BITS,
				      sizeof(*st_tls.csite));
		if (!st_tls.csite)
			return site;
	}
	cs = st_csite_slot(st_tls.csite, ra);
	cs->ra = ra;
	cs->site = site;
	return site;
}
