# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# xdp-steer: `make` builds, `make test` runs every test tier, `make bench`
# prints the benchmark tables, `make deps` installs what building and the
# demo need and is missing (`make deps-test`: and what the tests need),
# `make install` (PREFIX, DESTDIR: loader/dist/dist.mk) installs.
# `make V=1` shows full commands.

.DELETE_ON_ERROR:
.SUFFIXES:

CLANG	?= clang
CC	?= gcc
BPFTOOL	?= bpftool
PREFIX	?= /usr/local

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# The version --version prints: `git describe` of a tag v<version> when the
# checkout has one, else VERSION_BASE and the commit (0.1.0-gabc1234, with
# -dirty for uncommitted changes), else (a tarball) VERSION_BASE alone. A
# packager may set VERSION.
VERSION_BASE := 0.1.0
GIT_DESCRIBE := $(if $(wildcard .git),$(shell git describe --tags \
		--match 'v[0-9]*' --always --dirty 2>/dev/null))
ifneq ($(filter v%,$(GIT_DESCRIBE)),)
VERSION ?= $(GIT_DESCRIBE:v%=%)
else ifneq ($(GIT_DESCRIBE),)
VERSION ?= $(VERSION_BASE)-g$(GIT_DESCRIBE)
else
VERSION ?= $(VERSION_BASE)
endif

ARCH_INCLUDE := /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)

BPF_CFLAGS := -target bpf -O2 -g -Wall -Werror -mcpu=v3 \
	      -Iinclude -Ibpf -I$(ARCH_INCLUDE)
# Another build of the same programs, told apart by their tags (bpf/salt.h).
ifneq ($(BPF_SALT),)
BPF_CFLAGS += -DSTEER_BUILD_SALT=$(BPF_SALT)
endif
CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Werror -Iinclude -Ibpf -Iloader -Itests/lib -MMD -MP
LDLIBS_BPF := -lbpf -lelf -lz

BPF_OBJ    := bpf/xdp_steer.bpf.o
BENCH_BPF  := tests/bench/baseline.bpf.o
# The per-frame benchmark's copies of the program, each with one part left
# out (bpf/omit.h names them).
OMIT_PARTS := PARSE HASH COUNTERS CPU_STATS ALL
OMIT_BPF   := $(patsubst %,tests/bench/omit/%.bpf.o,$(OMIT_PARTS))
UNIT_NAMES := test_hash test_table test_policy test_health test_compile \
	      test_configs test_input test_prom test_balance test_balance_cpu \
	      test_balance_climb test_netns test_vlog test_drain_rule \
	      test_possible test_plan test_summary test_numa test_why
UNIT_BINS  := $(addprefix tests/unit/,$(UNIT_NAMES))
PROG_BINS  := tests/prog/test_prog
PROG_OBJS  := tests/prog/test_prog.o tests/prog/prog_env.o \
	      tests/prog/fixtures.o tests/prog/loops.o tests/prog/random.o \
	      tests/prog/compiled.o tests/prog/drain.o tests/prog/scan.o \
	      tests/prog/filter.o tests/prog/encap.o tests/prog/balance.o \
	      tests/prog/numa.o \
	      tests/prog/keys.o
BENCH_BINS := tests/bench/bench_prog
TEST_OBJ   := tests/lib/test.o
TESTLIB_OBJS := tests/lib/frame.o tests/lib/prog_util.o $(TEST_OBJ) \
		loader/kernel/maps.o loader/kernel/possible.o \
		loader/kernel/clock.o

