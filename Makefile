# weft — GNU make build. `make`, `make demo` and `make check` run `make deps`
# and ./configure themselves when config.mk is missing or stale.
# Targets: all deps demo check check-asan fuzz bench install clean.

VERSION := 0.1.0
BUILD ?= build
PREFIX ?= /usr/local
DESTDIR ?=
FUZZ_SECONDS ?= 60
# make fuzz FUZZ_RUNS=N: stop each target after N executions (0: no limit,
# FUZZ_SECONDS alone); FUZZ="fuzz_clock fuzz_obs": only those targets
FUZZ_RUNS ?= 0

DEB_PKGS := autoconf pkg-config libcjson-dev uthash-dev check zlib1g-dev libxml2-utils librsvg2-bin \
	openmpi-bin libopenmpi-dev clang-format

NOCONF_GOALS := clean deps distclean
ifeq ($(filter $(NOCONF_GOALS),$(MAKECMDGOALS)),)
-include config.mk
endif

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
WERROR ?=
SAN ?=
# includes name their layer: "emu/emu.h", "model.h", "ovni/ovni.h"
INCLUDES := -Isrc -Imodels
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DWEFT_VERSION='"$(VERSION)"' $(CFLAGS) $(WARN) $(WERROR) \
	$(SAN) $(INCLUDES) $(CJSON_CFLAGS) $(ZLIB_CFLAGS)
LIBS = $(CJSON_LIBS) $(ZLIB_LIBS) -lm -pthread

# libweft.a: every layer but the commands (src/cli, src/main.c); the weft
# binary, the unit tests and the fuzzers link it, so a layer below that
# calls a command does not link (test/tools/layers.sh checks the includes).
LIB_SRCS := $(wildcard src/util/*.c src/trace/*.c src/emu/*.c src/synth/*.c src/prv/*.c src/check/*.c \
	src/clock/*.c src/import/*.c src/import/picl/*.c src/query/*.c src/stats/*.c src/plot/*.c src/driver/*.c \
	models/*.c models/*/*.c)
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

.PHONY: all deps demo check check-run check-asan fuzz bench install clean FORCE

all: $(WEFT)

# ---- dependencies and configuration -----------------------------------------

deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "make deps: not a Debian system; install cJSON, uthash, Check, zlib and autoconf yourself"; \
	  exit 0; fi; \
	missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "make deps: missing Debian packages:$$missing"; \
	  echo "run: sudo apt-get install$$missing"; exit 1; \
	fi

config.mk: configure.ac config.mk.in
	@$(MAKE) --no-print-directory deps
	autoconf
	./configure --quiet

# Rebuild everything when the compiler flags change.
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(ALL_CFLAGS) $(LIBS)' | cmp -s - $@ || echo '$(CC) $(ALL_CFLAGS) $(LIBS)' > $@

$(BUILD)/obj/%.o: %.c $(BUILD)/flags config.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_OBJS:.o=.d)

$(LIBWEFT): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The view files are compiled in, so weft can copy them beside its outputs
# from wherever it is installed.
$(BUILD)/gen/cfg_files.c: $(CFG_FILES) src/prv/embed_cfg.sh
	@mkdir -p $(dir $@)
	sh src/prv/embed_cfg.sh $(CFG_FILES) > $@

$(BUILD)/obj/gen/cfg_files.o: $(BUILD)/gen/cfg_files.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The models weft ships are model files, compiled in the same way.
$(BUILD)/gen/model_files.c: $(MODEL_FILES) models/embed_models.sh
	@mkdir -p $(dir $@)
	sh models/embed_models.sh $(MODEL_FILES) > $@

$(BUILD)/obj/gen/model_files.o: $(BUILD)/gen/model_files.c $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(WEFT): $(BUILD)/obj/src/main.o $(CLI_OBJS) $(LIBWEFT)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS) $(MPI_LIBS)

# weft emu --mpi: the one file that includes mpi.h (empty flags: no MPI,
# ranks.c builds its stubs); only the weft binary pulls it from libweft.a
$(BUILD)/obj/src/emu/ranks.o: ALL_CFLAGS += $(MPI_CFLAGS)

# ---- tests ------------------------------------------------------------------

# test_opts and test_jline test command-line modules, outside libweft.
$(BUILD)/unit_tests: $(UNIT_OBJS) $(BUILD)/obj/src/cli/opts.o $(BUILD)/obj/src/cli/common.o \
	$(BUILD)/obj/src/cli/jline.o $(LIBWEFT)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -o $@ $^ $(CHECK_LIBS) $(LIBS)

$(BUILD)/obj/test/unit/%.o: ALL_CFLAGS += $(CHECK_CFLAGS)

$(BUILD)/fuzz_replay_%: test/fuzz/%.c test/fuzz/replay.c $(LIBWEFT)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LIBS)

