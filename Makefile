# cudatrace: one GNU Makefile for the whole project.
#
#   make              build build/cudatrace (and the libraries); says 'run make deps'
#                     when the libraries it needs are not installed
#   make deps         install the Debian packages make check needs (as root;
#                     as a user: print the apt-get line)
#   make check        install missing Debian packages (as root), build, run every test
#   make check-real   cudatrace on Debian's real PyTorch, in a trixie root kept in
#                     /var/cache/cudatrace-tests (as root; never part of make check)
#   make check-cluster  cudatrace under Slurm, Open MPI and torchrun on two hosts made
#                     of namespaces, all taken down after (as root; never part of
#                     make check)
#   make demo         install the build's Debian packages, build, then cudatrace on
#                     the bundled example
#   make install      PREFIX, DESTDIR, BINDIR, LIBDIR, MANDIR, DOCDIR are honoured (and
#                     BASHCOMPDIR, ZSHCOMPDIR: where the shell completions go;
#                     SCHEMADIR: the JSON schemas)
#   make deb          build/deb/cudatrace_VERSION_amd64.deb (dpkg-buildpackage, debian/)
#   make wheel        build/dist/cudatrace-VERSION-py3-none-manylinux_2_N_x86_64.whl,
#                     built in a Debian bullseye root when it can be (WHEEL_BUILD)
#   make check-pkg    both, installed and run in a clean Debian root kept in
#                     /var/cache/cudatrace-tests (as root; never part of make check)
#   make check-fresh  make demo and make check on a newcomer's fresh Debian 12 and 13
#                     (minbase, git, make): as root under /root, as a user, as root
#                     without CAP_SYS_ADMIN; the wheel in a clean venv (as root; CI)
#   make SANITIZE=address,undefined check
#   make fuzz         install clang (tools/deps --fuzz), build the libFuzzer targets and
#                     run each FUZZ_SECONDS (60): fuzz-scan, fuzz-ldcache, fuzz-elfinfo,
#                     fuzz-trace, fuzz-diff, fuzz-zip, one at a time
#   make bench        speed against the peers, as ratios
#   V=1               show the compiler's command lines (make demo and make check
#                     build quietly)
#
# The user's CFLAGS/LDFLAGS come first; the flags the project needs are
# appended after them.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/cudatrace
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian's zsh searches vendor-completions under /usr (packages) and
# site-functions under /usr/local (the administrator's own installs).
ifeq ($(PREFIX),/usr)
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
else
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
endif
# The JSON schemas of every --json document (docs/schema/): data for
# validators, so not among the docs, which packagers compress.
SCHEMADIR ?= $(PREFIX)/share/cudatrace/schema
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
PKG_CONFIG ?= pkg-config
INSTALL ?= install
SANITIZE ?=
WERROR ?=
V ?=

# The one version: cudatrace --version, the shim's records, the wheel;
# debian/changelog must say the same (make deb checks it).
VERSION := 0.1.0
B := build

# zlib inflates wheels' members (cli/common/zip.c, cudatrace's own zip reader).
# STATIC_DEPS=1 (make wheel) links libelf, liblz4, libzstd and zlib into the
# binary from Debian's .a files, so that it runs where they are not installed.
PKGS := libelf liblz4 libzstd zlib
STATIC_DEPS ?=
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
ifeq ($(STATIC_DEPS),1)
DEPS_LIBS := $(shell $(PKG_CONFIG) --static --libs-only-L $(PKGS) 2>/dev/null) \
	-Wl,-Bstatic $(filter-out -pthread,$(shell $(PKG_CONFIG) --static --libs-only-l $(PKGS) 2>/dev/null)) \
	-Wl,-Bdynamic -ldl
