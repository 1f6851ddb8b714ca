# ratrace: see README.md. `make check` as root installs what is missing and runs every test.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBEXECDIR ?= $(PREFIX)/libexec/ratrace
DESTDIR ?=

CC ?= cc
PKGS := libtraceevent libtracefs libtracecmd libbpf sqlite3 libzstd zlib libpq
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# A warning option only when the compiler ($(2), default $(CC)) knows it
# (clang has no -Wformat-truncation).
cc_option = $(shell $(or $(2),$(CC)) -Werror $(1) -x c -c -o /dev/null /dev/null >/dev/null 2>&1 && echo $(1))
WARN_COMMON := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter
WARN := $(WARN_COMMON) $(call cc_option,-Wno-format-truncation)
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) -D_GNU_SOURCE -DRA_LIBEXECDIR='"$(LIBEXECDIR)"' $(PKG_CFLAGS) $(CFLAGS)

# The layers, each a folder with its own header, and what each may include
# besides include/ (the public interfaces) and its own folder: an include
# the wrong way does not compile (docs/hacking.md; t_layers checks it). The
# tests see every layer.
LAYERS := collect/decode collect/host collect/trace collect/import collect/record analyze report
INC_lib :=
INC_collect/decode :=
INC_collect/host :=
INC_collect/trace := collect/decode collect/host
INC_collect/import := collect/decode collect/trace
INC_collect/record := collect/decode collect/host collect/trace
INC_analyze :=
INC_report :=
INC_ALL := lib $(LAYERS)
# the -I options of the source file $(1)
layer_of = $(patsubst %/,%,$(dir $(1)))
layer_inc = -Iinclude $(addprefix -I,$(if $(filter tests/%,$(1)),$(INC_ALL),\
	$(call layer_of,$(1)) $(INC_$(call layer_of,$(1)))))
LDLIBS = $(PKG_LIBS) -lm -pthread

ifdef SANITIZE
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q :=
echo_cmd =
else
Q := @
echo_cmd = @printf '  %-6s %s\n' $(1) $(2);
endif