# prvdiff: compares two Paraver traces semantically (the oracle against ovniemu).
$(BUILD)/prvdiff: test/tools/prvdiff.c $(BUILD)/flags config.mk
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ test/tools/prvdiff.c $(ZLIB_LIBS)

check-run: $(WEFT) $(BUILD)/unit_tests $(FUZZ_TARGETS:%=$(BUILD)/fuzz_replay_%) $(BUILD)/prvdiff
	CK_FORK=yes $(BUILD)/unit_tests
	WEFT=$(abspath $(WEFT)) sh test/e2e/run.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/synth.sh
	WEFT=$(abspath $(WEFT)) sh test/malformed/run.sh
	WEFT=$(abspath $(WEFT)) PRVDIFF=$(abspath $(BUILD)/prvdiff) sh test/e2e/emu.sh
	WEFT=$(abspath $(WEFT)) PRVDIFF=$(abspath $(BUILD)/prvdiff) sh test/e2e/models.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/metaviews.sh
	WEFT=$(abspath $(WEFT)) sh test/malformed/emu.sh
	WEFT=$(abspath $(WEFT)) sh test/malformed/fifo.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/modelfile.sh
	WEFT=$(abspath $(WEFT)) sh test/malformed/hardening.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/picl.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/stats.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/visandor.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/quiet.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/charisma.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/check.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/views.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/docs.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/plot.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/window.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/query.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/driver.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/sync.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/inputs.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/jobs.sh
	WEFT=$(abspath $(WEFT)) sh test/e2e/mpi.sh
	BUILD=$(BUILD) sh test/fuzz/replay.sh $(FUZZ_TARGETS)
	BUILD=$(BUILD) sh test/tools/prvdiff-test.sh
	WEFT=$(abspath $(WEFT)) sh test/tools/manopts.sh
	sh test/tools/tree.sh
	sh test/tools/layers.sh
	sh test/tools/format.sh
	sh test/tools/size.sh

check: config.mk
	@$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory WERROR=-Werror check-run
	$(MAKE) --no-print-directory check-asan

check-asan: config.mk
	$(MAKE) --no-print-directory BUILD=build-asan WERROR=-Werror CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" check-run


fuzz: config.mk
	@command -v clang >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null; \
	  else echo "make fuzz: clang is missing; run: sudo apt-get install clang"; exit 1; fi; }
	$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="-O1 -g" \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  build-fuzz/libweft.a
	@for t in $(or $(FUZZ),$(FUZZ_TARGETS)); do \
	  clang -std=c11 -D_GNU_SOURCE -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(INCLUDES) $(CJSON_CFLAGS) \
	    -o build-fuzz/$$t test/fuzz/$$t.c build-fuzz/libweft.a $(LIBS) || exit 1; \
	  mkdir -p build-fuzz/corpus-$$t build-fuzz/crash-$$t; \
	  echo "fuzzing $$t for $(FUZZ_SECONDS) s or $(FUZZ_RUNS) runs (0: no limit)"; \
	  build-fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -runs=$(if $(filter 0,$(FUZZ_RUNS)),-1,$(FUZZ_RUNS)) -print_final_stats=1 -artifact_prefix=build-fuzz/crash-$$t/ \
	    build-fuzz/corpus-$$t test/fuzz/corpus/$$t || { \
	    echo "make fuzz: $$t failed; the input is in build-fuzz/crash-$$t/"; exit 1; }; \
	done

bench: config.mk
	$(MAKE) --no-print-directory $(WEFT)
	WEFT=$(abspath $(WEFT)) sh test/bench/run.sh

# ---- demo, install, clean ---------------------------------------------------

demo: config.mk
	@$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory $(WEFT)
	@rm -rf demo && mkdir -p demo
	$(WEFT) synth -o demo/trace --looms 2 --procs 2 --threads 3 --cpus 4 --events 200000 --seed 1
	$(WEFT) top demo/trace
	$(WEFT) dump demo/trace > demo/dump.txt
	$(WEFT) emu -o demo/paraver demo/trace
	$(WEFT) check demo/paraver/thread.prv
	$(WEFT) check demo/paraver/cpu.prv
	@echo
	@echo "demo: the synthetic ovni trace is in demo/trace (event listing: demo/dump.txt);"
	@echo "      its Paraver traces are demo/paraver/thread.prv and demo/paraver/cpu.prv"
	@echo "      (open them in wxParaver; views in demo/paraver/cfg/)"

install: $(WEFT)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/weft
	install -m 755 $(WEFT) $(DESTDIR)$(PREFIX)/bin/weft
	install -m 644 doc/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	cp -R cfg $(DESTDIR)$(PREFIX)/share/weft/

clean:
	rm -rf build build-asan build-fuzz demo bench-out

distclean: clean
	rm -rf config.mk config.log config.status configure autom4te.cache
