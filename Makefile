# SPDX-License-Identifier: GPL-2.0
#
# compsize: btrfs compression analyzer.
#
# Knobs:
#   V=1                      show the full compiler command lines
#   WERROR=1                 turn warnings into errors
#   SAN=address,undefined    build everything with these sanitizers
#   PREFIX=/usr/local        install prefix; DESTDIR for staged installs
#   LIBDIR=$(PREFIX)/lib     compsize-estimate.so goes in $(LIBDIR)/compsize
#   DOCDIR, MANDIR, BASHCOMPDIR  where the docs, the man page and the bash
#                            completion go (BASHCOMPDIR: bash-completion's
#                            completionsdir, moved under PREFIX)
#   FORCE=1                  let make install/uninstall replace or remove
#                            files that belong to a dpkg package
#   DYNAMIC=1                link libbtrfsutil as a shared library (default:
#                            static, which keeps a scan's resident size
#                            small)
#
# Targets: all (default), check (every test: tests/run.sh), check-unit,
#          check-cli, check-estimate, check-stats, check-san, deps, demo,
#          check-install, check-deb, install, uninstall, clean, fuzz,
#          fuzz-build, bench.

PREFIX  ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBDIR  ?= $(PREFIX)/lib
PKGLIBDIR ?= $(LIBDIR)/compsize
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/compsize
CC      ?= cc
CFLAGS  ?= -O2 -g
PKG_CONFIG ?= pkg-config
# bash-completion loads completions on demand from its completionsdir
# (/usr/share/bash-completion/completions) and from the same place under
# each of XDG_DATA_DIRS (/usr/local/share/... by default).
BASHCOMP_PC_DIR := $(shell $(PKG_CONFIG) --variable=completionsdir bash-completion 2>/dev/null)
BASHCOMP_PC_PREFIX := $(shell $(PKG_CONFIG) --variable=prefix bash-completion 2>/dev/null)
ifneq ($(and $(BASHCOMP_PC_DIR),$(BASHCOMP_PC_PREFIX)),)
BASHCOMPDIR ?= $(PREFIX)$(patsubst $(BASHCOMP_PC_PREFIX)/%,/%,$(BASHCOMP_PC_DIR))
else
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0)

# The main program links libbtrfsutil only; the codecs are linked into
# compsize-estimate.so (estimate/plugin/), loaded for --estimate alone
# (estimate/plugin.h).
CODECS_PC := libzstd lzo2 zlib
LIBS_PC := libbtrfsutil $(CODECS_PC)
WARN_FLAGS := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat=2 \
	-Wstrict-prototypes

# A missing -dev package stops the build here with one line naming it,
# not later with a compiler error.  make deps installs them all (Debian);
# check and demo run deps first and check in the make they start.
PC_DEB_libbtrfsutil := libbtrfsutil-dev
PC_DEB_libzstd := libzstd-dev
PC_DEB_lzo2 := liblzo2-dev
PC_DEB_zlib := zlib1g-dev
PC_DEB_cunit := libcunit1-dev
NO_PC_GOALS := deps check demo clean clean-fuzz clean-est-driver uninstall
ifneq ($(filter-out $(NO_PC_GOALS),$(or $(MAKECMDGOALS),all)),)
PC_NEED := $(LIBS_PC) $(if $(filter check-unit check-san check-stats tests/unit/run-unit,$(MAKECMDGOALS)),cunit)
ifeq ($(shell command -v $(PKG_CONFIG)),)
$(error $(PKG_CONFIG) not found: install pkg-config (make deps installs every build dependency))
endif
PC_MISSING := $(strip $(foreach p,$(PC_NEED),$(if $(shell $(PKG_CONFIG) --exists $(p) && echo y),,$(p))))
ifneq ($(PC_MISSING),)
$(error pkg-config cannot find $(PC_MISSING): install $(foreach p,$(PC_MISSING),$(PC_DEB_$(p))) (make deps installs every build dependency))
endif
endif

