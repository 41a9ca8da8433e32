# SPDX-License-Identifier: GPL-3.0-or-later
# weft — GNU make build. `make`, `make demo` and `make check` run `make deps`
# and ./configure themselves when config.mk is missing or stale.
# Targets: all deps demo check check-asan check-run fuzz bench diff-ovni install
# uninstall clean.
#
# Quiet by default ("CC src/emu/emu.c"; V=1 prints the whole commands) and
# parallel by default (-j as many as the cores; -j1 or JOBS=1 for one). One
# build folder per flavour, each object compiled once per flavour:
#   build/release  make, make demo, make install, make bench (build/weft
#                  links to its weft)
#   build/check    make check's first pass: the same flags plus -Werror
#   build/asan     make check-asan, make check's second pass: ASan + UBSan
#   build/fuzz     make fuzz (clang, libFuzzer)

VERSION := 0.1.0
FLAVOUR ?= release
BUILD ?= build/$(FLAVOUR)
PREFIX ?= /usr/local
DESTDIR ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# the top make only: sub-makes share its job slots
ifeq ($(MAKELEVEL)$(filter -j% --jobs%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(JOBS)
endif
MAKEFLAGS += --no-print-directory

V ?= 0
ifeq ($(V),1)
Q :=
SAY := :
else
Q := @
# "  CC    src/x.c"; the demo sets SAY=: for a build without a line per file
SAY ?= printf '  %-5s %s\n'
endif
FUZZ_SECONDS ?= 60
# make fuzz FUZZ_RUNS=N: stop each target after N executions (0: no limit,
# FUZZ_SECONDS alone); FUZZ="fuzz_clock fuzz_obs": only those targets
FUZZ_RUNS ?= 0

DEB_PKGS := autoconf pkg-config libcjson-dev uthash-dev check zlib1g-dev libdeflate-dev \
	libopen-trace-format2-dev otf2-tools python3-otf2 libxml2-utils librsvg2-bin \
	openmpi-bin libopenmpi-dev clang-format strace

NOCONF_GOALS := clean deps distclean uninstall check-list
ifeq ($(filter $(NOCONF_GOALS),$(MAKECMDGOALS)),)
-include config.mk
endif

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
WERROR ?=
SAN ?=
ifeq ($(FLAVOUR),check)
WERROR := -Werror
endif
ifeq ($(FLAVOUR),asan)
WERROR := -Werror
CFLAGS := -O1 -g -fno-omit-frame-pointer
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
endif
# includes name their layer: "emu/emu.h", "model.h", "ovni/ovni.h"
INCLUDES := -Isrc -Imodels
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DWEFT_VERSION='"$(VERSION)"' $(CFLAGS) $(WARN) $(WERROR) \
	$(SAN) $(INCLUDES) $(CJSON_CFLAGS) $(ZLIB_CFLAGS) $(DEFLATE_CFLAGS)
LIBS = $(CJSON_LIBS) $(ZLIB_LIBS) $(DEFLATE_LIBS) $(OTF2_LIBS) -lm -pthread

# libweft.a: every layer but the commands (src/cli, src/main.c); the weft
# binary, the unit tests and the fuzzers link it, so a layer below that
# calls a command does not link (test/tools/layers.sh checks the includes).
LIB_SRCS := $(wildcard src/util/*.c src/trace/*.c src/emu/*.c src/par/*.c src/synth/*.c src/prv/*.c src/check/*.c \
	src/clock/*.c src/import/*.c src/import/picl/*.c src/query/*.c src/stats/*.c src/plot/*.c src/diff/*.c \
	src/driver/*.c src/otf2/*.c models/*.c models/*/*.c)
CLI_SRCS := $(wildcard src/cli/*.c)
CFG_FILES := $(sort $(wildcard cfg/*/*.cfg cfg/*/*/*.cfg))
MODEL_FILES := $(sort $(wildcard models/*/*.model))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/cfg_files.o $(BUILD)/obj/gen/model_files.o
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
LIBWEFT := $(BUILD)/libweft.a
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/obj/%.o)
FUZZ_TARGETS := $(basename $(notdir $(wildcard test/fuzz/fuzz_*.c)))
WEFT := $(BUILD)/weft

.PHONY: all deps demo check check-run check-suites check-list check-asan fuzz bench diff-ovni install uninstall clean FORCE

all: $(WEFT)

# ---- dependencies and configuration -----------------------------------------

# DEPS=no: skip the Debian check (a cluster build whose libraries come from
# Spack or modules: configure still finds them with pkg-config).
DEPS ?= yes
deps:
	@if [ "$(DEPS)" = no ]; then exit 0; fi; \
	if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "make deps: not a Debian system; install cJSON, uthash, Check, zlib, libdeflate and autoconf yourself"; \
	  exit 0; fi; \
	missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing (waiting up to 10 min for the dpkg lock if another apt holds it)"; \
	  lock="-o DPkg::Lock::Timeout=600"; \
	  if ! { apt-get $$lock update -qq && DEBIAN_FRONTEND=noninteractive apt-get $$lock install -y -qq $$missing >/dev/null; }; then \
	    echo "make deps: apt-get failed (its message is above; if another apt held the dpkg lock for 10 min, wait for it and run make again)"; \
	    exit 1; fi; \
	else \
	  echo "make deps: missing Debian packages:$$missing"; \
	  echo "run: sudo apt-get install$$missing"; exit 1; \
	fi

config.mk: configure.ac config.mk.in
	@$(MAKE) --no-print-directory deps
	@$(SAY) GEN configure
	$(Q)autoconf
	$(Q)./configure --quiet

# Rebuild everything when the compiler flags change.
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(LIBS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LIBS)' > $@

$(BUILD)/obj/%.o: %.c $(BUILD)/flags config.mk
	@mkdir -p $(dir $@)
	@$(SAY) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_OBJS:.o=.d)

$(LIBWEFT): $(LIB_OBJS)
	@rm -f $@
	@$(SAY) AR $@
	$(Q)$(AR) rcs $@ $^

# The view files are compiled in, so weft can copy them beside its outputs
# from wherever it is installed.
$(BUILD)/gen/cfg_files.c: $(CFG_FILES) src/prv/embed_cfg.sh
	@mkdir -p $(dir $@)
	@$(SAY) GEN $@
	$(Q)sh src/prv/embed_cfg.sh $(CFG_FILES) > $@

$(BUILD)/obj/gen/cfg_files.o: $(BUILD)/gen/cfg_files.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	@$(SAY) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# The models weft ships are model files, compiled in the same way.
$(BUILD)/gen/model_files.c: $(MODEL_FILES) models/embed_models.sh
	@mkdir -p $(dir $@)
	@$(SAY) GEN $@
	$(Q)sh models/embed_models.sh $(MODEL_FILES) > $@

$(BUILD)/obj/gen/model_files.o: $(BUILD)/gen/model_files.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	@$(SAY) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(WEFT): $(BUILD)/obj/src/main.o $(CLI_OBJS) $(LIBWEFT)
	@$(SAY) LD $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS) $(MPI_LIBS)
ifeq ($(BUILD),build/release)
	@ln -sfn release/weft build/weft
endif

# weft emu --otf2: the OTF2 sink's files alone see OTF2's headers (empty
# flags: no OTF2, otf2_sink.c builds its stub)
$(BUILD)/obj/src/otf2/%.o: ALL_CFLAGS += $(OTF2_CFLAGS)

# weft emu --mpi: the one file that includes mpi.h (empty flags: no MPI,
# ranks.c builds its stubs); only the weft binary pulls it from libweft.a
$(BUILD)/obj/src/par/ranks.o: ALL_CFLAGS += $(MPI_CFLAGS)

# ---- tests ------------------------------------------------------------------

# test_opts and test_jline test command-line modules, outside libweft.
$(BUILD)/unit_tests: $(UNIT_OBJS) $(BUILD)/obj/src/cli/opts.o $(BUILD)/obj/src/cli/common.o \
	$(BUILD)/obj/src/cli/jline.o $(LIBWEFT)
	@$(SAY) LD $@
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LIBS)

$(BUILD)/obj/test/unit/%.o: ALL_CFLAGS += $(CHECK_CFLAGS)

$(BUILD)/fuzz_replay_%: test/fuzz/%.c test/fuzz/replay.c $(LIBWEFT)
	@$(SAY) LD $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

# prvdiff: compares two Paraver traces semantically (the oracle against ovniemu).
$(BUILD)/prvdiff: test/tools/prvdiff.c $(BUILD)/flags config.mk
	@mkdir -p $(dir $@)
	@$(SAY) LD $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ test/tools/prvdiff.c $(ZLIB_LIBS)

# The suites: every script of test/e2e, test/malformed and test/tools that
# sources test/lib.sh (a new one is found by itself: nothing to add here),
# but those of SUITES_OFF; plus the unit tests and the fuzz-corpus replay.
# A suite that must also run with other variables is listed in
# SUITE_VARIANTS as SCRIPT@VAR=VALUE (SCRIPT@VAR=VALUE,VAR2=VALUE2 for
# several). Each suite's output goes to $(BUILD)/results/NAME.log; make
# check prints one line per suite and, at the end, one summary line. The
# suites run in parallel (-j), each in its own temporary directory.
# `make check-run SUITES=test/e2e/plot.sh` runs some only (FLAVOUR=check for
# the -Werror build); `sh test/e2e/plot.sh --help` lists a suite's own
# options (--run=N, -v).
SUITES_OFF :=
SUITES ?= $(filter-out $(SUITES_OFF),$(shell grep -l '^\. "$$(dirname "$$0")/\.\./lib\.sh"$$' \
	test/e2e/*.sh test/malformed/*.sh test/tools/*.sh))
SUITE_VARIANTS ?=
SUITE_ENV = WEFT=$(abspath $(WEFT)) PRVDIFF=$(abspath $(BUILD)/prvdiff) BUILD=$(BUILD) FLAVOUR=$(FLAVOUR)
RES := $(BUILD)/results
NVARIANTS := $(words $(SUITE_VARIANTS))
# The longest suites start first (make starts the prerequisites of
# check-suites in their order): one of them started last would run alone
# on one core at the end of the run, the other idle.
SUITES_FIRST := test/malformed/commit.sh test/e2e/mpi.sh test/e2e/salvage.sh test/e2e/sync.sh test/e2e/models.sh
SUITES_SORTED := $(foreach s,$(SUITES_FIRST),$(filter $(s),$(SUITES))) $(filter-out $(SUITES_FIRST),$(SUITES))
SUITE_RES := $(SUITES_SORTED:%=$(RES)/%.res) $(RES)/unit.res $(RES)/fuzz-replay.res \
	$(if $(SUITE_VARIANTS),$(foreach i,$(shell seq $(NVARIANTS)),$(RES)/variant-$(i).res))
CHECK_BINS := $(WEFT) $(BUILD)/unit_tests $(FUZZ_TARGETS:%=$(BUILD)/fuzz_replay_%) $(BUILD)/prvdiff
comma := ,

check-run: config.mk
	@$(MAKE) $(CHECK_BINS)
	@rm -rf $(RES)
	@echo "$(BUILD): the suites on $(BUILD)/weft (the output of each in $(RES)/)"
	@$(MAKE) check-suites
	@sh test/summary.sh $(BUILD) $(RES)

check-suites: $(SUITE_RES)

# the suites make check runs, one a line
check-list:
	@for s in unit fuzz-replay $(SUITES) $(SUITE_VARIANTS); do echo "$$s"; done

$(RES)/unit.res: FORCE
	@CK_FORK=yes CK_TIMEOUT_MULTIPLIER=0.0001 sh test/runsuite.sh unit $(RES) $(BUILD)/unit_tests

$(RES)/fuzz-replay.res: FORCE
	@sh test/runsuite.sh fuzz-replay $(RES) env BUILD=$(BUILD) sh test/fuzz/replay.sh $(FUZZ_TARGETS)

$(RES)/variant-%.res: FORCE
	@v='$(word $*,$(SUITE_VARIANTS))'; \
	  sh test/runsuite.sh "$$v" $(RES) env $(SUITE_ENV) $(subst $(comma), ,$(word 2,$(subst @, ,$(word $*,$(SUITE_VARIANTS))))) \
	  sh $(firstword $(subst @, ,$(word $*,$(SUITE_VARIANTS))))

$(RES)/%.res: FORCE
	@sh test/runsuite.sh $* $(RES) env $(SUITE_ENV) sh $*

check: config.mk
	@$(MAKE) deps
	@$(MAKE) FLAVOUR=check check-run
	@$(MAKE) FLAVOUR=asan check-run
	@sh test/summary.sh "make check" build/check/results build/asan/results

check-asan: config.mk
	@$(MAKE) FLAVOUR=asan check-run

fuzz: config.mk
	@command -v clang >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null; \
	  else echo "make fuzz: clang is missing; run: sudo apt-get install clang"; exit 1; fi; }
	$(MAKE) --no-print-directory FLAVOUR=fuzz CC=clang CFLAGS="-O1 -g" \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  build/fuzz/libweft.a
	@# every target is linked before any runs: a header edited during a
	@# campaign would otherwise meet a library built from the old one
	@for t in $(or $(FUZZ),$(FUZZ_TARGETS)); do \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(INCLUDES) $(CJSON_CFLAGS) \
	    -o build/fuzz/$$t test/fuzz/$$t.c build/fuzz/libweft.a $(LIBS) || exit 1; \
	done
	@for t in $(or $(FUZZ),$(FUZZ_TARGETS)); do \
	  mkdir -p build/fuzz/corpus-$$t build/fuzz/crash-$$t; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS) s or $(FUZZ_RUNS) runs (0: no limit)"; \
	  build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -runs=$(if $(filter 0,$(FUZZ_RUNS)),-1,$(FUZZ_RUNS)) -print_final_stats=1 -artifact_prefix=build/fuzz/crash-$$t/ \
	    build/fuzz/corpus-$$t test/fuzz/corpus/$$t || { \
	    echo "make fuzz: $$t failed; the input is in build/fuzz/crash-$$t/"; exit 1; }; \
	done

bench: config.mk
	@$(MAKE) $(WEFT)
	WEFT=$(abspath $(WEFT)) sh test/bench/run.sh

# ---- the differential campaign against ovniemu (doc/dev/testing.md) --------
# make diff-ovni OVNI=PREFIX [SEEDS=N] [MUTATIONS=M] [FIRST=S]: builds
# test/diff's generator against the ovni installed at PREFIX (libovni,
# ovniemu, ovnisort) and runs N seeds and M mutations through ovniemu and
# weft; results in diff-out/{seeds,mutations}/. Only where ovni is
# installed: make check never builds it.
SEEDS ?= 100
MUTATIONS ?= 0
FIRST ?= 1
DIFF_SRCS := $(wildcard test/diff/*.c)
DIFF_GEN := $(BUILD)/diff/gen

$(DIFF_GEN): $(DIFF_SRCS) test/diff/plan.h
	@test -n "$(OVNI)" -a -f "$(OVNI)/include/ovni.h" || { \
	  echo "make diff-ovni: OVNI=PREFIX, the prefix ovni 1.14 is installed in (PREFIX/include/ovni.h)"; exit 2; }
	@mkdir -p $(dir $@)
	@$(SAY) LD $@
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(CFLAGS) $(WARN) -I$(OVNI)/include -o $@ $(DIFF_SRCS) \
		-L$(OVNI)/lib -Wl,-rpath,$(OVNI)/lib -lovni -pthread

diff-ovni: config.mk
	@$(MAKE) $(WEFT) $(DIFF_GEN)
	OVNI=$(OVNI) GEN=$(abspath $(DIFF_GEN)) WEFT=$(abspath $(WEFT)) \
		nice sh test/diff/campaign.sh -o diff-out/seeds $(FIRST) $(SEEDS)
	@if [ "$(MUTATIONS)" -gt 0 ]; then \
	  OVNI=$(OVNI) GEN=$(abspath $(DIFF_GEN)) WEFT=$(abspath $(WEFT)) \
		nice sh test/diff/campaign.sh -m -o diff-out/mutations $(FIRST) $(MUTATIONS); fi

# ---- demo, install, clean ---------------------------------------------------

# The demo: a synthetic trace, its Paraver traces, checked, drawn; it ends
# with the pictures and the command that opens the trace in wxParaver.
DEMO_VIEW := demo/paraver/cfg/thread/ovni/state-histogram.cfg
demo: config.mk
	@$(MAKE) deps
	@echo "demo: building $(WEFT) (the first time about 1 min on 2 cores; V=1 shows the commands)"
	@$(MAKE) SAY=: $(WEFT)
	@rm -rf demo && mkdir -p demo
	@echo '$$ weft synth -o demo/trace --looms 2 --procs 2 --threads 3 --cpus 4 --events 200000 --seed 1'
	@$(WEFT) synth -o demo/trace --looms 2 --procs 2 --threads 3 --cpus 4 --events 200000 --seed 1
	@echo '$$ weft dump demo/trace > demo/dump.txt'
	@$(WEFT) dump demo/trace > demo/dump.txt
	@echo '$$ weft emu -o demo/paraver demo/trace'
	@$(WEFT) emu -o demo/paraver demo/trace
	@echo '$$ weft check demo/paraver'
	@$(WEFT) check demo/paraver
	@echo '$$ weft plot demo/paraver/thread.prv; weft plot demo/paraver/cpu.prv'
	@$(WEFT) plot demo/paraver/thread.prv
	@$(WEFT) plot demo/paraver/cpu.prv
	@echo
	@echo "demo: the ovni trace is demo/trace (every event in demo/dump.txt), its Paraver"
	@echo "      traces demo/paraver/{thread,cpu}.prv with their views in demo/paraver/cfg/."
	@echo "demo: the pictures (any web browser shows them):"
	@echo "      demo/paraver/thread.svg"
	@echo "      demo/paraver/cpu.svg"
	@echo "demo: the thread states in wxParaver, and as a table of time per state with"
	@echo "      paramedir (it writes the file state-histogram in the current folder):"
	@echo "      wxparaver demo/paraver/thread.prv $(DEMO_VIEW)"
	@echo "      paramedir demo/paraver/thread.prv $(DEMO_VIEW)"

# The completion scripts are written by weft itself, from its option tables.
$(BUILD)/completion/weft $(BUILD)/completion/_weft &: $(WEFT)
	@mkdir -p $(dir $@)
	@$(SAY) GEN $(BUILD)/completion
	$(Q)$(WEFT) completion bash > $(BUILD)/completion/weft.tmp && mv $(BUILD)/completion/weft.tmp $(BUILD)/completion/weft
	$(Q)$(WEFT) completion zsh > $(BUILD)/completion/_weft.tmp && mv $(BUILD)/completion/_weft.tmp $(BUILD)/completion/_weft

# Everything make install writes, for make uninstall to take back.
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
SHAREDIR := $(DESTDIR)$(PREFIX)/share/weft
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/weft
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
MAN_PAGES := $(notdir $(wildcard doc/man/*.1))

install: $(WEFT) $(BUILD)/completion/weft $(BUILD)/completion/_weft
	@$(SAY) INST $(DESTDIR)$(PREFIX)
	$(Q)install -d $(BINDIR) $(MANDIR) $(SHAREDIR) $(DOCDIR) $(BASHDIR) $(ZSHDIR)
	$(Q)install -m 755 $(WEFT) $(BINDIR)/weft
	$(Q)install -m 644 $(MAN_PAGES:%=doc/man/%) $(MANDIR)/
	$(Q)rm -rf $(SHAREDIR)/cfg && cp -R cfg $(SHAREDIR)/
	$(Q)sed 's|@PREFIX@|$(PREFIX)|g; s|@VERSION@|$(VERSION)|g' contrib/modules/weft.in > $(SHAREDIR)/modulefile
	$(Q)install -m 644 README.md LICENSE $(DOCDIR)/
	$(Q)install -m 644 $(BUILD)/completion/weft $(BASHDIR)/weft
	$(Q)install -m 644 $(BUILD)/completion/_weft $(ZSHDIR)/_weft

uninstall:
	@$(SAY) RM $(DESTDIR)$(PREFIX)
	$(Q)rm -f $(BINDIR)/weft $(MAN_PAGES:%=$(MANDIR)/%) $(BASHDIR)/weft $(ZSHDIR)/_weft
	$(Q)rm -rf $(SHAREDIR) $(DOCDIR)

clean:
	rm -rf build build-asan build-fuzz demo bench-out diff-out

distclean: clean
	rm -rf config.mk config.log config.status configure autom4te.cache
