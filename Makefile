# Datacenter for Swift — the two entry points: `make run` and `make test`.
# Both install what is missing first (Debian packages; sudo when not root).

SHELL        := /bin/bash
SWIFT        ?= swift
APT_PACKAGES := pkg-config libsqlite3-dev libxml2-dev libncursesw5-dev libssl-dev tmux sqlite3 python3-venv binutils sqlite3-tools
DEMO_ROOT    ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/datacenter/demo
# The demo's published key (docs/CLI.md): it decrypts the demo's encrypted values.
DEMO_KEY     := 64336d305a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a
# What users run: the release build stripped, its symbols kept beside it (datacenter.debug,
# linked by a .gnu_debuglink section) so a crash's backtrace can still be symbolicated.
RELEASE_BIN  := .build/dist/datacenter
BUILT_BIN    := .build/release/datacenter
# The reference SQLCipher 4 the interoperability tests check our encrypted files against.
SQLCIPHER_VENV := .build/sqlcipher-venv
SQLCIPHER_PIN  := sqlcipher3-binary==0.6.0
# SQLite3 Multiple Ciphers, the other family of encrypted SQLite, in the same environment.
SQLITE3MC_PIN  := apsw-sqlite3mc==3.54.0.0

# The tests' PBKDF2 count standing for SQLCipher 4's 256,000 (a debug build reads it, a release
# build never does; see TestingKeyDerivation.swift): each passphrase then costs microseconds
# instead of a tenth of a second, a third of the suite's time. The tests that prove SQLCipher's
# real defaults run without it; `swift test` alone runs everything at the real count.
export DATACENTER_TEST_KDF_ITER := 100
# The tests' temporary files go to memory where the machine has /dev/shm: SQLite's fsyncs cost
# 0.15 ms each on this machine's disk and the suite makes tens of thousands, while no test
# depends on them (a process killed with SIGKILL leaves the page cache as it was). Set
# TEST_TMPDIR= (empty) to keep the system's temporary folder.
TEST_TMPDIR ?= $(if $(wildcard /dev/shm/.),/dev/shm/datacenter-tests-$(shell id -u))
TEST_ENV     = $(if $(TEST_TMPDIR),mkdir -p -m 700 $(TEST_TMPDIR) && TMPDIR=$(TEST_TMPDIR)/)

.PHONY: run test quick sanitize fuzz crash build deps sqlcipher-reference demo bench clean install uninstall manual

run: build
	@test -d "$(DEMO_ROOT)" || $(RELEASE_BIN) demo "$(DEMO_ROOT)"
	@if [ -t 0 ] && [ -t 1 ]; then \
	  $(RELEASE_BIN) browse "$(DEMO_ROOT)" --key $(DEMO_KEY); \
	else \
	  echo "(no terminal: printing the demo instead of opening the browser)"; \
	  $(RELEASE_BIN) overview --root "$(DEMO_ROOT)" --key $(DEMO_KEY) && \
	  $(RELEASE_BIN) kv list --root "$(DEMO_ROOT)" --key $(DEMO_KEY) || { \
	    echo "the demo at $(DEMO_ROOT) does not open as built (its database key was changed?):" \
	      "build it again with: $(RELEASE_BIN) demo --force \"$(DEMO_ROOT)\"" >&2; exit 1; }; \
	fi

test: deps sqlcipher-reference
	$(SWIFT) build --build-tests
	$(TEST_ENV) $(SWIFT) test --skip-build

# The inner loop: every test but the slow tiers (kill -9, fuzz, tmux, a big import), which `make test` (and
# CI) still run. Under a minute here after a one-line change.
QUICK_SKIP := CrashTests|PartialFileKillTests|SnapshotKillTests|DBRekeyKillTests|RekeyCrashTests|Tmux|Fuzz|BenchDatabaseCommandTests|ImportMemoryTests
quick: deps sqlcipher-reference
	$(SWIFT) build --build-tests
	$(TEST_ENV) $(SWIFT) test --skip-build --skip '$(QUICK_SKIP)'

# The engine and DAO tests under ThreadSanitizer, then the whole suite under AddressSanitizer
# (leak reports off: the runtime's and Foundation's own one-time allocations drown them).
# Each sanitizer builds in its own folder.
sanitize: deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(TEST_ENV) TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --scratch-path .build-tsan \
	  --filter 'DatacenterKitTests|DatacenterDAOTests'
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	$(TEST_ENV) ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 $(SWIFT) test --skip-build --scratch-path .build-asan

# Long runs of the seeded fuzz and kill -9 tests (make test runs a bounded number of each);
# FUZZ_SEED / CRASH_SEED replay a failure's seed.
FUZZ_CASES   ?= 50000
CRASH_TRIALS ?= 200
fuzz: deps
	$(SWIFT) build --build-tests
	$(TEST_ENV) FUZZ_CASES=$(FUZZ_CASES) $(SWIFT) test --skip-build --filter 'Fuzz'
