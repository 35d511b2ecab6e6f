# Build, test, benchmark and install. Every top-level target first runs
# tools/deps.sh, which apt-installs missing Debian packages (idempotent).

PREFIX   ?= /usr/local
CC       ?= gcc
LUA      ?= lua5.4
BUILD    ?= build
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
WARN     := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wno-unused-parameter
# baseline x86-64: the binary runs on any x86-64 CPU; our hot loops pick
# AVX-512 / AVX2 / SSE2 at run time (src/tensor/th_cpu.h), OpenBLAS its own
# kernels. OPT="-O3 -march=native" builds for this machine only.
OPT      ?= -O3
# -fno-math-errno: sqrt and friends need not set errno (nothing here reads
# it), so the compiler emits vsqrtps instead of a scalar call guarded by a
# compare: LRN's loops and Tensor:sqrt vectorize (docs/dev/benchmark-notes.md)
CFLAGS   += -std=gnu11 -fPIC -fopenmp -fno-math-errno $(OPT) $(WARN) $(LUA_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  += -shared -fopenmp -Wl,-z,nodelete  # never unloaded: libgomp threads outlive lua_close
LDLIBS   := -lopenblas -lpng -ljpeg -lm

SRCS := $(wildcard src/tensor/*.c src/nn/*.c src/plan/*.c src/image/*.c src/lua/*.c src/threads/*.c src/tds/*.c)
HDRS := $(wildcard src/*/*.h src/*/generic/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/obj/%.o)
LIB  := $(BUILD)/torch/core.so

CORETYPE := $(shell tools/coretype.sh)
RUNENV := OPENBLAS_CORETYPE=$(CORETYPE) OMP_WAIT_POLICY=$(or $(OMP_WAIT_POLICY),passive) LUA_PATH="$(CURDIR)/lua/?.lua;$(CURDIR)/lua/?/init.lua;$(CURDIR)/?.lua;$(CURDIR)/?/init.lua;;" LUA_CPATH="$(CURDIR)/$(BUILD)/?.so;;"

.PHONY: all deps build test test-asan test-run test-upstream demo install clean bench-speed bench-gemm bench-winograd bench-layers bench-convlayers bench-memory bench-step bench-rnn bench-deps viz-deps bench-mpi demo-mpi

all: build

deps:
	@tools/deps.sh

build: deps
	@$(MAKE) --no-print-directory $(LIB) $(MPI_LIB)

$(LIB): $(OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS) $(EXTRA_LDFLAGS)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# --- Open MPI (src/mpi -> $(BUILD)/mpi/core.so, require 'mpi'): built only
# where mpicc is (tools/deps.sh installs it). Linked against torch/core.so
# (DT_NEEDED core.so, rpath $$ORIGIN/../torch): the loader binds it to the copy
# Lua loaded, so tensors, allocator and metatables are the engine's own.
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
MPI_SRCS   := $(wildcard src/mpi/*.c)
MPI_LIB    := $(if $(MPI_LIBS),$(BUILD)/mpi/core.so)

$(BUILD)/obj/src/mpi/%.o: src/mpi/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(MPI_CFLAGS) -c $< -o $@

$(BUILD)/mpi/core.so: $(MPI_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(MPI_SRCS:%.c=$(BUILD)/obj/%.o) -L$(BUILD)/torch -l:core.so \
	  -Wl,-rpath,'$$ORIGIN/../torch' $(MPI_LIBS) -ldl $(EXTRA_LDFLAGS)

# make test [SPEC="files or dirs"] [JOBS=n] [BUSTED_ARGS=...]: the spec files
# run in JOBS busted processes at once (default: one per core), longest first
# (tools/spectest.sh: one summary line in busted's format, then every
# failure as busted prints it). One file, or JOBS=1, is one plain busted run.
# SPEC_ALONE: files that run after the others, one at a time, with the
# machine to themselves. None need it today: every file makes its own temp
# names (os.tmpname), tmux socket and mpirun job, and the MPI specs (4 ranks
# oversubscribed, 120 s limits) pass beside another file on 2 loaded cores.
# Each run writes its per-file times to $(BUILD)/spec_times.txt, which orders
# the next run here (tools/spec_times.txt until then).
JOBS ?= $(shell nproc)
SPEC_ALONE ?=
SPECTEST = $(RUNENV) JOBS=$(JOBS) SPEC_BUSTED="$(LUA) /usr/bin/busted" SPEC_ALONE="$(SPEC_ALONE)" \
  SPEC_TIMES_LOCAL=$(CURDIR)/$(BUILD)/spec_times.txt tools/spectest.sh $(BUSTED_ARGS) --
test: build
	@$(SPECTEST) $(or $(SPEC),spec)

# ASan + UBSan build of the same module, running the spec suite but for
# ASAN_SKIP: specs that drive optnet's Lua over whole zoo nets, whose C
# kernels the other specs run already (they run in make test); and with
# MODCHECK_OPTNET=0 the module harness leaves out its optnet checks (Lua
# planning over the same kernels). This keeps CI's two runs within time.
ASAN_SKIP := spec/optnet_lifecycle_spec.lua spec/optnet_inplace_traits_spec.lua spec/demo_spec.lua \
             spec/optnet_spec.lua spec/models_spec.lua spec/optnet_recompute_spec.lua \
             spec/optnet_verify_spec.lua spec/optnet_neverworse_spec.lua spec/optnet_smalltrace_spec.lua \
             spec/optnet_fuzz_spec.lua
ASAN_SPEC ?= $(filter-out $(ASAN_SKIP),$(sort $(wildcard spec/*_spec.lua)))
test-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" EXTRA_LDFLAGS="-fsanitize=address,undefined" build-asan/torch/core.so $(if $(MPI_LIBS),build-asan/mpi/core.so)
	@$(MAKE) --no-print-directory BUILD=build-asan SPEC="$(or $(SPEC),$(ASAN_SPEC))" \
	  PRELOAD='MODCHECK_OPTNET=0 LD_PRELOAD="$(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libubsan.so)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1' test-run

# runs the specs against an already built $(BUILD); PRELOAD carries sanitizer runtimes
test-run:
	@$(PRELOAD) $(SPECTEST) $(or $(SPEC),spec)

# Third-party and upstream suites run unchanged from checkouts outside the
# tree (never vendored): UPSTREAM names the folder holding them, one folder per
# repository (threads, tds, argcheck, torch-totem, lua---nnx, torch-rnn, ...).
# Each tools/upstream/<name>.sh runs one suite from $$UPSTREAM/<name> and exits
# non-zero on a failure; a suite whose checkout is absent is skipped.
UPSTREAM ?= $(CURDIR)/../upstream
test-upstream: build
	@UPSTREAM="$(UPSTREAM)" RUNENV='$(RUNENV)' tools/upstream/run.sh $(SUITES)

demo: build
	$(RUNENV) $(LUA) examples/demo.lua

bench-deps:
	@tools/deps.sh python3-torch

# optional: graphviz's dot renders optnet.graphgen's graphs to SVG (optnet.dot,
# tools/memreport.lua); without it only the .dot text is written and the
# specs that render skip
viz-deps:
	@tools/deps.sh graphviz

# the FP32 FMA peak probe of bench-speed, bench-gemm and bench-layers:
# baseline flags, it picks AVX-512 or AVX2 + FMA at run time
$(BUILD)/fma_peak: bench/fma_peak.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WARN) bench/fma_peak.c -o $@

bench-speed: build $(BUILD)/fma_peak
	$(RUNENV) FMA_PEAK=$(CURDIR)/$(BUILD)/fma_peak $(LUA) bench/speed.lua

# our sgemm against OpenBLAS's per shape, with the FMA peak (docs/benchmarks.md)
bench-gemm: build $(BUILD)/fma_peak
	$(RUNENV) $(LUA) bench/gemm.lua $(BUILD)/fma_peak

# bench-layers: first every convolution shape of the model zoo, forward,
# gradInput and gradWeight against the FMA peak with the variant taken
# (bench/convlayers.lua, docs/benchmarks.md; bench-convlayers alone), then
# the memory-bound layers on 1 and 2 threads, built with every parallel
# threshold at 0 (BUILD_PAR0): where a second thread pays (prints key=value lines)
BUILD_PAR0 ?= build-par0
bench-convlayers: build $(BUILD)/fma_peak
	$(RUNENV) $(LUA) bench/convlayers.lua $(CURDIR)/$(BUILD)/fma_peak

bench-layers: bench-convlayers
	$(MAKE) build BUILD=$(BUILD_PAR0) EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DTH_NN_PAR_MIN_BN=0 -DTH_NN_PAR_MIN_POOL=0 -DTH_NN_PAR_MIN_POOL_BWD=0 -DTH_NN_PAR_MIN_CHEAP=0 -DACT_PAR_MIN_CHEAP=0"
	$(RUNENV) LUA_CPATH="$(CURDIR)/$(BUILD_PAR0)/?.so;;" $(LUA) bench/layers.lua 40

# per-layer Winograd F(2x2,3x3) against im2col + gemm (prints a table)
bench-winograd: build
	$(RUNENV) $(LUA) bench/winograd.lua

bench-memory: build
	$(RUNENV) $(LUA) bench/memory.lua
	$(RUNENV) $(LUA) bench/step.lua

# the whole training step with Adam against the plain loop and PyTorch (docs/benchmarks.md)
bench-step: build
	$(RUNENV) $(LUA) bench/step.lua

bench-rnn: build
	$(RUNENV) $(LUA) bench/rnn.lua

# ours (dataparallel over Open MPI) against PyTorch DDP on gloo, R = 1, 2 (and 4)
bench-mpi: build
	$(RUNENV) $(LUA) bench/mpi.lua

# examples/train_mpi.lua on 2 ranks
demo-mpi: build
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 bin/th examples/train_mpi.lua

# the memory planner's plain C test program (src/plan has no Lua): property
# tests, hand-made cases, then timings and quality ratios (PLAN_TEST_ARGS=--quick skips those)
.PHONY: test-plan
PLAN_SRCS := $(wildcard src/plan/*.c) src/tensor/th_error.c
$(BUILD)/tests/plan_test: tests/plan_test.c $(PLAN_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) $(EXTRA_CFLAGS) -o $@ tests/plan_test.c $(PLAN_SRCS) $(EXTRA_LDFLAGS) \
	  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc

test-plan: $(BUILD)/tests/plan_test
	$(BUILD)/tests/plan_test $(PLAN_TEST_ARGS)

# th_pool (the sgemm's helper threads) under concurrent callers: every chunk
# run exactly once (POOL_TSAN=1 builds it with ThreadSanitizer)
.PHONY: test-pool
POOL_TEST := $(BUILD)/tests/pool_test$(if $(POOL_TSAN),_tsan)
$(POOL_TEST): tests/pool_test.c src/tensor/th_pool.c src/tensor/th_pool.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(OPT) $(WARN) $(EXTRA_CFLAGS) $(if $(POOL_TSAN),-fsanitize=thread -g) -o $@ \
	  tests/pool_test.c src/tensor/th_pool.c -lpthread

test-pool: $(POOL_TEST)
	$(POOL_TEST)

# make install [PREFIX=/usr/local] [DESTDIR=staging]: tools/install.sh puts
# the Lua modules, models/, core.so, bin/th, tools/*.lua and the docs, and
# lists them in DATADIR/install-manifest.txt; make uninstall removes exactly
# those. LUADIR and LIBDIR must stay PREFIX/share/lua/5.4 and
# PREFIX/lib/lua/5.4 as seen from BINDIR/.. (the installed th looks there);
# luarocks passes its own (torch-optnet-scm-1.rockspec) and moves them so.
LUADIR  ?= $(PREFIX)/share/lua/5.4
LIBDIR  ?= $(PREFIX)/lib/lua/5.4
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/torch-optnet
DOCDIR  ?= $(PREFIX)/share/doc/torch-optnet
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" LUADIR="$(LUADIR)" LIBDIR="$(LIBDIR)" BINDIR="$(BINDIR)" \
  DATADIR="$(DATADIR)" DOCDIR="$(DOCDIR)" LIB="$(LIB)" MPI_LIB="$(MPI_LIB)"

.PHONY: uninstall install-files lib
install: build
	@$(MAKE) --no-print-directory install-files

# without tools/deps.sh (luarocks builds with 'lib', installs with this)
lib: $(LIB)

install-files: $(LIB) $(MPI_LIB)
	@$(INSTALL_ENV) tools/install.sh install

uninstall:
	@$(INSTALL_ENV) tools/install.sh uninstall

clean:
	rm -rf build build-asan build-vg build-fuzz

# --- fuzzing (fuzz/): libFuzzer harnesses built with clang, ASan and UBSan.
# `make fuzz FUZZ_SECONDS=N` runs each harness for N seconds, one after the
# other, on one core (fuzz/run.sh: fork mode, a finding does not stop the
# run); FUZZ_TARGETS picks a subset (load, ascii, modload, ckpt, dataset, view, image, plan).
# Corpora grow in fuzz/corpus-<name>/ (not committed); findings land in
# build-fuzz/findings/<name>/, a summary table is printed and the target
# fails if any harness found something: copy the input to
# fuzz/regressions/<name>/ with the fix, and spec/fuzz_regression_spec.lua
# replays it in `make test`.
.PHONY: fuzz fuzz-build
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= load ascii modload ckpt dataset view image plan
FUZZ_BUILD   := build-fuzz
FUZZ_CC      := clang
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -Wno-unknown-pragmas $(LUA_CFLAGS) -DFUZZ_ROOT='"$(CURDIR)"'
FUZZ_CORE    := $(wildcard src/tensor/*.c)
FUZZ_ALL     := $(SRCS)

$(FUZZ_BUILD)/fuzz_view: fuzz/fuzz_view.c $(FUZZ_CORE) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ fuzz/fuzz_view.c $(FUZZ_CORE) -lopenblas -lm

# one Lua harness, four drivers: torch.load in both modes, the ascii reader
# alone, saved nets with flipped bytes run forward and backward,
# dataparallel's checkpoints with flipped bytes checked, resumed and
# stepped, and the dataset readers (MNIST idx, CIFAR-10 binary) with a
# Loader epoch
$(FUZZ_BUILD)/fuzz_load $(FUZZ_BUILD)/fuzz_ascii $(FUZZ_BUILD)/fuzz_modload $(FUZZ_BUILD)/fuzz_ckpt $(FUZZ_BUILD)/fuzz_dataset: $(FUZZ_BUILD)/fuzz_%: \
  fuzz/fuzz_load.c $(FUZZ_ALL) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_DRIVER='"fuzz/$*_driver.lua"' -o $@ fuzz/fuzz_load.c $(FUZZ_ALL) \
	  -llua5.4 -lopenblas -lpng -ljpeg -lm

$(FUZZ_BUILD)/fuzz_plan: fuzz/fuzz_plan.c $(wildcard src/plan/*.c) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ fuzz/fuzz_plan.c $(wildcard src/plan/*.c) src/tensor/th_error.c -lm

# the image decoders with a 16 MB cap on decoded images (no finding in a
# valid header that declares a huge one)
FUZZ_IMAGE   := $(wildcard src/image/*.c) $(FUZZ_CORE)
$(FUZZ_BUILD)/fuzz_image: fuzz/fuzz_image.c $(FUZZ_IMAGE) $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DTH_IMAGE_MAX_DECODED_BYTES='(1u << 24)' -o $@ fuzz/fuzz_image.c $(FUZZ_IMAGE) \
	  -lopenblas -lpng -ljpeg -lm

fuzz-build: deps
	@tools/deps.sh clang libclang-rt-14-dev
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz: fuzz-build build
	@mkdir -p fuzz/corpus-load fuzz/corpus-ascii fuzz/corpus-modload fuzz/corpus-ckpt fuzz/corpus-dataset fuzz/corpus-image
	@[ -n "$$(ls fuzz/corpus-load)" ] || $(RUNENV) $(LUA) fuzz/make_seeds.lua fuzz/corpus-load
	@[ -n "$$(ls fuzz/corpus-ascii)" ] || $(RUNENV) $(LUA) fuzz/make_seeds.lua fuzz/corpus-ascii ascii
	@[ -n "$$(ls fuzz/corpus-modload)" ] || $(RUNENV) $(LUA) fuzz/make_seeds.lua fuzz/corpus-modload modload
	@[ -n "$$(ls fuzz/corpus-ckpt)" ] || $(RUNENV) $(LUA) fuzz/make_seeds.lua fuzz/corpus-ckpt ckpt
	@[ -n "$$(ls fuzz/corpus-dataset)" ] || $(RUNENV) $(LUA) fuzz/make_seeds.lua fuzz/corpus-dataset dataset
	@[ -n "$$(ls fuzz/corpus-image)" ] || $(RUNENV) $(LUA) fuzz/make_image_seeds.lua fuzz/corpus-image
	@fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# --- memcheck (tools/valgrind.supp): a -O1 -g build without -march=native
# (valgrind cannot run AVX-512) and OpenBLAS on its AVX2 kernels, over
# VG_SPEC. Fails on definite or indirect
# leaks and on invalid reads, writes and frees. Uninitialised-value checks
# are off: torch.Tensor(n) is uninitialised by design (as Torch7's), and
# specs compute on such tensors where only the shape matters.
.PHONY: test-valgrind
# Default: every spec but the slow ones (timings and benchmarks of conv,
# the planner on 100k tensors, optnet over the model zoo, MLP training,
# the big thread-comparison sizes, GC pacing, bin/th subprocesses), which
# take hours under memcheck on 2 cores; VG_SPEC=spec runs them all.
VG_SLOW := spec/nn_conv_spec.lua spec/plan_spec.lua spec/optnet_spec.lua spec/train_mlp_spec.lua \
  spec/threads_spec.lua spec/memory_gc_spec.lua spec/th_spec.lua spec/optnet_lifecycle_spec.lua \
  spec/demo_spec.lua spec/optnet_neverworse_spec.lua spec/optnet_inplace_traits_spec.lua
VG_SPEC ?= $(filter-out $(VG_SLOW),$(sort $(wildcard spec/*_spec.lua)))
VALGRIND := valgrind --quiet --undef-value-errors=no --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=30 \
  --suppressions=$(CURDIR)/tools/valgrind.supp
# --- optnet's differential fuzzer (fuzz/optnet/, docs/dev/reliability-report.md "optnet
# differential fuzzing"): random valid nets, every optnet entry point against
# the unoptimized net, exactly; one process per seed under timeout.
#   make fuzz-optnet [SEEDS=1-200] [JOBS=2] [FUZZ_TIMEOUT=600]   summary table
#   make fuzz-optnet SEED=17 [CHECK=train]                       one seed
#   make fuzz-optnet SEED=17 SHRINK=1 [CHECK=train]              its minimal net
.PHONY: fuzz-optnet
SEEDS        ?= 1-200
JOBS         ?= 2
FUZZ_TIMEOUT ?= 600
fuzz-optnet: build
ifdef SEED
ifdef SHRINK
	@FUZZ_TIMEOUT=$(FUZZ_TIMEOUT) OMP_NUM_THREADS=1 TH_BUILD=$(BUILD) bin/th fuzz/optnet/shrink.lua $(SEED) $(CHECK)
else
	@OMP_NUM_THREADS=1 TH_BUILD=$(BUILD) bin/th fuzz/optnet/run.lua $(SEED) $(CHECK) | grep -v '^STAGE'
endif
else
	@TH_BUILD=$(BUILD) fuzz/optnet/driver.sh $(firstword $(subst -, ,$(SEEDS))) $(lastword $(subst -, ,$(SEEDS))) \
	  $(JOBS) $(FUZZ_TIMEOUT) $(CURDIR)/$(BUILD)/fuzz-optnet
endif

test-valgrind: deps
	@tools/deps.sh valgrind
	@$(MAKE) --no-print-directory BUILD=build-vg OPT="-O1 -g" build-vg/torch/core.so
	OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
	  LUA_PATH="$(CURDIR)/lua/?.lua;$(CURDIR)/lua/?/init.lua;$(CURDIR)/?.lua;$(CURDIR)/?/init.lua;;" \
	  LUA_CPATH="$(CURDIR)/build-vg/?.so;;" \
	  $(VALGRIND) $(LUA) /usr/bin/busted $(BUSTED_ARGS) $(VG_SPEC)

# --- soak (tools/soak.lua): resnet-20 cifar, batch 32, optnet training mode,
# 1000 sgd iterations on synthetic data, then 100 optimize/remove cycles;
# fails on memory growth (VmRSS beyond 1%), a non-finite or non-falling loss
.PHONY: soak
SOAK_ARGS ?=
soak: build
	$(RUNENV) $(LUA) tools/soak.lua $(SOAK_ARGS)