override CFLAGS += -std=gnu11 $(WARN_FLAGS) \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-DCOMPSIZE_VERSION='"$(VERSION)"' -pthread -fno-math-errno -I. \
	$(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
CODEC_LIBS := $(shell $(PKG_CONFIG) --libs $(CODECS_PC) 2>/dev/null)
ifeq ($(DYNAMIC),1)
override LDLIBS += $(shell $(PKG_CONFIG) --libs libbtrfsutil 2>/dev/null) -pthread
else
override LDLIBS += -Wl,-Bstatic $(shell $(PKG_CONFIG) --libs libbtrfsutil 2>/dev/null) \
	-Wl,-Bdynamic -pthread
endif
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif
ifneq ($(SAN),)
override CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=$(SAN)
endif
ifneq ($(V),1)
Q = @
E = @echo
else
Q =
E = @:
endif

# -fno-math-errno lets sqrt() compile to one instruction: no libm, whose
# mapping alone would add to the resident size of every run.
# The folders, in the order they depend on each other (HACKING.md): each
# .c in them and at the top is a library module, linked into the program
# and the tests, except the CLI (the program only); estimate/plugin/ is the
# estimator, compsize-estimate.so (linked into the tests): new modules
# need no Makefile edit.
SRC_DIRS := lib walk scan report estimate sample run
MAIN_SRCS := compsize.c
PLUGIN_SRCS := $(wildcard estimate/plugin/*.c)
CORE_SRCS := $(filter-out $(MAIN_SRCS),$(wildcard *.c $(SRC_DIRS:%=%/*.c)))
LIB_SRCS := $(CORE_SRCS) $(PLUGIN_SRCS)
CORE_OBJS := $(CORE_SRCS:.c=.o)
PLUGIN_OBJS := $(PLUGIN_SRCS:.c=.o)
LIB_OBJS := $(LIB_SRCS:.c=.o)
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(UNIT_SRCS:.c=.o)
DEPS := $(LIB_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) $(MAIN_SRCS:.c=.d)

all: compsize compsize-estimate.so compsize.8

-include $(DEPS) estimate/load-installed.d

%.o: %.c
	$(E) "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

tests/unit/%.o: tests/unit/%.c
	$(E) "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -I. -MMD -MP -c -o $@ $<

# -DCOMPSIZE_VERSION: a new VERSION rebuilds everything.
$(LIB_OBJS) $(MAIN_SRCS:.c=.o) estimate/load-installed.o $(UNIT_OBJS): VERSION

# The estimator is position independent and exports one symbol.
$(PLUGIN_OBJS): override CFLAGS += -fPIC -fvisibility=hidden
estimate/load.o: override CFLAGS += -DCOMPSIZE_PLUGIN_DIR='"$(PKGLIBDIR)"'
# estimate/load.o is rebuilt when PKGLIBDIR changes (make install PREFIX=/usr).
$(shell echo '$(PKGLIBDIR)' | cmp -s - .pkglibdir || echo '$(PKGLIBDIR)' >.pkglibdir)
estimate/load.o: .pkglibdir

compsize: $(MAIN_SRCS:.c=.o) $(CORE_OBJS)
	$(E) "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The program make install installs: the same but for estimate/load.c, which loads
# the estimator from $(PKGLIBDIR) only, never from beside the binary.
estimate/load-installed.o: estimate/load.c .pkglibdir
	$(E) "  CC      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -DCOMPSIZE_PLUGIN_DIR='"$(PKGLIBDIR)"' \
		-DCOMPSIZE_PLUGIN_BESIDE_EXE=0 -MMD -MP -c -o $@ $<
compsize-installed: $(MAIN_SRCS:.c=.o) estimate/load-installed.o \
		$(filter-out estimate/load.o,$(CORE_OBJS))
	$(E) "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The man page with this build's version and installed paths.
compsize.8: man/compsize.8 VERSION .pkglibdir .docdir
	$(E) "  GEN     $@"
	$(Q)sed -e 's|^\.ds Vn .*|.ds Vn $(VERSION)|' \
		-e 's|^\.ds Pl .*|.ds Pl $(PKGLIBDIR)|' \
		-e 's|^\.ds Dd .*|.ds Dd $(DOCDIR)|' man/compsize.8 >$@.tmp
	$(Q)mv $@.tmp $@
$(shell echo '$(DOCDIR)' | cmp -s - .docdir || echo '$(DOCDIR)' >.docdir)

compsize-estimate.so: $(PLUGIN_OBJS)
	$(E) "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -o $@ $^ $(CODEC_LIBS)

tests/unit/run-unit: $(UNIT_OBJS) $(LIB_OBJS)
	$(E) "  LD      $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CODEC_LIBS) \
		$(shell $(PKG_CONFIG) --libs cunit 2>/dev/null || echo -lcunit)

# Install what the build and the tests need (Debian/Ubuntu, as root).
DEB_PKGS := build-essential pkg-config btrfs-progs libbtrfsutil-dev \
	libzstd-dev liblzo2-dev zlib1g-dev libcunit1-dev btrfs-compsize \
	jq util-linux e2fsprogs attr clang libclang-rt-14-dev valgrind \
	librsvg2-bin libxml2-utils debhelper lintian fakeroot bash-completion \
	python3 ncdu tmux prometheus prometheus-node-exporter curl strace
deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS    installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

# make check: every test through tests/run.sh (tests/README.md): the unit
# tests, the CLI tests on loop-mounted btrfs (each compared on the fast
# scan and on --walk), the estimates against the kernel and the fuzzers
# (CHECK_FUZZ_SECONDS each beyond their corpus), one line per test and a
# verdict line.  TESTS='cli/04* unit' runs some of them, X=GROUP leaves a
# group out (make check X=fuzz), G=GROUP runs one (default auto).
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_FUZZ_SECONDS ?= 5
G ?= auto
RUN_TESTS = SANITIZED=$(if $(SAN),1,0) FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) \
	tests/run.sh $(foreach g,$(G),-g $(g)) $(foreach x,$(X),-x $(x))
check: deps
	$(Q)$(MAKE) -j$(NPROC) all tests/unit/run-unit fuzz-build
	$(Q)$(RUN_TESTS) $(TESTS)

check-unit: tests/unit/run-unit
	$(E) "  UNIT    tests/unit/run-unit"
	$(Q)./tests/unit/run-unit

check-cli: compsize compsize-estimate.so
	$(Q)$(RUN_TESTS) 'cli/*'

# The statistical calibration: the tests in group stats with their many
# seeds (STATS=1), each interval's coverage counted over them; make check
# runs them with a few seeds and every other check, the walk twins
# (tests/cli/README.md) included, which the calibration leaves out.
check-stats: compsize compsize-estimate.so tests/unit/run-unit
	$(Q)STATS=1 WALK_TWIN=0 SANITIZED=$(if $(SAN),1,0) \
		tests/run.sh -g stats $(TESTS)

# The CI's run under sanitizers (make SAN=address,undefined check-san):
# the units and the CLI tests in group san, chosen by coverage to reach
# every line the whole suite reaches (tests/coverage.sh); the fuzzers,
# always built with sanitizers, run in make check and make fuzz.
check-san: compsize compsize-estimate.so tests/unit/run-unit
	$(Q)SANITIZED=$(if $(SAN),1,0) tests/run.sh -g san -x fuzz $(TESTS)

demo: deps
	$(MAKE) compsize compsize-estimate.so
	$(Q)tests/demo.sh ./compsize

bench: compsize compsize-estimate.so
	$(Q)bench/run.sh ./compsize

# the kernel's qgroup figures alone, without the report (bench/qgroup.sh)
bench/qgroup-pass: bench/qgroup-pass.c scan/qgroup.o scan/search.o
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -I. $(LDFLAGS) -o $@ $^

# What make install puts where, and what it installs there.
INSTALLED := $(SBINDIR)/compsize:compsize-installed:755 \
	$(PKGLIBDIR)/compsize-estimate.so:compsize-estimate.so:644 \
	$(MANDIR)/man8/compsize.8:compsize.8:644 \
	$(DOCDIR)/estimate.md:docs/estimate.md:644 \
	$(DOCDIR)/sampling.md:docs/sampling.md:644 \
	$(DOCDIR)/rootless.md:docs/rootless.md:644 \
	$(BASHCOMPDIR)/compsize:completion/compsize.bash:644
INSTALLED_FILES := $(foreach f,$(INSTALLED),$(word 1,$(subst :, ,$(f))))

# A file that belongs to a dpkg package (Debian's btrfs-compsize owns
# /usr/sbin/compsize and compsize.8.gz) is neither replaced nor removed
# without FORCE=1: dpkg would not know, and the next upgrade would undo it.
define refuse_packaged
	$(Q)if [ "$(FORCE)" != 1 ] && command -v dpkg-query >/dev/null; then \
		for f in $(foreach f,$(INSTALLED_FILES),$(DESTDIR)$(f)) \
			 $(DESTDIR)$(MANDIR)/man8/compsize.8.gz; do \
			for g in "$$f" "$$(readlink -m "$$f")"; do \
				if p=$$(dpkg-query -S "$$g" 2>/dev/null); then \
					echo "make $(1): $$f belongs to the package $${p%%:*}: remove that package first, or $(1) with FORCE=1" >&2; \
					exit 1; \
				fi; \
			done; \
		done; \
	fi
endef

install: compsize-installed compsize-estimate.so compsize.8
	$(call refuse_packaged,install)
	$(Q)for f in $(INSTALLED); do \
		set -- $$(echo "$$f" | tr : ' '); \
		echo "  INSTALL $(DESTDIR)$$1"; \
		install -D -m $$3 "$$2" "$(DESTDIR)$$1" || exit 1; \
	done

uninstall:
	$(call refuse_packaged,uninstall)
	rm -f $(foreach f,$(INSTALLED_FILES),$(DESTDIR)$(f))
	-rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DOCDIR) 2>/dev/null

# make install into a temporary prefix: the installed program, its
# estimator, man page and completion (tests/install.sh).
check-install: compsize
	$(E) "  TEST    make install / uninstall"
	$(Q)tests/install.sh

# The Debian package: dpkg-buildpackage once, lintian, and the packaged
# program run from dpkg -x on a test image (tests/deb.sh; needs the
# DEB_PKGS below).
check-deb:
	$(E) "  TEST    Debian package"
	$(Q)tests/deb.sh

clean:
	rm -f compsize compsize-installed compsize-estimate.so compsize.8 \
		.pkglibdir .docdir *.o *.d $(foreach d,$(SRC_DIRS) estimate/plugin,$(d)/*.o $(d)/*.d) \
		tests/unit/*.o tests/unit/*.d tests/unit/run-unit bench/qgroup-pass

.PHONY: all deps check check-unit check-cli check-stats check-san \
	check-install check-deb demo \
	bench install uninstall clean

# estimate test driver: the estimate module alone, for tests/cli/estimate.
tests/cli/estimate/est-driver: tests/cli/estimate/est-driver.c $(PLUGIN_OBJS) \
		estimate/setting.o estimate/load.o
	$(E) "  LD      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -I. $(LDFLAGS) -o $@ $^ $(CODEC_LIBS)
# The estimates against the kernel (tests/cli/estimate/, group estimate
# of tests/run.sh; root, loop devices, a few minutes).
check-estimate: compsize compsize-estimate.so
	$(Q)$(RUN_TESTS) 'estimate/*'
clean: clean-est-driver
clean-est-driver:
	rm -f tests/cli/estimate/est-driver
.PHONY: check-estimate clean-est-driver

# ---- fuzz: libFuzzer harnesses (tests/fuzz/), clang only ----
# make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=2] builds tests/fuzz/<target>-fuzz
# with ASan and UBSan and runs each over its committed seed corpus
# (tests/fuzz/corpus/<target>/) and then for FUZZ_SECONDS, FUZZ_JOBS at a
# time (tests/run.sh -g fuzz; make check runs them too); new inputs and
# crash reproducers go to tests/fuzz/work/.  Rerun a crash:
# tests/fuzz/<target>-fuzz FILE.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_CC ?= clang
# A harness tests/fuzz/T.c for each corpus tests/fuzz/corpus/T/.
FUZZ_TARGETS := $(notdir $(wildcard tests/fuzz/corpus/*))
FUZZ_BINS := $(FUZZ_TARGETS:%=tests/fuzz/%-fuzz)
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all \
	-fsanitize=fuzzer-no-link,address,undefined -std=gnu11 $(WARN_FLAGS) \
	$(if $(filter 1,$(WERROR)),-Werror) -I. \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DCOMPSIZE_VERSION='"$(VERSION)"' \
	-pthread $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=tests/fuzz/obj/%.o)
# search-fuzz, batch-fuzz and tree-fuzz answer the ioctl() calls of scan/
# from a simulated kernel (tests/fuzz/sim-kernel.c).
FUZZ_LDFLAGS_search := -Wl,--wrap=ioctl
FUZZ_LDFLAGS_batch := -Wl,--wrap=ioctl
# tree-fuzz also stands in for libbtrfsutil's subvolume id lookup and for
# opening a subvolume by file handle.
FUZZ_LDFLAGS_tree := -Wl,--wrap=ioctl -Wl,--wrap=btrfs_util_subvolume_id_fd \
	-Wl,--wrap=open_by_handle_at

# All three answer from one simulated kernel.
tests/fuzz/search-fuzz tests/fuzz/batch-fuzz tests/fuzz/tree-fuzz: \
		tests/fuzz/sim-kernel.c

-include $(FUZZ_LIB_OBJS:.o=.d)
.SECONDARY: $(FUZZ_LIB_OBJS)

tests/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(E) "  FUZZCC  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

tests/fuzz/%-fuzz: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	$(E) "  FUZZLD  $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_LDFLAGS_$*) \
		-o $@ $^ $(LDLIBS) $(CODEC_LIBS)

fuzz-build: $(FUZZ_BINS)

# The same harnesses without libFuzzer, built by $(CC) with this build's
# flags (tests/fuzz/replay.c runs each input named, or each file of a
# directory named): to rerun a crash under gdb or valgrind, and for
# tests/coverage.sh to see what the corpora reach.
FUZZ_REPLAY_BINS := $(FUZZ_TARGETS:%=tests/fuzz/%-replay)
tests/fuzz/search-replay tests/fuzz/batch-replay tests/fuzz/tree-replay: \
		tests/fuzz/sim-kernel.c
tests/fuzz/%-replay: tests/fuzz/%.c tests/fuzz/replay.c $(LIB_OBJS)
	$(E) "  LD      $@"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -I. $(LDFLAGS) $(FUZZ_LDFLAGS_$*) \
		-o $@ $^ $(LDLIBS) $(CODEC_LIBS)
fuzz-replay: $(FUZZ_REPLAY_BINS)

fuzz: $(FUZZ_BINS)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run.sh -j $(FUZZ_JOBS) -g fuzz

clean: clean-fuzz
clean-fuzz:
	rm -rf tests/fuzz/obj tests/fuzz/work $(FUZZ_BINS) $(FUZZ_REPLAY_BINS) \
		tests/log
.PHONY: fuzz fuzz-build fuzz-replay clean-fuzz
