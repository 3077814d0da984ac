# samsim build. `make` builds ./samsim; `make test` installs what is missing
# and runs the quick tier of tests; `make check` runs every tier and the
# fuzz corpus under ASan and UBSan;
# `make demo` shows the main job on built-in data; `make paper` regenerates
# the SAM paper's evaluation (benchmarks/paper).
CC      ?= cc
BUILD   ?= build/release
OPT     ?= -O2
CFLAGS  += -std=c11 $(OPT) -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
           -MMD -MP $(SANITIZE) $(shell pkg-config --cflags libcgraph libgvc 2>/dev/null)
LDFLAGS += $(SANITIZE)
# jansson reads traces back (samsim timeline, samsim stats --stalls); asked
# of pkg-config alone, so that a missing .pc leaves Graphviz's flags alone.
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CFLAGS  += $(JANSSON_CFLAGS)
LDLIBS  += -lcsv -lm $(shell pkg-config --libs libgvc libcgraph) $(JANSSON_LIBS)
TESTLIBS = -lcmocka -lcsv -lgraphblas -lm $(shell pkg-config --libs libgvc libcgraph) $(JANSSON_LIBS)

LIB_DIRS = common formats graph custard engine blocks builder hwmodel report templates run sweep
LIB_SRC  = $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
CLI_SRC  = $(wildcard cli/*.c)
TEST_SUPPORT = test/test_util.c test/test_harness.c test/test_grb.c test/native_rig.c
TEST_SRC = $(filter-out $(TEST_SUPPORT),$(wildcard test/test_*.c))
# The slow tier, as SQLite's: randomized and long-running programs that
# only `make check` runs, beside the rest, under the sanitizers (and the
# tests that call test_slow_only, which skip where SAMSIM_QUICK is set).
TEST_SLOW = test_progress test_mask_random
# The longest of the rest start first, so that the cores finish together.
TEST_LONG = test_kernels test_compile test_sweep
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# The readers with a fuzzing harness (test/fuzz/fuzz_NAME.c).
FUZZ_NAMES    = mtx tns samdir dot compile config stats plotcsv hw tilespec template tmplmat sweep \
                timeline

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN = $(TEST_SRC:test/%.c=$(BUILD)/test/%)
TEST_QUICK = $(TEST_LONG:%=$(BUILD)/test/%) \
             $(filter-out $(TEST_SLOW:%=$(BUILD)/test/%) $(TEST_LONG:%=$(BUILD)/test/%),$(TEST_BIN))
BIN      = $(BUILD)/samsim

.PHONY: all deps test-deps test test-run test-all check demo paper install docs clean fuzz fuzz-replay
all: samsim

samsim: $(BIN)
	cp $(BIN) $@

$(BIN): $(CLI_OBJ) $(BUILD)/libsamsim.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libsamsim.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/test/%: $(BUILD)/test/%.o $(TEST_SUPPORT:%.c=$(BUILD)/%.o) $(BUILD)/libsamsim.a
	$(CC) $(LDFLAGS) -o $@ $^ $(TESTLIBS)

deps:
	@./scripts/install-deps

test-deps:
	@./scripts/install-deps --test

test: test-deps
	$(MAKE) --no-print-directory test-run

# The quick tier, the programs side by side, and the fuzz corpus replayed
# without sanitizers (under them in make check), so that a harness that no
# longer builds shows here.
test-run: $(BIN) $(TEST_QUICK) $(FUZZ_NAMES:%=$(BUILD)/test/fuzz/replay-%)
	@SAMSIM_QUICK=1 SAMSIM_BIN=$(abspath $(BIN)) test/run -j $(TEST_JOBS) $(TEST_QUICK) \
	    $(FUZZ_NAMES:%=$(BUILD)/test/fuzz/replay-%)

# Every tier and the fuzz corpus replay; the slow tier one program at a
# time, as its tests time real work.
test-all: $(BIN) $(TEST_BIN) fuzz-replay
	@SAMSIM_BIN=$(abspath $(BIN)) test/run -j $(TEST_JOBS) $(TEST_QUICK) $(REPLAY_BIN)
	@SAMSIM_BIN=$(abspath $(BIN)) test/run $(TEST_SLOW:%=$(BUILD)/test/%)

# test/lsan.supp: memory Graphviz and Pango keep until exit (see there).
check: test-deps
	LSAN_OPTIONS=suppressions=$(CURDIR)/test/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0 \
	$(MAKE) --no-print-directory BUILD=build/check OPT=-O1 \
	    SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    test-all

# Fuzzing (test/fuzz): `make fuzz` builds a libFuzzer harness per reader
# with clang, build/fuzz/fuzz-NAME; `make check` replays every corpus input
# under ASan and UBSan built with the default compiler (no clang needed).
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The command line's modules (all but main) link in too, for harnesses of
# what only a command reads today (sweep specs, plot CSV, template runs).
FUZZ_OBJ      = $(BUILD)/test/fuzz/fuzz_input.o $(BUILD)/libsamsim_cli.a $(BUILD)/libsamsim.a
REPLAY_BIN    = $(FUZZ_NAMES:%=build/check/test/fuzz/replay-%)

$(BUILD)/test/fuzz/replay-%: $(BUILD)/test/fuzz/fuzz_%.o $(BUILD)/test/fuzz/replay.o $(FUZZ_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz-%: $(BUILD)/test/fuzz/fuzz_%.o $(FUZZ_OBJ)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(BUILD)/libsamsim_cli.a: $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
	rm -f $@
	ar rcs $@ $^

fuzz-replay:
	@$(MAKE) --no-print-directory BUILD=build/check OPT=-O1 SANITIZE="$(FUZZ_SANITIZE)" \
	    $(REPLAY_BIN)

fuzz:
	$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang OPT=-O1 \
	    SANITIZE="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	    $(FUZZ_NAMES:%=build/fuzz/fuzz-%)

demo: deps
	$(MAKE) --no-print-directory samsim
	@./scripts/demo

# The SAM paper's Table 1 and Figs. 11-15 from samsim alone, into
# benchmarks/results/paper/ (JOBS jobs at a time, default 2).
paper: samsim
	@./benchmarks/paper

# `make install PREFIX=/usr DESTDIR=/tmp/stage`: the binary, the man page and
# the bash completion. The paths are quoted, so they may hold blanks (not
# a single quote).
PREFIX  ?= /usr/local
install: $(BIN)
	install -D -m 755 '$(BIN)' '$(DESTDIR)$(PREFIX)/bin/samsim'
	install -D -m 644 samsim.1 '$(DESTDIR)$(PREFIX)/share/man/man1/samsim.1'
	install -D -m 644 scripts/samsim-completion.bash \
	    '$(DESTDIR)$(PREFIX)/share/bash-completion/completions/samsim'

# The man page and doc/hardware.md's key table are written from the
# declarations (cli/options.h, common/param.h); test_cli_conventions fails
# when the checked-in ones are stale.
docs: samsim
	./scripts/gen-docs ./samsim

clean:
	rm -rf build samsim

-include $(shell find build -name '*.d' 2>/dev/null)

# keep the objects that test programs are linked from
.SECONDARY:
