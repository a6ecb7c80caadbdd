# synctrace: one non-recursive Makefile, all output under $(BUILD)/.
# `make` builds libsynctrace.so and the synctrace command; see README.md.

MPICC ?= mpicc.mpich
MPIFC ?= mpif90.mpich
MPIEXEC ?= mpiexec.mpich
# The second build, for Open MPI (docs/mpis.md): libsynctrace-openmpi.so
# beside libsynctrace.so, its objects under $(BUILD)/openmpi/.
# NO_OPENMPI=1 builds without it.
OMPICC ?= mpicc.openmpi
OMPIFC ?= mpif90.openmpi
OMPIEXEC ?= mpiexec.openmpi
CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
SAN ?=

ifeq ($(SAN),)
BUILD ?= build
SANFLAGS :=
else
BUILD ?= build-san
SANFLAGS := -fsanitize=$(SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

ALL_CFLAGS = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -I$(BUILD) \
	-MMD -MP -fPIC -fvisibility=hidden $(SANFLAGS) $(CFLAGS)
LIB_CFLAGS = $(ALL_CFLAGS)
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)

# The command exports OTF2 when the OTF2 library is there (Debian
# libotf2-trace-dev); without it everything else builds and 'synctrace
# export --format otf2' says what is missing.  NO_OTF2=1 builds without.
ifneq ($(NO_OTF2),1)
HAVE_OTF2 := $(shell pkg-config --exists otf2 2>/dev/null && echo 1)
endif
ifneq ($(NO_OPENMPI),1)
HAVE_OPENMPI := $(shell command -v $(OMPICC) >/dev/null 2>&1 && echo 1)
endif

ifeq ($(HAVE_OTF2),1)
OTF2_CFLAGS := -DST_HAVE_OTF2 $(shell pkg-config --cflags otf2)
OTF2_LIBS := $(shell pkg-config --libs otf2)
endif

ifneq ($(V),1)
Q = @
say = @printf '  %-8s %s\n' $(1) $(2);
else
Q =
say =
endif

# Sources.  pmpi/ files that do not include mpi.h are listed in PMPI_PURE
# and built with $(CC) so unit tests can link them.
WRITER_SRC := $(sort $(wildcard writer/*.c))
SYNC_SRC := $(sort $(wildcard sync/*.c))
PMPI_PURE := pmpi/bytes.c pmpi/config.c pmpi/idle.c
PMPI_SRC := $(filter-out $(PMPI_PURE),$(sort $(wildcard pmpi/*.c)))
GEN_SRC := $(sort $(wildcard tools/gen/*.c))
ANALYSIS_SRC := $(sort $(wildcard tools/analysis/*.c))
CLI_SRC := $(sort $(wildcard tools/cli/*.c))
TOOL_SRC := $(ANALYSIS_SRC) $(CLI_SRC)
# gen-trace.c is a program of its own, without MPI (make bench's trace).
GENTRACE_SRC := tools/bench/gen-trace.c
BENCH_SRC := $(filter-out $(GENTRACE_SRC),$(sort $(wildcard tools/bench/*.c)))
UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
APP_C := $(sort $(wildcard tests/integration/apps/*.c))
APP_F := $(sort $(wildcard tests/integration/apps/*.f90))

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
WRITER_OBJ := $(call obj,$(WRITER_SRC))
SYNC_OBJ := $(call obj,$(SYNC_SRC))
PURE_OBJ := $(call obj,$(PMPI_PURE))
PMPI_OBJ := $(call obj,$(PMPI_SRC)) $(BUILD)/gen/wrappers.o
GEN_OBJ := $(call obj,$(GEN_SRC))
TOOL_OBJ := $(call obj,$(TOOL_SRC))
BENCH_OBJ := $(call obj,$(BENCH_SRC))
UNIT_OBJ := $(call obj,$(UNIT_SRC))
APPS := $(patsubst tests/integration/apps/%.c,$(BUILD)/apps/%,$(APP_C)) \
	$(patsubst tests/integration/apps/%.f90,$(BUILD)/apps/%,$(APP_F))

LIB := $(BUILD)/libsynctrace.so
OBUILD := $(BUILD)/openmpi
OLIB := $(BUILD)/libsynctrace-openmpi.so
OPMPI_OBJ := $(patsubst %.c,$(OBUILD)/%.o,$(PMPI_SRC)) \
	$(OBUILD)/gen/wrappers.o
OBENCH := $(OBUILD)/synctrace-bench
OBENCH_OBJ := $(patsubst %.c,$(OBUILD)/%.o,$(BENCH_SRC))
OAPPS := $(patsubst tests/integration/apps/%.c,$(OBUILD)/apps/%,$(APP_C)) \
	$(patsubst tests/integration/apps/%.f90,$(OBUILD)/apps/%,$(APP_F))
# What the Open MPI build adds to 'all' and to the tests.
OMPI_ALL := $(if $(HAVE_OPENMPI),$(OLIB) $(if $(BENCH_SRC),$(OBENCH)))
OMPI_TEST := $(if $(HAVE_OPENMPI),$(OLIB) $(addprefix $(OBUILD)/apps/,\
	p2p p2p-more fort-f77 fort-mod fort-f08 bench-calls io dlfort \
	threads-p2p))
SBUILD := $(BUILD)/selftime
SLIB := $(SBUILD)/libsynctrace.so
SPMPI_OBJ := $(patsubst %.c,$(SBUILD)/%.o,$(PMPI_SRC)) \
	$(SBUILD)/gen/wrappers.o
CLI := $(BUILD)/synctrace
GEN := $(BUILD)/gen-wrappers
BENCH := $(BUILD)/synctrace-bench
GENTRACE := $(BUILD)/gen-trace
UNIT := $(BUILD)/unit-tests
HEADERS := $(sort $(wildcard writer/*.h sync/*.h pmpi/*.h tools/*/*.h))

