# Test programs and the fake CUDA driver, built into $(B)/programs and
# $(B)/fakecuda. Each program's comment says what it exercises.

B ?= build
P := $(B)/programs
FAKE := $(B)/fakecuda
S := tests/programs
CC ?= cc
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
TCFLAGS := -O1 -g -Wall -D_GNU_SOURCE

# churn: dlopen and dlclose the same libraries again and again.
SIMPLE_CHURN := churn
SIMPLE := hello noload dlmopen forkchild execchain closeall uexit segv crash \
	putshello fdcount errnokeep errnodrv spawn drvapi rtload forkgate fdfull tracefile \
	nowrite daemon
PROGRAMS := $(addprefix $(P)/,$(SIMPLE) $(SIMPLE_CHURN) threads forkrace runpath needsgone drvplt \
	hello-static uexit-static libwrapputs.so)
CUDA_PROGRAMS := $(if $(NVCC),$(P)/cudaprog-static $(P)/cudaprog-shared)

.PHONY: all
all: $(FAKE)/libcuda.so.1 $(PROGRAMS) $(CUDA_PROGRAMS)

$(P) $(P)/rp/sub $(FAKE):
	@mkdir -p $@

$(addprefix $(P)/,$(SIMPLE) $(SIMPLE_CHURN)): $(P)/%: $(S)/%.c | $(P)
	$(CC) $(TCFLAGS) -o $@ $<

$(P)/threads $(P)/forkrace: $(P)/%: $(S)/%.c | $(P)
	$(CC) $(TCFLAGS) -pthread -o $@ $<

# A statically linked program: the loader never runs, so nothing is traced.
$(P)/hello-static $(P)/uexit-static: $(P)/%-static: $(S)/%.c | $(P)
	$(CC) $(TCFLAGS) -static -o $@ $<

# main (RUNPATH $ORIGIN/rp) -> libcaller.so (RUNPATH $ORIGIN/sub) -> dlopen libtarget.so
$(P)/rp/sub/libtarget.so: $(S)/libtarget.c | $(P)/rp/sub
	$(CC) $(TCFLAGS) -shared -fPIC -o $@ $<
$(P)/rp/libcaller.so: $(S)/libcaller.c $(P)/rp/sub/libtarget.so
	$(CC) $(TCFLAGS) -shared -fPIC -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/sub' -o $@ $<
$(P)/runpath: $(S)/runpath.c $(P)/rp/libcaller.so
	$(CC) $(TCFLAGS) -o $@ $< -L$(P)/rp -lcaller -Wl,--enable-new-dtags,-rpath,'$$ORIGIN/rp'

# Linked against a library that is then removed.
$(P)/needsgone: $(S)/needsgone.c $(S)/libgone.c | $(P)
	@mkdir -p $(P)/gone
	$(CC) $(TCFLAGS) -shared -fPIC -o $(P)/gone/libgone.so $(S)/libgone.c
	$(CC) $(TCFLAGS) -o $@ $< -L$(P)/gone -lgone -Wl,-rpath,'$$ORIGIN/gone'
	rm -f $(P)/gone/libgone.so

$(P)/libwrapputs.so: $(S)/libwrapputs.c | $(P)
	$(CC) $(TCFLAGS) -shared -fPIC -o $@ $<

# The fake driver carries the scanner's rules to judge module images.
FAKE_SRC := tests/fakecuda/fakecuda.c elfscan/fatbin.c elfscan/cubin.c \
	elfscan/ptx.c elfscan/names.c elfscan/arch.c
$(FAKE)/libcuda.so.1: $(FAKE_SRC) | $(FAKE)
	$(CC) $(TCFLAGS) -std=c11 -Ielfscan -fPIC -fvisibility=hidden -shared \
		-Wl,-soname,libcuda.so.1 -o $@ $(FAKE_SRC)
	ln -sf libcuda.so.1 $(FAKE)/libcuda.so

$(P)/drvplt: $(S)/drvplt.c $(FAKE)/libcuda.so.1 | $(P)
	$(CC) $(TCFLAGS) -o $@ $< -L$(FAKE) -lcuda

$(P)/cudaprog-static: $(S)/cudaprog.cu | $(P)
	$(NVCC) -gencode arch=compute_80,code=sm_80 -o $@ $<
$(P)/cudaprog-shared: $(S)/cudaprog.cu | $(P)
	$(NVCC) --cudart shared -gencode arch=compute_80,code=sm_80 -o $@ $<