# Sanitizer builds live apart, so that switching never mixes objects.
BUILD ?= $(if $(SANITIZE),build-san,build)
LIB_SRC := $(wildcard lib/*.c) $(filter-out $(wildcard $(LAYERS:%=%/ra-*.c)),$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMDS := ra-record ra-import ra-analyze ra-report ra-compare ra-whatif ra-push
BINS := $(CMDS:%=$(BUILD)/%)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
MANS := $(wildcard docs/man/*.1)

.PHONY: all deps pkgcheck check test lint lint-shell fetch-kernels install uninstall clean demo format \
	fuzz fuzz-build kernels layer-flags

all: pkgcheck $(BINS) $(BUILD)/ra-vm $(UNIT_BINS) $(TOOL_BINS)

deps:
	@scripts/deps.sh

pkgcheck:
	@for p in $(PKGS); do \
		pkg-config --exists $$p || { \
			echo "ratrace: missing '$$p' (pkg-config); run 'make deps' as root to install the Debian packages" >&2; \
			exit 1; }; \
	done

# -MMD: each object's .d file lists the headers it read, so a header change
# rebuilds exactly what includes it (tests/unit/*.h too).
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call echo_cmd,CC,$<)$(CC) $(ALL_CFLAGS) $(call layer_inc,$<) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
# Objects of the commands and tests are intermediate: keep them between builds.
.SECONDARY:

$(BUILD)/libratrace.a: $(LIB_OBJ)
	$(call echo_cmd,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# The compiler options of a source file SRC of a layer (t_layers compiles with them).
layer-flags:
	@echo $(ALL_CFLAGS) $(call layer_inc,$(SRC))

# A command's main is LAYER/ra-NAME.c, in the layer it belongs to, and its other parts
# LAYER/ra-NAME-*.c: the command's own, not the library's.
cmd_obj = $(patsubst %.c,$(BUILD)/%.o,$(wildcard $(addsuffix /ra-$(1).c,$(LAYERS)) \
	$(addsuffix /ra-$(1)-*.c,$(LAYERS))))
.SECONDEXPANSION:
$(BUILD)/ra-%: $$(call cmd_obj,$$*) $(BUILD)/libratrace.a
	$(call echo_cmd,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The helper that boots a guest for ra-record --kernel, found beside it.
$(BUILD)/ra-vm: collect/record/ra-vm.sh
	@mkdir -p $(dir $@)
	$(call echo_cmd,GEN,$@)install -m 755 $< $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/libratrace.a
	@mkdir -p $(dir $@)
	$(call echo_cmd,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Workload programs of the end-to-end tests (tests/tools/NAME.c, standalone).
$(TOOL_BINS): $(BUILD)/tools/%: $(BUILD)/tests/tools/%.o
	@mkdir -p $(dir $@)
	$(call echo_cmd,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ -pthread

# libFuzzer harnesses (tests/fuzz/fuzz_NAME.c), built with clang apart from
# the other builds: the library sources with coverage and the sanitizers.
# `make fuzz FUZZ_TIME=SECONDS` runs each harness for that long from its
# committed corpus (tests/fuzz/corpus/NAME); what it finds goes to FUZZ_OUT,
# outside the tree. The test t_fuzz_corpus builds them and runs every
# committed input once.
FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_OUT ?= $(or $(TMPDIR),/tmp)/ratrace-fuzz
FUZZ_TIME ?= 60
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 $(WARN_COMMON) -D_GNU_SOURCE -Itests/fuzz $(PKG_CFLAGS) -O1 -g $(FUZZ_SAN)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call echo_cmd,FUZZCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) $(call layer_inc,$<) -fsanitize=fuzzer-no-link \
		-MMD -MP -c -o $@ $<

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)

$(FUZZ_BUILD)/libratrace.a: $(FUZZ_LIB_OBJ)
	$(call echo_cmd,AR,$@)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BINS): $(FUZZ_BUILD)/%: $(FUZZ_BUILD)/tests/fuzz/%.o $(FUZZ_BUILD)/libratrace.a
	$(call echo_cmd,LINK,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: pkgcheck
	@scripts/fuzz.sh probe $(FUZZ_CC)
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	@scripts/fuzz.sh run $(FUZZ_BUILD) $(FUZZ_OUT) $(FUZZ_TIME) $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)

# The test command of the README: installs what is missing, then builds, lints,
# builds the fuzz harnesses and fetches the guests' kernels at once, then runs
# every test (tests/run.sh: in parallel where tests allow, each under a time
# limit; T=PATTERN runs those whose name has PATTERN, J=N sets the jobs).
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_PKGS := chromium chromium-driver python3 xfsprogs btrfs-progs clang libclang-rt-dev postgresql \
	python3-junitparser libxml2-utils qemu-system-x86 busybox-static cpio \
	debian-archive-keyring shellcheck
RUN_FLAGS = $(if $(J),-j $(J)) $(T)
# the sanitizers' build runs two to four times slower: its tests' time limits are longer
TIMEOUT_SCALE = $(if $(SANITIZE),3,1)
check:
	@scripts/deps.sh $(CHECK_PKGS)
	@$(MAKE) --no-print-directory -j$$(($(NPROC) + 1)) all lint-shell fuzz-build fetch-kernels
	@RA_BUILD=$(BUILD) RA_TIMEOUT_SCALE=$(TIMEOUT_SCALE) tests/run.sh $(RUN_FLAGS)

# The quick tier for the edit loop: unit tests and the tests that need no root,
# tracefs, guests or browser (under 90 s).
test: all
	@RA_BUILD=$(BUILD) RA_TIMEOUT_SCALE=$(TIMEOUT_SCALE) tests/run.sh --tier quick $(RUN_FLAGS)

# The kernels the guest tests boot, into the kernel cache (once).
fetch-kernels: $(BUILD)/ra-vm
	@scripts/kernels.sh $(BUILD)

# shellcheck on every shell script (.shellcheckrc has the shell and the
# sourcing rules), and the build's warnings as errors.
SHELL_SCRIPTS = $(shell find . -path './build*' -prune -o -name '*.sh' -print | sort) .ci/run
lint: lint-shell all
lint-shell:
	@command -v shellcheck >/dev/null || { \
		echo "ratrace: no shellcheck; run 'make deps' or apt-get install shellcheck" >&2; exit 1; }
	$(call echo_cmd,LINT,shell-scripts)shellcheck -x $(SHELL_SCRIPTS)

# Readahead across kernel releases (not in check: a guest of every Debian
# kernel series it can fetch): the scenarios of rawl into docs/kernels.md.
kernels:
	@scripts/deps.sh qemu-system-x86 busybox-static cpio debian-archive-keyring
	@$(MAKE) --no-print-directory all
	@scripts/kernels-report.sh docs/kernels.md

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@RA_BIN=$(CURDIR)/$(BUILD) scripts/demo.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)
	install -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man1
	install -d $(DESTDIR)$(LIBEXECDIR)
	install -m 755 $(BUILD)/ra-vm $(DESTDIR)$(LIBEXECDIR)/ra-vm

uninstall:
	rm -f $(CMDS:%=$(DESTDIR)$(BINDIR)/%) $(MANS:docs/man/%=$(DESTDIR)$(MANDIR)/man1/%)
	rm -f $(DESTDIR)$(LIBEXECDIR)/ra-vm

format:
	clang-format -i include/*.h lib/*.[ch] collect/*/*.[ch] tests/unit/*.[ch] tests/tools/*.c \
		tests/fuzz/*.[ch]

clean:
	rm -rf build build-san $(FUZZ_BUILD)