# The version, from one place: the VERSION file, plus the commit when this
# is a git checkout (tools/gen/version.sh).  Compiled in through
# $(BUILD)/gen/version.h, rewritten only when it changes.
ST_VERSION := $(shell sh tools/gen/version.sh)
GEN_H := $(BUILD)/gen/ops.h $(BUILD)/gen/version.h

.PHONY: all deps demo test check-unit check-integration check-headers \
	check-exports check-coverage check-man check-python check-fuzz \
	conformance bench validate validate-net real-apps man install uninstall \
	clean FORCE fuzz fuzz-build fuzz-targets
.DELETE_ON_ERROR:

MAN := $(BUILD)/man/synctrace.1

all: $(LIB) $(CLI) $(if $(BENCH_SRC),$(BENCH)) $(MAN) $(OMPI_ALL)

deps:
	$(Q)sh tools/scripts/install-deps.sh $(DEPS_EXTRA)

# Generated code: one run writes both files (grouped target).
$(BUILD)/gen/wrappers.c $(BUILD)/gen/ops.h &: wrappers.def $(GEN)
	$(call say,GEN,$@)$(GEN) wrappers.def $(BUILD)/gen

$(BUILD)/gen/version.h: FORCE
	@mkdir -p $(@D)
	$(Q)printf '%s\n' \
		'/* Generated from VERSION by tools/gen/version.sh. Do not edit. */' \
		'#ifndef ST_GEN_VERSION_H' '#define ST_GEN_VERSION_H' \
		'#define ST_VERSION "$(ST_VERSION)"' '#endif' > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(GEN): $(GEN_OBJ)
	$(call say,LINK,$@)$(CC) -o $@ $^ $(LDFLAGS_ALL)

