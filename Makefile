# Build, test, benchmark and install. Every top-level target first runs
# tools/deps.sh, which apt-installs missing Debian packages (idempotent).

PREFIX   ?= /usr/local
CC       ?= gcc
LUA      ?= lua5.4
BUILD    ?= build
LUA_CFLAGS := $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
WARN     := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wno-unused-parameter
OPT      ?= -O3 -march=native
CFLAGS   += -std=gnu11 -fPIC -fopenmp $(OPT) $(WARN) $(LUA_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  += -shared -fopenmp -Wl,-z,nodelete  # never unloaded: libgomp threads outlive lua_close
LDLIBS   := -lopenblas -lm

SRCS := $(wildcard src/tensor/*.c src/nn/*.c src/plan/*.c src/lua/*.c)
HDRS := $(wildcard src/*/*.h src/*/generic/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/obj/%.o)
LIB  := $(BUILD)/torch/core.so

CORETYPE := $(shell tools/coretype.sh)
RUNENV := OPENBLAS_CORETYPE=$(CORETYPE) OMP_WAIT_POLICY=$(or $(OMP_WAIT_POLICY),passive) LUA_PATH="$(CURDIR)/lua/?.lua;$(CURDIR)/lua/?/init.lua;$(CURDIR)/?.lua;$(CURDIR)/?/init.lua;;" LUA_CPATH="$(CURDIR)/$(BUILD)/?.so;;"
BUSTED := $(RUNENV) $(LUA) /usr/bin/busted

.PHONY: all deps build test test-asan test-run demo install clean bench-speed bench-memory bench-deps viz-deps

all: build

deps:
	@tools/deps.sh

build: deps
	@$(MAKE) --no-print-directory $(LIB)

$(LIB): $(OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS) $(EXTRA_LDFLAGS)

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

test: build
	$(BUSTED) $(BUSTED_ARGS) $(or $(SPEC),spec)

# ASan + UBSan build of the same module, running the whole spec suite
test-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" EXTRA_LDFLAGS="-fsanitize=address,undefined" build-asan/torch/core.so
	@$(MAKE) --no-print-directory BUILD=build-asan \
	  PRELOAD='LD_PRELOAD="$(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libubsan.so)" ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1' test-run

# runs the specs against an already built $(BUILD); PRELOAD carries sanitizer runtimes
test-run:
	$(PRELOAD) $(BUSTED) $(BUSTED_ARGS) $(or $(SPEC),spec)

demo: build
	$(RUNENV) $(LUA) examples/demo.lua

bench-deps:
	@tools/deps.sh python3-torch

# optional: graphviz's dot renders optnet.graphgen's graphs to SVG (optnet.dot,
# tools/memreport.lua); without it only the .dot text is written and the
# specs that render skip
viz-deps:
	@tools/deps.sh graphviz

bench-speed: build
	$(RUNENV) $(LUA) bench/speed.lua

bench-memory: build
	$(RUNENV) $(LUA) bench/memory.lua

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

install: build
	install -d $(DESTDIR)$(PREFIX)/share/lua/5.4 $(DESTDIR)$(PREFIX)/lib/lua/5.4/torch $(DESTDIR)$(PREFIX)/bin
	cp -r lua/* $(DESTDIR)$(PREFIX)/share/lua/5.4/
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/lua/5.4/torch/core.so
	sed 's|^TH_INSTALLED=.*|TH_INSTALLED=1|' bin/th > $(DESTDIR)$(PREFIX)/bin/th
	chmod 755 $(DESTDIR)$(PREFIX)/bin/th

clean:
	rm -rf build build-asan