# The loader, in layers (loader/lib/steer.h): each uses only those above
# it in this list, and the CLI none of the kernel layer
# (tests/unit/test_layers.py checks it).
LOADER     := loader/xdp-steer
SKEL       := bpf/xdp_steer.skel.h
# Each layer is its folder: a new .c file there is part of it. objs_of
# DIR: the objects of DIR's .c files.
objs_of     = $(patsubst %.c,%.o,$(wildcard loader/$(1)/*.c))
# The balancer's rounds (needs libm), for the loader and its tests only.
BALANCE_OBJ := loader/model/balance_plan.o loader/model/balance_trial.o loader/model/balance_note.o
MODEL_OBJS := $(filter-out $(BALANCE_OBJ),$(call objs_of,model))
POLICY_OBJS := $(call objs_of,policy) $(MODEL_OBJS)
KERNEL_OBJS := $(call objs_of,kernel)
STEERLIB_OBJS := $(call objs_of,lib)
CLI_OBJS   := $(call objs_of,cli)
LOADER_OBJS := $(CLI_OBJS) $(STEERLIB_OBJS) $(KERNEL_OBJS) $(POLICY_OBJS) \
	       $(BALANCE_OBJ)
TABLE_OBJ  := loader/model/table.o
LDLIBS_LOADER := -lxdp $(LDLIBS_BPF) -lyaml -lm

ALL := $(BPF_OBJ) $(BENCH_BPF) $(OMIT_BPF) $(LOADER) $(UNIT_BINS) $(PROG_BINS) \
       $(BENCH_BINS)

.PHONY: all test test-unit test-san test-fuzz test-prog bench demo deps \
	deps-test clean
all: $(ALL)

# BPF objects: -MMD gives real header dependencies here too.
%.bpf.o: %.bpf.c
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

tests/bench/omit/ALL.bpf.o: bpf/xdp_steer.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DSTEER_OMIT=STEER_OMIT_EVERY \
		-MMD -MP -c $< -o $@

tests/bench/omit/%.bpf.o: bpf/xdp_steer.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DSTEER_OMIT='(1 << STEER_OMIT_BIT_$*)' \
		-MMD -MP -c $< -o $@

# CPPFLAGS and LDFLAGS as a package build sets them (dpkg-buildflags: the
# hardening Debian's lintian checks for), empty otherwise.
%.o: %.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The loader embeds the BPF object through its skeleton.
$(SKEL): $(BPF_OBJ)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name xdp_steer_bpf > $@ 2>/dev/null

loader/kernel/prog.o loader/kernel/prog_size.o loader/kernel/migrate.o: $(SKEL)

# The loader's window on the datapath's clock (loader/kernel/clock.h).
CLOCK_BPF  := bpf/clock.bpf.o
CLOCK_SKEL := bpf/clock.skel.h
$(CLOCK_SKEL): $(CLOCK_BPF)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name clock_bpf > $@ 2>/dev/null
loader/kernel/clock.o: $(CLOCK_SKEL)

# The upgrade's mark of the receiver slots' pool (loader/kernel/migrate_ways.c,
# migrate_pool_run()).
MARK_BPF  := bpf/pool_mark.bpf.o
MARK_SKEL := bpf/pool_mark.skel.h
$(MARK_SKEL): $(MARK_BPF)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name pool_mark_bpf > $@ 2>/dev/null
loader/kernel/migrate_ways.o: $(MARK_SKEL)

# The upgrade's carry of an older ring_stats (loader/kernel/trace.c).
CARRY_BPF  := bpf/ring_carry.bpf.o
CARRY_SKEL := bpf/ring_carry.skel.h
$(CARRY_SKEL): $(CARRY_BPF)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name ring_carry_bpf > $@ 2>/dev/null
loader/kernel/trace.o: $(CARRY_SKEL)

# main.o prints VERSION; the stamp changes (and main.o is rebuilt) only when
# VERSION does, so a new commit does not rebuild the rest.
VERSION_STAMP := loader/cli/version.stamp
$(VERSION_STAMP): FORCE
	$(Q)echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
loader/cli/main.o: $(VERSION_STAMP)
loader/cli/main.o: CFLAGS += -DXDP_STEER_VERSION='"$(VERSION)"'
.PHONY: FORCE

# The cpumap tracepoint programs the loader pins per interface
# (loader/kernel/trace.h).
TRACE_BPF  := bpf/cpumap_trace.bpf.o
TRACE_SKEL := bpf/cpumap_trace.skel.h
$(TRACE_SKEL): $(TRACE_BPF)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name cpumap_trace_bpf > $@ 2>/dev/null
loader/kernel/trace.o: $(TRACE_SKEL)

# The extension program --version loads to probe libxdp's dispatcher
# (loader/kernel/features.h).
PROBE_BPF  := bpf/dispatcher_probe.bpf.o
PROBE_SKEL := bpf/dispatcher_probe.skel.h
$(PROBE_SKEL): $(PROBE_BPF)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name dispatcher_probe_bpf > $@ 2>/dev/null
loader/kernel/features.o: $(PROBE_SKEL)

# The versions of libbpf and libxdp the loader is built against, for
# --version (neither library tells its full version at run time).
LIB_VERSIONS := -DLIBBPF_BUILD_VERSION='"$(shell pkg-config --modversion libbpf 2>/dev/null)"' \
		-DLIBXDP_BUILD_VERSION='"$(shell pkg-config --modversion libxdp 2>/dev/null)"'
loader/cli/main.o: CFLAGS += $(LIB_VERSIONS)

$(LOADER): $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS_LOADER)

# Unit tests (no root): what each binary links besides its own object,
# written once for the normal build and the sanitized one (SAN_DIR).
# test_compile: policies to map contents; test_configs: configs/*.yaml.
test_hash_OBJS    := $(TEST_OBJ)
# test_netns: the names made from a namespace's identity.
test_netns_OBJS   := loader/kernel/netns.o $(TEST_OBJ)
# test_vlog: the verifier's reason in attach's error.
test_vlog_OBJS    := loader/kernel/vlog.o $(TEST_OBJ)
test_table_OBJS   := $(TABLE_OBJ) $(TEST_OBJ)
# test_drain_rule: the drain's rule of include/xdp_steer/drain.h alone.
test_drain_rule_OBJS := $(TEST_OBJ)
# test_why: util/why.h, header-only.
test_why_OBJS     := $(TEST_OBJ)
test_possible_OBJS := loader/kernel/possible.o $(TEST_OBJ)
# test_numa: the default workers by the NIC's node, and the layout read
# from a fake sysfs.
test_numa_OBJS    := loader/model/numa.o loader/model/cpuset.o \
		     loader/kernel/numa.o $(TEST_OBJ)
test_table_LIBS   := -lm
test_policy_OBJS  := $(POLICY_OBJS) $(TEST_OBJ)
test_policy_LIBS  := -lyaml
test_health_OBJS  := loader/model/health.o loader/model/cpulist.o \
		     loader/kernel/netdev.o loader/model/cpuset.o $(TEST_OBJ)
test_compile_OBJS := $(POLICY_OBJS) $(TEST_OBJ)
test_compile_LIBS := -lyaml
# test_plan: what apply --dry-run says, from two policies compiled.
test_plan_OBJS    := $(POLICY_OBJS) $(TEST_OBJ)
test_plan_LIBS    := -lyaml
test_configs_OBJS := $(POLICY_OBJS) $(TEST_OBJ)
test_configs_LIBS := -lyaml
test_input_OBJS   := $(POLICY_OBJS) $(TEST_OBJ)
test_input_LIBS   := -lyaml
# test_balance: the balancer's rounds against a traffic simulator.
BALANCE_SIM_OBJS  := tests/lib/balance_sim.o $(BALANCE_OBJ) $(TABLE_OBJ)
test_balance_OBJS := $(BALANCE_SIM_OBJS) $(TEST_OBJ)
test_balance_LIBS := -lm
# test_balance_cpu: the balancer by CPU time against a box on paper.
test_balance_cpu_OBJS := tests/lib/balance_box.o $(BALANCE_SIM_OBJS) $(TEST_OBJ)
test_balance_cpu_LIBS := -lm
# test_balance_climb: the climb finds the best placement through noise.
test_balance_climb_OBJS := tests/lib/balance_box.o $(BALANCE_SIM_OBJS) \
			   $(TEST_OBJ)
test_balance_climb_LIBS := -lm
# test_prom: stats --prometheus and the worker account it prints.
PROM_OBJS         := loader/cli/print_prom.o loader/lib/stats_view.o \
		     loader/model/cpuset.o
test_prom_OBJS    := $(PROM_OBJS) $(TEST_OBJ)
# test_summary: stats and status on many CPUs, text, JSON and Prometheus;
# the status printer brings the library under it.
test_summary_OBJS := $(addprefix loader/cli/,print_stats.o print_status.o \
		     print_balance.o print_prom.o fold.o json.o) \
		     $(STEERLIB_OBJS) $(KERNEL_OBJS) $(POLICY_OBJS) \
		     $(BALANCE_OBJ) $(TEST_OBJ)
test_summary_LIBS := $(LDLIBS_LOADER)

# What stats --prometheus prints, every family of it, for
# tests/unit/test_dashboard.py (the dashboard's queries name only those).
ALL += tests/unit/prom_sample
all: tests/unit/prom_sample
tests/unit/prom_sample: tests/unit/prom_sample.o $(PROM_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

.SECONDEXPANSION:
$(UNIT_BINS): tests/unit/%: tests/unit/%.o $$($$*_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $($*_LIBS)

# The unit tests again under AddressSanitizer and UBSan, for tier 'san' of
# tests/run: objects and binaries of their own in SAN_DIR, so the normal
# build is untouched. Any report ends the binary, so the runner fails it.
# -O1 (after CFLAGS' -O2): half the build time, and reports that point at
# the right line.
SAN_DIR   := tests/unit/san
SAN_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	     -fno-omit-frame-pointer
SAN_BINS  := $(addprefix $(SAN_DIR)/,$(UNIT_NAMES))

# The sanitized copies of loader files include the same generated
# skeletons as theirs (make -j builds them first).
$(SAN_DIR)/%.o: %.c | $(SKEL) $(CLOCK_SKEL) $(MARK_SKEL) $(CARRY_SKEL) $(TRACE_SKEL) \
		      $(PROBE_SKEL)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(SAN_BINS): $(SAN_DIR)/%: $(SAN_DIR)/tests/unit/%.o \
			   $$(addprefix $(SAN_DIR)/,$$($$*_OBJS))
	$(call msg,LINK-SAN,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $^ -o $@ $($*_LIBS)

# The policy fuzzer, for tier 'fuzz' of tests/run (tests/fuzz/run): the
# policy and model layers built again by clang with libFuzzer's coverage
# and the sanitizers, into FUZZ_DIR, apart from the normal objects.
FUZZ_DIR    := tests/fuzz/build
FUZZ        := tests/fuzz/fuzz_policy
FUZZ_CFLAGS := -O1 -g -Wall -Wextra -Werror -Iinclude -Iloader -MMD -MP \
	       -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer

$(FUZZ_DIR)/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ): $(addprefix $(FUZZ_DIR)/,tests/fuzz/fuzz_policy.o $(POLICY_OBJS))
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $^ -o $@ -lyaml

# Load for the policy-swap test of the root tier (test-runs the attached
# program on every CPU while tests/e2e/test_swap.sh swaps policies).
ALL += tests/e2e/swap_check
all: tests/e2e/swap_check
tests/e2e/swap_check: tests/e2e/swap_check.o tests/lib/frame.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF) -lpthread

# The program tier also applies compiled policies with the loader's own
# apply phases (tests/prog/compiled.c).
tests/prog/test_prog: $(PROG_OBJS) $(TESTLIB_OBJS) $(POLICY_OBJS) \
		      loader/kernel/slots.o loader/kernel/slots_read.o \
		      loader/kernel/slots_retire.o loader/kernel/cpumap.o \
		      loader/kernel/progtag.o loader/kernel/failpoint.o loader/kernel/kthreads.o \
		      loader/kernel/window.o loader/kernel/evidence.o \
		      loader/kernel/map_numa.o loader/kernel/bpffs.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF) -lyaml

# The program tier's stand-in for a slot's old CPU renewing its lease in
# the middle of a takeover (tests/prog/race.bpf.c), embedded through its
# skeleton.
tests/prog/race.skel.h: tests/prog/race.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name race_bpf > $@ 2>/dev/null
tests/prog/drain.o: tests/prog/race.skel.h
clean: clean-prog-race
clean-prog-race:
	$(Q)rm -f tests/prog/race.skel.h tests/prog/race.bpf.o
.PHONY: clean-prog-race

# The balancer on paper (tests/bench/run balance).
ALL += tests/bench/balance_sim
all: tests/bench/balance_sim
tests/bench/balance_sim: tests/bench/balance_sim.o $(BALANCE_SIM_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ -lm

tests/bench/bench_prog: tests/bench/bench_prog.o tests/bench/insns.o \
			$(TESTLIB_OBJS) $(TABLE_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)

# What looking through each encapsulation costs (tests/bench/run prog).
ALL += tests/bench/bench_encap
all: tests/bench/bench_encap
tests/bench/bench_encap: tests/bench/bench_encap.o tests/bench/insns.o \
			  $(TESTLIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)

# The throughput benchmark's UDP sink (tests/bench/throughput.sh); it reads
# the generator's marks (tests/e2e/traffic.h).
ALL += tests/bench/udp_sink
all: tests/bench/udp_sink
tests/bench/udp_sink.o: CFLAGS += -Itests/e2e
tests/bench/udp_sink: tests/bench/udp_sink.o tests/lib/tool.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF) -lpthread

# The drain benchmark's watcher (tests/bench/moves.sh): how long after a
# flip every bucket has moved, read from the pinned maps.
ALL += tests/bench/moves
all: tests/bench/moves
tests/bench/moves: tests/bench/moves.o loader/kernel/maps.o \
		   loader/kernel/possible.o loader/kernel/clock.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)

# A balancer round's CPU time by workers, on an attached interface's maps
# with the library's own rounds (tests/bench/round_cost.sh).
ALL += tests/bench/round_cost
all: tests/bench/round_cost
tests/bench/round_cost: tests/bench/round_cost.o $(STEERLIB_OBJS) \
			$(KERNEL_OBJS) $(POLICY_OBJS) $(BALANCE_OBJ)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS_LOADER) -lpthread

# The end-to-end benchmarks' CPU time of receive processing
# (tests/bench/net_time.bpf.c), a BPF object embedded through its skeleton.
ALL += tests/bench/net_time
all: tests/bench/net_time
tests/bench/net_time.skel.h: tests/bench/net_time.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name net_time_bpf > $@ 2>/dev/null
tests/bench/net_time.o: tests/bench/net_time.skel.h
tests/bench/net_time: tests/bench/net_time.o tests/lib/tool.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)
clean: clean-bench-net-time
clean-bench-net-time:
	$(Q)rm -f tests/bench/net_time tests/bench/net_time.skel.h \
		tests/bench/net_time.bpf.o
.PHONY: clean-bench-net-time

# The forwarding benchmark's and the worker-cost study's programs
# (tests/bench/forward.sh, also as `tests/bench/run worker`), and the
# study's tool: another program in a pinned cpumap entry.
ALL += tests/bench/fwd.bpf.o tests/bench/cpumap_set
all: tests/bench/fwd.bpf.o tests/bench/cpumap_set
tests/bench/cpumap_set: tests/bench/cpumap_set.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)

# What waking a thread on another, idle CPU costs here (every benchmark's
# header: tests/bench/lib.sh, bench_machine).
ALL += tests/bench/wake_rtt
all: tests/bench/wake_rtt
tests/bench/wake_rtt: tests/bench/wake_rtt.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ -lpthread

# The tests load the objects from disk at run time: build them first, but
# a new object needs no relink.
$(PROG_BINS) $(BENCH_BINS): | $(BPF_OBJ) $(BENCH_BPF)

# End-to-end traffic (tests/e2e): the generator and the observer, each a BPF
# object embedded through its skeleton.
E2E_BINS := tests/e2e/traffic_gen tests/e2e/observer
E2E_BPF  := tests/e2e/traffic_gen.bpf.o tests/e2e/observer.bpf.o
E2E_SKELS := tests/e2e/traffic_gen.skel.h tests/e2e/observer.skel.h
all: $(E2E_BPF) $(E2E_BINS)
tests/e2e/%.skel.h: tests/e2e/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@ 2>/dev/null
# Each that includes the skeleton.
tests/e2e/traffic_live.o tests/e2e/traffic_fanout.o: tests/e2e/traffic_gen.skel.h
tests/e2e/observer.o: tests/e2e/observer.skel.h
# Its three senders (tests/e2e/traffic_gen.c says which runs when).
TRAFFIC_GEN_OBJS := tests/e2e/traffic_gen.o tests/e2e/traffic_live.o \
		    tests/e2e/traffic_fanout.o \
		    tests/e2e/traffic_socket.o
tests/e2e/traffic_gen: $(TRAFFIC_GEN_OBJS) tests/lib/frame.o tests/lib/tool.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)
tests/e2e/observer: tests/e2e/observer.o tests/lib/tool.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_BPF)
clean: clean-e2e-traffic
clean-e2e-traffic:
	$(Q)rm -f $(E2E_BINS) $(E2E_SKELS) $(E2E_BPF)
.PHONY: clean-e2e-traffic

# `make test`, `make demo` and `make bench` first install what is missing
# (as root on Debian/Ubuntu), then build in a fresh make so the tools found
# are used: `make deps` what building and the demo need, `make deps-test`
# that and what only the tests need (tests/lib/deps.sh --test).
# The build takes every CPU (JOBS=1 for one); the tests
# then run one after another.
JOBS	?= $(shell nproc 2>/dev/null || echo 1)
test: deps-test
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) all $(SAN_BINS) $(FUZZ)
	$(Q)tests/run

# The live demo: two namespaces, a veth pair, real traffic (root).
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/e2e/demo.sh

test-unit: all
	$(Q)tests/run unit

test-san: $(SAN_BINS)
	$(Q)tests/run san

test-fuzz: $(FUZZ)
	$(Q)tests/run fuzz

test-prog: all
	$(Q)tests/run prog

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/bench/run

deps:
	$(Q)tests/lib/deps.sh

deps-test:
	$(Q)tests/lib/deps.sh --test

# make install, make uninstall, and the man pages and unit they install.
include loader/dist/dist.mk

clean:
	$(call msg,CLEAN,)
	$(Q)rm -f $(ALL) $(SKEL) $(CLOCK_SKEL) $(MARK_SKEL) $(CARRY_SKEL) $(TRACE_SKEL) $(PROBE_SKEL) $(VERSION_STAMP) \
		*/*.o */*.d */*/*.o */*/*.d
	$(Q)rm -rf tests/bench/omit
	$(Q)rm -rf $(SAN_DIR) $(FUZZ_DIR) $(FUZZ)

-include $(wildcard */*.d */*/*.d */*/*/*.d $(SAN_DIR)/*/*/*.d $(FUZZ_DIR)/*/*/*.d)