else
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -ldl
endif
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla
CT_CFLAGS := -std=c11 -D_GNU_SOURCE -pthread $(WARNINGS) $(if $(WERROR),-Werror) \
	-DCUDATRACE_VERSION='"$(VERSION)"' $(DEPS_CFLAGS) \
	-DCT_LIBDIR='"$(LIBDIR)"' -DCT_MANDIR='"$(MANDIR)"' \
	$(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
CT_LDFLAGS := -pthread $(if $(SANITIZE),-fsanitize=$(SANITIZE))

ALL_CFLAGS = $(CFLAGS) $(CT_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(CT_LDFLAGS)

ELFSCAN_SRC := elfscan/fatbin.c elfscan/cubin.c elfscan/ptx.c elfscan/names.c \
	elfscan/arch.c elfscan/elf.c elfscan/scan.c elfscan/file.c elfscan/verify.c \
	elfscan/payload.c elfscan/kernels.c

# cli/ in layers (cli/README): each folder may include its own headers and
# those of the layers below it, and no others, so a wrong include does not
# compile. commands -> render -> model -> diagnose -> {loader, trace} ->
# common -> elfscan. The views of render/ see the report model and common/
# only (and elfscan/ and include/ because common's headers include them).
CLI_COMMON_SRC := $(wildcard cli/common/*.c)
CLI_TRACE_SRC := $(wildcard cli/trace/*.c)
CLI_LOADER_SRC := $(wildcard cli/loader/*.c)
CLI_DIAGNOSE_SRC := $(wildcard cli/diagnose/*.c)
CLI_MODEL_SRC := $(wildcard cli/model/*.c)
CLI_RENDER_SRC := $(wildcard cli/render/*.c)
CLI_CMD_SRC := $(wildcard cli/cmd/*.c)
CLI_SRC := $(CLI_CMD_SRC) $(CLI_RENDER_SRC) $(CLI_MODEL_SRC) $(CLI_DIAGNOSE_SRC) \
	$(CLI_LOADER_SRC) $(CLI_TRACE_SRC) $(CLI_COMMON_SRC)

INC_ELFSCAN := -Iinclude -Ielfscan
INC_COMMON := -Icli/common $(INC_ELFSCAN)
INC_TRACE := -Icli/trace $(INC_COMMON)
INC_LOADER := -Icli/loader $(INC_COMMON)
INC_DIAGNOSE := -Icli/diagnose -Icli/loader -Icli/trace $(INC_COMMON)
INC_MODEL := -Icli/model $(INC_DIAGNOSE)
INC_RENDER := -Icli/render -Icli/model $(INC_COMMON)
INC_CMD := -Icli/cmd -Icli/render $(INC_MODEL)
# The whole CLI's, for the unit tests and fuzzers.
INC_CLI := $(INC_CMD)

# The shim: its own sources, the libc-only part of the scanner (the fatbin
# walker, not the libelf reader), hidden and linked in, and no sanitizer:
# it runs inside other people's programs.
SHIM_SRC := preload/record.c preload/util.c preload/objects.c preload/audit.c \
	preload/hooks.c preload/driver.c
SHIM_ELFSCAN := elfscan/fatbin.c elfscan/cubin.c elfscan/ptx.c elfscan/names.c
SHIM_OBJ := $(SHIM_SRC:%.c=$(B)/shim/%.o) $(SHIM_ELFSCAN:%.c=$(B)/shim/%.o) \
	$(B)/shim/preload/tailcall.o
SHIM_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNINGS) $(if $(WERROR),-Werror) \
	-DCUDATRACE_VERSION='"$(VERSION)"' -Iinclude -Ielfscan -Ipreload \
	-fPIC -fvisibility=hidden -ffunction-sections -fdata-sections
SHIM_LDFLAGS := -shared -Wl,--version-script=$(B)/shim/exports.map \
	-Wl,--gc-sections -Wl,-z,now -Wl,-z,relro -Wl,-z,defs -static-libgcc

ELFSCAN_OBJ := $(ELFSCAN_SRC:%.c=$(B)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)

.PHONY: all clean install deps check check-real check-pip check-cluster check-gpu check-pkg \
	check-fresh demo fuzz bench fixtures programs deb wheel need-libs
all: $(B)/cudatrace $(B)/libcudatrace.so

# Before the first compile: what the build needs, found, or one message that
# says how to get it (not forty lines of undefined references). Order-only,
# so it never makes anything rebuild.
need-libs:
	@command -v $(firstword $(CC)) >/dev/null 2>&1 || \
		{ echo "cudatrace: cannot build: no C compiler ('$(firstword $(CC))'); run 'make deps' (as root: it installs what the build and the tests need)" >&2; exit 1; }
	@command -v $(PKG_CONFIG) >/dev/null 2>&1 || \
		{ echo "cudatrace: cannot build: $(PKG_CONFIG) not found; run 'make deps' (as root: it installs what the build and the tests need)" >&2; exit 1; }
	@missing=; for p in $(PKGS); do $(PKG_CONFIG) --exists $$p || missing="$$missing $$p"; done; \
	echo '#include <uthash.h>' | $(CC) $(CPPFLAGS) $(CFLAGS) -E -x c - >/dev/null 2>&1 || missing="$$missing uthash"; \
	[ -z "$$missing" ] || { echo "cudatrace: cannot build: the development files of$$missing are not installed" >&2; \
		echo "cudatrace: run 'make deps' (as root: it installs what the build and the tests need; as a user it prints the apt-get line)" >&2; exit 1; }

$(ELFSCAN_OBJ) $(CLI_OBJ): | need-libs

$(B)/elfscan/%.o: LAYER_INC = $(INC_ELFSCAN)
$(B)/cli/common/%.o: LAYER_INC = $(INC_COMMON)
$(B)/cli/trace/%.o: LAYER_INC = $(INC_TRACE)
$(B)/cli/loader/%.o: LAYER_INC = $(INC_LOADER)
$(B)/cli/diagnose/%.o: LAYER_INC = $(INC_DIAGNOSE)
$(B)/cli/model/%.o: LAYER_INC = $(INC_MODEL)
$(B)/cli/render/%.o: LAYER_INC = $(INC_RENDER)
$(B)/cli/cmd/%.o: LAYER_INC = $(INC_CMD)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LAYER_INC) -MMD -MP -c -o $@ $<

# The include path of one layer (LAYER=loader ...), for tests/e2e/layers.
.PHONY: print-layer-flags
print-layer-flags:
	@echo $(INC_$(shell echo $(LAYER) | tr a-z A-Z))

$(B)/libelfscan.a: $(ELFSCAN_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# The CLI without main(), so unit tests can link its modules.
$(B)/libct.a: $(filter-out $(B)/cli/cmd/main.o,$(CLI_OBJ))
	rm -f $@
	$(AR) rcs $@ $^

$(B)/cudatrace: $(B)/cli/cmd/main.o $(B)/libct.a $(B)/libelfscan.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DEPS_LIBS)

$(B)/shim/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SHIM_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/shim/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SHIM_CFLAGS) -c -o $@ $<

# The version script, from the one hook list (preload/hooks.def).
$(B)/shim/exports.map: preload/exports.map.in preload/hooks.def
	@mkdir -p $(dir $@)
	$(CC) -E -P -undef -x c -o $@ preload/exports.map.in

$(B)/libcudatrace.so: $(SHIM_OBJ) $(B)/shim/exports.map
	$(CC) $(CFLAGS) $(SHIM_CFLAGS) $(LDFLAGS) $(SHIM_LDFLAGS) -o $@ $(SHIM_OBJ)

-include $(ELFSCAN_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(SHIM_OBJ:.o=.d)

# --- tests -----------------------------------------------------------------

UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

$(B)/tests/test_%: tests/unit/test_%.c tests/unit/helpers.h tests/unit/scratch.h tests/unit/world.h $(B)/libct.a $(B)/libelfscan.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_CLI) $(CMOCKA_CFLAGS) -Itests/unit -o $@ $< \
		$(B)/libct.a $(B)/libelfscan.a $(ALL_LDFLAGS) $(CMOCKA_LIBS) $(DEPS_LIBS)

# Fixtures built from tests/fixtures/src with nvcc when it is there; test
# programs and the fake CUDA driver for the shim's tests.
fixtures: $(B)/cudatrace
	@$(MAKE) --no-print-directory -f tests/fixtures/fixtures.mk B=$(B)
programs: $(B)/examples/gpuapp
	@$(MAKE) --no-print-directory -f tests/programs/programs.mk B=$(B) CC="$(CC)"

# The program the examples of examples/findings run (a framework's start, step by step).
$(B)/examples/gpuapp: examples/findings/gpuapp.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -ldl

# Quiet builds (V=1 shows the compiler's lines), then each test as it ends.
QUIET = $(if $(V),,-s)

check: deps
	@echo "make check: building cudatrace, the unit tests and the test programs in $(B)/"
	@$(MAKE) --no-print-directory $(QUIET) all $(UNIT_TESTS)
	@$(MAKE) --no-print-directory $(QUIET) fixtures programs
	@tests/run $(B)

# Debian's PyTorch 2.6 (CUDA 12.4) in a trixie root that tools/make-real-root
# builds once (about 1.4 GB downloaded) into /var/cache/cudatrace-tests;
# cudatrace is built inside it from this checkout. Never part of make check.
# A skip (not root, no mmdebstrap) is not an error here; .ci/run makes it one.
check-real:
	@tools/deps --real || :
	@WERROR=$(WERROR) tests/real/run $(B); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# The real launchers of a cluster on this machine (tests/cluster/run): two
# hosts in namespaces of their own, MUNGE, Slurm (slurmctld, a slurmd per
# host), Open MPI and torchrun, in a trixie root that tools/make-real-root
# --cluster builds once into /var/cache/cudatrace-tests (about 15 MB
# downloaded beyond check-real's .deb files); everything taken down after.
# As root; never part of make check. A skip (not root, no namespaces) is
# not an error here; .ci/run makes it one.
check-cluster:
	@tools/deps --real || :
	@WERROR=$(WERROR) tests/cluster/run $(B); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# Real venvs built once with pip from pinned, hashed lock files (torch 2.15 and
# its CUDA 13 wheels, ONNX Runtime, TensorFlow, xformers, bitsandbytes, CuPy,
# JAX: tools/make-pip-venvs, about 7 GB of wheels) into
# /var/cache/cudatrace-tests/pip; cudatrace run in them on machines without
# CUDA (tests/pip). Never part of make check. A skip (not root) is not an
# error here; .ci/run makes it one.
check-pip: all
	@tools/deps --pip || :
	@WERROR=$(WERROR) tests/pip/run $(B); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# On a machine with an NVIDIA GPU (and torch): never part of make check.
check-gpu: all
	@$(MAKE) --no-print-directory programs
	@tests/gpu/run $(B)

# Installs the Debian packages the build and the tests need, when missing
# (tools/deps: each target installs only what it uses).
deps:
	@tools/deps

demo:
	@tools/deps --build
	@echo "make demo: building cudatrace in $(B)/"
	@$(MAKE) --no-print-directory $(QUIET) all $(B)/examples/trace-demo
	@examples/demo $(B)

$(B)/examples/trace-demo: examples/trace-demo/app.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -ldl

# --- fuzzing and benchmarks -------------------------------------------------

# One harness per untrusted-input parser, each run FUZZ_SECONDS on its own
# corpus: the scanner's $(B)/fuzz-corpus seeded from the committed fixtures,
# the others' $(B)/fuzz-corpus-NAME by tests/fuzz/seeds from this machine's
# files. Crashes land in $(B)/fuzz-crashes/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(CT_CFLAGS) $(INC_CLI)
FUZZ_RUN = -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(B)/fuzz-crashes/ \
	-print_final_stats=1
LIBELF_LIBS := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null)
ZLIB_LIBS := $(shell $(PKG_CONFIG) --libs zlib 2>/dev/null)

.PHONY: fuzz-scan fuzz-ldcache fuzz-elfinfo fuzz-trace fuzz-diff fuzz-zip
fuzz:
	@tools/deps --fuzz
	@$(MAKE) --no-print-directory $(B)/fuzz_scan $(B)/fuzz_ldcache $(B)/fuzz_elfinfo \
		$(B)/fuzz_trace $(B)/fuzz_diff $(B)/fuzz_zip
	@$(MAKE) --no-print-directory -j1 fuzz-scan fuzz-ldcache fuzz-elfinfo fuzz-trace fuzz-diff \
		fuzz-zip

fuzz-scan: $(B)/fuzz_scan
	@mkdir -p $(B)/fuzz-corpus $(B)/fuzz-crashes
	@cp tests/fixtures/committed/*.so tests/fixtures/committed/*.o \
		tests/fixtures/committed/*.fatbin tests/fixtures/committed/*.cubin \
		tests/fixtures/committed/*.ptx $(B)/fuzz-corpus/
	$(B)/fuzz_scan $(FUZZ_RUN) $(B)/fuzz-corpus

fuzz-ldcache fuzz-elfinfo fuzz-trace fuzz-diff fuzz-zip: fuzz-%: $(B)/fuzz_%
	@mkdir -p $(B)/fuzz-crashes
	@CC="$(CC)" tests/fuzz/seeds $* $(B)/fuzz-corpus-$*
	$(B)/fuzz_$* $(FUZZ_RUN) $(B)/fuzz-corpus-$* </dev/null

$(B)/fuzz_scan: tests/fuzz/fuzz_scan.c $(ELFSCAN_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(DEPS_LIBS)

$(B)/fuzz_ldcache: tests/fuzz/fuzz_ldcache.c cli/loader/ldcache.c cli/common/util.c \
		cli/common/files.c cli/loader/ldcache.h cli/loader/platform.h cli/common/util.h \
		cli/common/files.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(B)/fuzz_elfinfo: tests/fuzz/fuzz_elfinfo.c cli/loader/elfinfo.c cli/common/util.c \
		cli/common/files.c cli/loader/elfinfo.h cli/common/util.h cli/common/files.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(LIBELF_LIBS)

# The zip reader of wheels: the archive and every member, read through.
$(B)/fuzz_zip: tests/fuzz/fuzz_zip.c cli/common/zip.c cli/common/util.c cli/common/zip.h \
		cli/common/util.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(ZLIB_LIBS)

# The reader and the report, whole: everything below the commands.
$(B)/fuzz_trace: tests/fuzz/fuzz_trace.c $(CLI_RENDER_SRC) $(CLI_MODEL_SRC) $(CLI_DIAGNOSE_SRC) \
		$(CLI_LOADER_SRC) $(CLI_TRACE_SRC) $(CLI_COMMON_SRC) $(ELFSCAN_SRC) \
		$(wildcard cli/*/*.h cli/*/*.def include/*.h include/*.def elfscan/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(DEPS_LIBS)

# diff's comparing and printing: what two pasted documents reach.
$(B)/fuzz_diff: tests/fuzz/fuzz_diff.c $(CLI_RENDER_SRC) $(CLI_MODEL_SRC) $(CLI_DIAGNOSE_SRC) \
		$(CLI_LOADER_SRC) $(CLI_TRACE_SRC) $(CLI_COMMON_SRC) $(ELFSCAN_SRC) \
		$(wildcard cli/*/*.h cli/*/*.def include/*.h include/*.def elfscan/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(DEPS_LIBS)

# bench/scan's page counter: the scanner's public API on a file mapped
# with no access rights, each page opened and counted as it is touched.
$(B)/bench/scan_pages: bench/scan_pages.c $(B)/libelfscan.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_ELFSCAN) -o $@ $< $(B)/libelfscan.a \
		$(ALL_LDFLAGS) $(DEPS_LIBS)

# cat of the pages a scan touches: the I/O floor bench/scan compares with.
$(B)/bench/cat_pages: bench/cat_pages.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)

# A command's own peak RSS, which a process started by Python cannot report.
$(B)/bench/peak_rss: bench/peak_rss.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS)

bench: all programs $(B)/bench/scan_pages $(B)/bench/peak_rss $(B)/bench/cat_pages
	@bench/scan
	@bench/trace
	@bench/ldd
	@bench/report

# --- installation ------------------------------------------------------------

# The binary finds the shim next to itself, in ../lib/cudatrace (wherever the
# two are installed: BINDIR=PREFIX/bin and LIBDIR=PREFIX/lib, as the .deb and
# the wheel have them) or in LIBDIR/cudatrace as built in.
# The .deb is made of what this target installs (debian/rules).
install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR)/cudatrace \
		$(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 755 $(B)/cudatrace $(DESTDIR)$(BINDIR)/cudatrace
	$(INSTALL) -m 644 $(B)/libcudatrace.so $(DESTDIR)$(LIBDIR)/cudatrace/libcudatrace.so
	$(INSTALL) -m 644 docs/cudatrace.1 $(DESTDIR)$(MANDIR)/man1/cudatrace.1
	$(INSTALL) -m 644 README.md LICENSE docs/*.md $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -d $(DESTDIR)$(SCHEMADIR)
	$(INSTALL) -m 644 docs/schema/*.json docs/schema/README.md $(DESTDIR)$(SCHEMADIR)/
	$(INSTALL) -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 644 completions/cudatrace.bash $(DESTDIR)$(BASHCOMPDIR)/cudatrace
	$(INSTALL) -m 644 completions/_cudatrace $(DESTDIR)$(ZSHCOMPDIR)/_cudatrace

# --- packages ------------------------------------------------------------------

# dpkg-buildpackage on a copy of the checkout in $(B)/deb/cudatrace-VERSION
# (so that debhelper's files stay out of the checkout); the .deb, .buildinfo
# and .changes land in $(B)/deb/.
deb:
	@tools/deps --deb
	@tools/make-deb $(B)/deb $(VERSION)

# The binary linked with static libelf, liblz4, libzstd and zlib, built in
# a Debian bullseye root (glibc 2.31; tools/make-wheel-root builds it once
# into /var/cache/cudatrace-tests) into $(B)/wheel-bullseye, or on this
# machine into $(B)/wheel (tools/build-wheel; WHEEL_BUILD=auto: the root
# when it can be had, else this machine, saying so; bullseye, host: that
# one or an error). The wheel in $(B)/dist, tagged with the newest glibc
# symbol version the binary and the shim need (tools/make-wheel measures it).
WHEEL_BUILD ?= auto
wheel:
	@tools/deps --wheel
	@WERROR=$(WERROR) tools/build-wheel $(B) $(VERSION) $(WHEEL_BUILD)

# The .deb and the wheel installed into a clean Debian root that
# tools/make-pkg-root builds once into /var/cache/cudatrace-tests (about
# 350 MB), and run there. Never part of make check. A skip (not root, no
# mmdebstrap) is not an error here; .ci/run makes it one.
check-pkg: all
	@tools/deps --pkg || :
	@tests/pkg/run $(B); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

# The README's two commands (make demo, make check) on a newcomer's fresh
# machine: minbase roots of bookworm and trixie (git and make only) that
# tools/make-pkg-root --fresh builds once into /var/cache/cudatrace-tests,
# the checkout's HEAD cloned into /root (mode 0700) and into a user's home;
# as root in a container (docker's capabilities, no TERM), as root, as that
# user; and the wheel in a clean venv (tests/fresh/run; CHECK_FRESH_SUITES,
# CHECK_FRESH_AS pick). Never part of make check; .ci/run runs it.
check-fresh:
	@tools/deps --fresh || :
	@tests/fresh/run $(B); rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

clean:
	rm -rf $(B)
