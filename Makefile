# mapfarm: the two set-up commands of the README.
#   make run    installs missing packages, builds, runs configs/quick.yaml into results.db and
#               prints its completion-rate table
#   make test   installs missing packages, builds, runs every test (the build requires
#               Criterion: MAPFARM_TESTS=ON, so the tests cannot be left out); the viewer's
#               browser test needs chromium and tools/viewer's npm packages, installed here too
#   make sanitize   the test suite built with AddressSanitizer and UBSan (CI runs it)
#   make bench  benchmarks that print figures (never part of the tests)
#   make install    builds and installs into PREFIX (default /usr/local; DESTDIR respected):
#               PREFIX/bin/mapfarm, PREFIX/share/mapfarm/{tools,configs}, the docs
# Builds are out of tree, in build/ (build-san/ for sanitizers).

BUILD ?= build
SAN_BUILD ?= build-san
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PLAN ?= configs/quick.yaml
DB ?= results.db
PREFIX ?= /usr/local
PACKAGES = cmake gcc make libc6-dev libyaml-dev libsqlite3-dev sqlite3 libcriterion-dev libpng-dev zlib1g-dev libxgboost-dev pkg-config util-linux bc time gnuplot-nox
# Only the tests want the rest: `make run` as root installs none of them. The viewer's test runs
# Debian's chromium headless; Node.js and npm are checked by command (PACKAGE:COMMAND): a Node.js
# from elsewhere (NodeSource's) bundles npm and conflicts with Debian's npm package.
TEST_PACKAGES = chromium
NODE_PACKAGES = nodejs:node npm:npm
# tests/slurm (a single-node Slurm on localhost), installed without the recommended plugins
# (some 35 packages more). Optional outside CI: the test says it is skipped without them.
SLURM_PACKAGES = slurmctld slurmd slurm-client munge
VIEWER = tools/viewer
test sanitize viewer-deps: TESTS_WANTED = 1

.PHONY: all deps viewer-deps build run test sanitize bench install clean

all: build

# Installs what is missing: with apt-get as root, otherwise prints the exact command. Without
# dpkg (Fedora, macOS) it checks nothing and leaves that to CMake.
deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "no dpkg-query: packages not checked (CMake names any library that is missing)"; exit 0; \
	fi; \
	installed() { dpkg-query -W -f='$${Status}' $$1 2>/dev/null | grep -q "install ok installed"; }; \
	missing=""; slurm=""; \
	for p in $(PACKAGES) $(if $(TESTS_WANTED),$(TEST_PACKAGES)); do installed $$p || missing="$$missing $$p"; done; \
	for pc in $(if $(TESTS_WANTED),$(NODE_PACKAGES)); do \
	  command -v $${pc#*:} >/dev/null 2>&1 || missing="$$missing $${pc%%:*}"; \
	done; \
	for p in $(if $(TESTS_WANTED),$(SLURM_PACKAGES)); do installed $$p || slurm="$$slurm $$p"; done; \
	if [ -n "$$missing$$slurm" ] && [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing$$slurm"; \
	  apt-get update -qq || exit 1; \
	  if [ -n "$$missing" ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  fi; \
	  if [ -n "$$slurm" ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$slurm >/dev/null || exit 1; \
	  fi; \
	elif [ -n "$$missing" ]; then \
	  echo "missing packages; run:"; echo "  sudo apt-get install -y$$missing"; exit 1; \
	elif [ -n "$$slurm" ]; then \
	  echo "the Slurm test (tests/slurm) is skipped without:$$slurm; to run it:"; \
	  echo "  sudo apt-get install -y --no-install-recommends$$slurm"; \
	  if [ "$$CI" = true ]; then exit 1; fi; \
	fi

# The viewer test's npm packages (puppeteer-core, which downloads no browser), from
# package-lock.json, again whenever package.json or the lock file is newer than the install.
$(VIEWER)/node_modules/.installed: $(VIEWER)/package.json $(VIEWER)/package-lock.json
	cd $(VIEWER) && npm ci --no-audit --no-fund
	touch $@

viewer-deps: deps $(VIEWER)/node_modules/.installed

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/mapfarm run $(PLAN) --db $(DB)
	$(BUILD)/mapfarm report --db $(DB) completion-rate

test: deps viewer-deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAPFARM_TESTS=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: deps viewer-deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMAPFARM_TESTS=ON -DMAPFARM_ASAN=ON -DMAPFARM_UBSAN=ON -DMAPFARM_CHECK_INVARIANTS=ON >/dev/null
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# No `deps` here: installing works wherever CMake finds the libraries, apt or not.
install: $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

bench: build
	tools/bench-farm.sh $(BUILD)
	tools/bench-search.sh $(BUILD)
	tools/bench-features.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