crash: deps sqlcipher-reference
	$(SWIFT) build --build-tests
	$(TEST_ENV) CRASH_TRIALS=$(CRASH_TRIALS) $(SWIFT) test --skip-build --filter 'CrashTests'

# SwiftPM adds -color-diagnostics to every compile command when its output is a terminal,
# which changes the commands' hashes and rebuilt everything between a run with a terminal and
# one without: its output goes through a pipe either way, so the flags never change.
build: deps
	set -o pipefail; $(SWIFT) build -c release --product datacenter --static-swift-stdlib 2>&1 | cat
	@mkdir -p .build/dist
	@if [ ! -f $(RELEASE_BIN) ] || [ $(BUILT_BIN) -nt $(RELEASE_BIN) ]; then \
	  objcopy --only-keep-debug $(BUILT_BIN) $(RELEASE_BIN).debug && \
	  objcopy --strip-debug --strip-unneeded --add-gnu-debuglink=$(RELEASE_BIN).debug $(BUILT_BIN) $(RELEASE_BIN); \
	fi

# `make install` puts the binary users run, its manual page and its shell completions under
# PREFIX (~/.local by default: no root needed; PREFIX=/usr/local as root for every user).
# The page is generated from the argument parser's own description of every command (its
# generate-manual plugin), the completions by the binary itself; `make uninstall` removes
# exactly what install put there.
PREFIX   ?= $(HOME)/.local
BINDIR    = $(PREFIX)/bin
MAN1DIR   = $(PREFIX)/share/man/man1
BASHDIR   = $(PREFIX)/share/bash-completion/completions
ZSHDIR    = $(PREFIX)/share/zsh/site-functions
FISHDIR   = $(PREFIX)/share/fish/vendor_completions.d
MANUAL   := .build/dist/datacenter.1

# The plugin builds the package in release mode (linking the Swift libraries dynamically),
# so `build` runs after it: what install copies is always the static, stripped binary.
install: manual build
	install -d -m 755 "$(BINDIR)" "$(MAN1DIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 $(RELEASE_BIN) "$(BINDIR)/datacenter"
	install -m 644 $(MANUAL) "$(MAN1DIR)/datacenter.1"
	$(RELEASE_BIN) --generate-completion-script bash > "$(BASHDIR)/datacenter"
	$(RELEASE_BIN) --generate-completion-script zsh > "$(ZSHDIR)/_datacenter"
	$(RELEASE_BIN) --generate-completion-script fish > "$(FISHDIR)/datacenter.fish"
	chmod 644 "$(BASHDIR)/datacenter" "$(ZSHDIR)/_datacenter" "$(FISHDIR)/datacenter.fish"
	@echo "installed $(BINDIR)/datacenter, its manual page (man datacenter) and bash, zsh and fish completions"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "note: $(BINDIR) is not on PATH";; esac

uninstall:
	rm -f "$(BINDIR)/datacenter" "$(MAN1DIR)/datacenter.1" "$(BASHDIR)/datacenter" "$(ZSHDIR)/_datacenter" "$(FISHDIR)/datacenter.fish"
	@echo "removed datacenter, its manual page and completions from $(PREFIX)"

manual: deps
	set -o pipefail; $(SWIFT) package generate-manual 2>&1 | cat
	@mkdir -p .build/dist
	cp .build/plugins/GenerateManual/outputs/datacenter/datacenter.1 $(MANUAL)

# bench db's import is compared with the reference SQLCipher, hence sqlcipher-reference.
bench: build sqlcipher-reference
	$(RELEASE_BIN) bench kv
	$(RELEASE_BIN) bench lru
	$(RELEASE_BIN) bench dao
	$(RELEASE_BIN) bench browse
	$(RELEASE_BIN) bench db
	$(RELEASE_BIN) bench changes

deps:
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "error: the Swift toolchain (swift 6.1 or newer) is not on PATH; install it from swift.org first" >&2; exit 1; }
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# SQLCipher 4 from PyPI in a virtual environment (SQLCipher 3 files through its compatibility
# mode), and SQLite3 Multiple Ciphers (apsw-sqlite3mc); the interoperability tests skip, saying
# so, when they are missing.
sqlcipher-reference:
	@$(SQLCIPHER_VENV)/bin/python -c "import sqlcipher3" 2>/dev/null || { \
	  python3 -m venv $(SQLCIPHER_VENV) && $(SQLCIPHER_VENV)/bin/pip install -q "$(SQLCIPHER_PIN)"; }
	@$(SQLCIPHER_VENV)/bin/python -c "import apsw" 2>/dev/null || $(SQLCIPHER_VENV)/bin/pip install -q "$(SQLITE3MC_PIN)"

clean:
	rm -rf .build