$(GEN_OBJ) $(WRITER_OBJ) $(SYNC_OBJ) $(PURE_OBJ): $(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Everything that may include gen/ops.h or gen/version.h waits for them.
$(TOOL_OBJ) $(UNIT_OBJ) $(call obj,$(GENTRACE_SRC)): $(BUILD)/%.o: %.c \
		| $(GEN_H)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(call obj,$(PMPI_SRC)) $(BENCH_OBJ): $(BUILD)/%.o: %.c | $(GEN_H)
	@mkdir -p $(@D)
	$(call say,MPICC,$@)$(MPICC) $(LIB_CFLAGS) -c -o $@ $<

$(BUILD)/gen/wrappers.o: $(BUILD)/gen/wrappers.c
	$(call say,MPICC,$@)$(MPICC) $(LIB_CFLAGS) -c -o $@ $<

$(LIB): $(PMPI_OBJ) $(PURE_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(MPICC) -shared -Wl,-z,defs -o $@ $^ $(LDFLAGS_ALL) \
		-lunwind -lz -ldl -lm -lpthread

# The Open MPI build: the same sources, wrappers.c for 'mpi openmpi',
# compiled with $(OMPICC); gen/ops.h is the same for every MPI.
$(OBUILD)/gen/wrappers.c: wrappers.def $(GEN) | $(BUILD)/gen/ops.h
	$(call say,GEN,$@)$(GEN) --mpi=openmpi wrappers.def $(OBUILD)/gen

$(OBUILD)/gen/wrappers.o: $(OBUILD)/gen/wrappers.c
	$(call say,OMPICC,$@)$(OMPICC) $(LIB_CFLAGS) -c -o $@ $<

$(filter-out $(OBUILD)/gen/wrappers.o,$(OPMPI_OBJ)) $(OBENCH_OBJ): \
		$(OBUILD)/%.o: %.c | $(BUILD)/gen/ops.h
	@mkdir -p $(@D)
	$(call say,OMPICC,$@)$(OMPICC) $(LIB_CFLAGS) -c -o $@ $<

$(OLIB): $(OPMPI_OBJ) $(PURE_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(OMPICC) -shared -Wl,-z,defs -o $@ $^ \
		$(LDFLAGS_ALL) -lunwind -lz -ldl -lm -lpthread

$(OBENCH): $(OBENCH_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(OMPICC) -o $@ $^ $(LDFLAGS_ALL) -lz -lm

$(OBUILD)/apps/%: tests/integration/apps/%.c
	@mkdir -p $(@D)
	$(call say,OMPICC,$@)$(OMPICC) -std=c11 -O2 -g -Wall -Wextra -Werror \
		-o $@ $< -lm

$(OBUILD)/apps/%: tests/integration/apps/%.f90
	@mkdir -p $(@D)
	$(call say,OMPIFC,$@)$(OMPIFC) -O2 -g -J $(@D) -o $@ $<

# The self-time build (pmpi/selftime.h, `make bench`'s figure 1d): the
# interposer with -DST_SELFTIME, its objects under $(BUILD)/selftime/.
$(SBUILD)/gen/wrappers.o: $(BUILD)/gen/wrappers.c
	@mkdir -p $(@D)
	$(call say,MPICC,$@)$(MPICC) $(LIB_CFLAGS) -DST_SELFTIME -c -o $@ $<

$(filter-out $(SBUILD)/gen/wrappers.o,$(SPMPI_OBJ)): $(SBUILD)/%.o: %.c \
		| $(GEN_H)
	@mkdir -p $(@D)
	$(call say,MPICC,$@)$(MPICC) $(LIB_CFLAGS) -DST_SELFTIME -c -o $@ $<

$(SLIB): $(SPMPI_OBJ) $(PURE_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(MPICC) -shared -Wl,-z,defs -o $@ $^ $(LDFLAGS_ALL) \
		-lunwind -lz -ldl -lm -lpthread

$(BUILD)/tools/analysis/export-otf2.o: ALL_CFLAGS += $(OTF2_CFLAGS)

$(CLI): $(TOOL_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(CC) -o $@ $^ $(LDFLAGS_ALL) $(OTF2_LIBS) -ljansson \
		-lz -lm -lpthread

# Manual pages, synctrace(1) and synctrace-<command>(1) for every command
# 'synctrace --help' lists, from the help texts the command prints.  One
# run writes them all; synctrace.1 stands for the set.
$(MAN): $(CLI) tools/gen/man.sh
	$(call say,MAN,$(@D))sh tools/gen/man.sh $(CLI) $(@D)

man: $(MAN)

$(BENCH): $(BENCH_OBJ) $(WRITER_OBJ) $(SYNC_OBJ)
	$(call say,LINK,$@)$(MPICC) -o $@ $^ $(LDFLAGS_ALL) -lz -lm

$(GENTRACE): $(call obj,$(GENTRACE_SRC)) $(WRITER_OBJ)
	$(call say,LINK,$@)$(CC) -o $@ $^ $(LDFLAGS_ALL) -lz

$(UNIT): $(UNIT_OBJ) $(WRITER_OBJ) $(SYNC_OBJ) $(PURE_OBJ) \
		$(filter-out $(BUILD)/tools/gen/main.o,$(GEN_OBJ)) \
		$(filter-out $(BUILD)/tools/cli/synctrace.o,$(TOOL_OBJ))
	$(call say,LINK,$@)$(CC) -o $@ $^ $(LDFLAGS_ALL) -lcriterion \
		$(OTF2_LIBS) -ljansson -lz -lm -lpthread

# Integration apps are the application's side: no sanitizer flags.
$(BUILD)/apps/%: tests/integration/apps/%.c tests/integration/apps/expect.h \
		tests/integration/apps/nm-work.h \
		tests/integration/apps/allreduces.h
	@mkdir -p $(@D)
	$(call say,MPICC,$@)$(MPICC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $< -lm

# MPI linked into the program statically (t-dlsym.sh): MPICH's archive,
# the libraries it needs as pkg-config lists them.
$(BUILD)/apps/staticmpi: tests/integration/apps/staticmpi.c
	@mkdir -p $(@D)
	$(call say,CC,$@)gcc -std=c11 -O2 -g -Wall -Wextra -Werror \
		$(shell pkg-config --cflags mpich) -o $@ $< -Wl,-Bstatic \
		-lmpich -Wl,-Bdynamic \
		$(filter-out -lmpich,$(shell pkg-config --static --libs mpich)) -lm

# Its dl_iterate_phdr() must reach the library's calls (t-fortran.sh).
$(BUILD)/apps/pmpisites: tests/integration/apps/pmpisites.c
	@mkdir -p $(@D)
	$(call say,MPICC,$@)$(MPICC) -std=c11 -O2 -g -Wall -Wextra -Werror \
		-rdynamic -o $@ $< -ldl

$(BUILD)/apps/%: tests/integration/apps/%.f90
	@mkdir -p $(@D)
	$(call say,MPIFC,$@)$(MPIFC) -O2 -g -J $(@D) -o $@ $<

check-unit: $(UNIT) $(CLI) $(if $(BENCH_SRC),$(BENCH))
	$(Q)$(UNIT) --jobs 2

check-integration: $(LIB) $(SLIB) $(CLI) $(APPS) \
		$(if $(BENCH_SRC),$(BENCH)) $(OMPI_TEST)
	$(Q)BUILD=$(BUILD) SAN=$(SAN) MPIEXEC=$(MPIEXEC) OMPIEXEC=$(OMPIEXEC) \
		sh tests/integration/run.sh

# The Python reader of runs (tools/python/synctrace.py), standard library
# only; its test of a real run is in tests/integration/t-python.sh.
check-python:
	$(Q)python3 -m unittest discover -s tools/python

# Every header compiles on its own, and every file keeps to its layer.
check-headers: $(GEN_H)
	$(Q)sh tests/check-layers.sh
	$(Q)for h in $(HEADERS); do \
		case $$h in pmpi/*|tools/bench/*) cc="$(MPICC)";; \
		*) cc="$(CC)";; esac; \
		printf '#include "%s"\n' $$h | \
		$$cc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
			-I$(BUILD) -x c -fsyntax-only - || exit 1; \
	done; echo "check-headers: $(words $(HEADERS)) headers stand alone"

# Every collective mpi.h declares is in wrappers.def.
check-coverage: $(GEN)
	$(Q)BUILD=$(BUILD) MPICC=$(MPICC) sh tests/coverage.sh
	$(Q)$(if $(HAVE_OPENMPI),BUILD=$(BUILD) OMPICC=$(OMPICC) \
		sh tests/coverage-openmpi.sh)

# Every subcommand has a page, and every page renders without warnings.
check-man: $(MAN)
	$(Q)BUILD=$(BUILD) SAN=$(SAN) MAKE=$(MAKE) sh tests/check-man.sh

# The library exports only the MPI_ names and the PMPI_ names of f08 entries.
check-exports: $(LIB) $(OMPI_ALL) $(BUILD)/gen/ops.h
	$(Q)BUILD=$(BUILD) sh tests/check-exports.sh

test: deps
	$(Q)$(MAKE) --no-print-directory check-unit check-headers \
		check-coverage check-exports check-man check-python check-fuzz \
		check-integration

conformance: deps $(LIB) $(CLI) $(OMPI_ALL)
	$(Q)BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh tests/conformance.sh
	$(Q)$(if $(HAVE_OPENMPI),BUILD=$(BUILD) OMPICC=$(OMPICC) \
		OMPIEXEC=$(OMPIEXEC) sh tests/conformance-openmpi.sh; \
		rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ])

# Debian's MPI applications traced and untraced (tools/scripts/real-apps.sh).
real-apps: deps all
	$(Q)BUILD=$(BUILD) sh tools/scripts/real-apps.sh

# MPICH's figures, then Open MPI's (BENCH_OMPI_FIGURES, default "1c 2").
BENCH_APPS := bench-calls bench-mix cg
bench: deps all $(SLIB) $(GENTRACE) $(addprefix $(BUILD)/apps/,$(BENCH_APPS)) \
		$(if $(HAVE_OPENMPI),$(addprefix $(OBUILD)/apps/,$(BENCH_APPS)))
	$(Q)BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh tools/bench/run.sh
	$(Q)$(if $(HAVE_OPENMPI),BUILD=$(BUILD) BENCH_MPI=openmpi \
		OMPIEXEC=$(OMPIEXEC) \
		BENCH_FIGURES="$${BENCH_OMPI_FIGURES:-1c 2}" \
		sh tools/bench/run.sh)

# Timing and accuracy figures against their targets (not in `make test`,
# which asserts only what holds at any speed); VALIDATE_RUNS runs each.
validate: deps $(UNIT) $(LIB) $(CLI) $(APPS) $(if $(BENCH_SRC),$(BENCH))
	$(Q)BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh tests/validate/run.sh

# Predictions on shared memory and over TCP against what the apps take
# there, beside SimGrid SMPI's (docs/prediction.md); takes a few
# minutes (6.4 min for 14 of its 19 apps with --reps 7, SMPI included, at a
# load of 1 to 2).
validate-net: DEPS_EXTRA = libsimgrid-dev
validate-net: deps all $(APPS)
	$(Q)BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) \
		python3 tools/scripts/predict-validate.py $(VALIDATE_NET_ARGS)

demo: deps all $(APPS)
	$(Q)BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh tools/scripts/demo.sh

# make uninstall removes exactly what make install put there (with the
# same PREFIX and DESTDIR), and no directory.
INSTALLED := bin/synctrace lib/libsynctrace.so lib/pkgconfig/synctrace.pc \
	$(if $(BENCH_SRC),bin/synctrace-bench)
MAN1 := $(PREFIX)/share/man/man1

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(MAN1)
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	$(if $(HAVE_OPENMPI),install -m 755 $(OLIB) $(DESTDIR)$(PREFIX)/lib/)
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/
	$(if $(BENCH_SRC),install -m 755 $(BENCH) $(DESTDIR)$(PREFIX)/bin/)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(ST_VERSION)|' \
		pmpi/synctrace.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/synctrace.pc
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MAN1)/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED)) \
		$(DESTDIR)$(PREFIX)/lib/libsynctrace-openmpi.so \
		$(DESTDIR)$(MAN1)/synctrace.1 $(DESTDIR)$(MAN1)/synctrace-*.1

# Fuzzing (docs/fuzzing.md): libFuzzer targets over every reader entry
# point, built by clang into $(FUZZ_BUILD)/ with ASan and UBSan.
# `make fuzz` runs each for its share of FUZZ_SECONDS; check-fuzz replays
# the seeds and the regression corpus and makes a fixed number of
# mutations, whatever the machine's speed.
FUZZ_BUILD ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 240
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_OBJ := $(call obj,$(FUZZ_SRC) tests/fuzz/fuzz.c tests/fuzz/split.c)
FUZZ_LIBOBJ := $(BUILD)/tests/fuzz/fuzz.o $(WRITER_OBJ) $(SYNC_OBJ) \
	$(filter-out $(BUILD)/tools/cli/synctrace.o,$(TOOL_OBJ))

$(FUZZ_OBJ): $(BUILD)/%.o: %.c | $(GEN_H)
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# fuzz-tools catches the commands' exit() (tests/fuzz/fuzz-tools.c).
$(BUILD)/fuzz/fuzz-tools: FUZZ_LDFLAGS := -Wl,--wrap=exit
$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(FUZZ_LIBOBJ)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) -fsanitize=fuzzer,address,undefined \
		$(FUZZ_LDFLAGS) -o $@ $^ $(OTF2_LIBS) -ljansson -lz -lm -lpthread

$(BUILD)/fuzz/split: $(BUILD)/tests/fuzz/split.o $(FUZZ_LIBOBJ)
	@mkdir -p $(@D)
	$(call say,LINK,$@)$(CC) -fsanitize=fuzzer-no-link,address,undefined \
		-o $@ $^ $(OTF2_LIBS) -ljansson -lz -lm -lpthread

fuzz-targets: $(FUZZ_BIN) $(BUILD)/fuzz/split

fuzz-build:
	$(Q)command -v $(FUZZ_CC) >/dev/null || { echo "synctrace:" \
		"'$(FUZZ_CC)' not found: 'make deps' installs clang" >&2; \
		exit 1; }
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
		SAN=fuzzer-no-link,address,undefined fuzz-targets

check-fuzz: fuzz-build $(LIB) $(CLI) $(BUILD)/apps/halo $(BUILD)/apps/bench-calls \
		$(BUILD)/apps/bench-mix
	$(Q)BUILD=$(BUILD) FUZZ_BUILD=$(FUZZ_BUILD) MPIEXEC=$(MPIEXEC) \
		SAN=$(SAN) sh tests/fuzz/run.sh check

fuzz: deps fuzz-build $(LIB) $(CLI) $(BUILD)/apps/halo $(BUILD)/apps/bench-calls
	$(Q)BUILD=$(BUILD) FUZZ_BUILD=$(FUZZ_BUILD) MPIEXEC=$(MPIEXEC) \
		SAN=$(SAN) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		sh tests/fuzz/run.sh fuzz

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
