# WebImage — the README's commands. `make demo` runs it, `make test` tests it.
SWIFT ?= swift
RELEASE_BIN = .build/release/webimage

.PHONY: install-deps build release test docs examples tsan asan demo bench bench-quick bench-micro fuzz fuzz-build stress soak cluster-demo conformance clean

install-deps:
	@scripts/install-deps

build: install-deps
	$(SWIFT) build

release: install-deps
	$(SWIFT) build -c release --product webimage

# One pass: the manager, prefetcher and binding suites run on an in-memory scripted loader, the
# loading suites' loopback origin serves on its own event loop, and every test waits for events
# rather than for time, so nothing needs a pass of its own.
test: install-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The DocC catalogs of WebImage, WebImageCodecs and WebImageServer, with every DocC warning an
# error (broken symbol links, unresolved articles). Archives under .build/plugins/Swift-DocC/outputs.
DOCS_TARGETS = --target WebImage --target WebImageCodecs --target WebImageServer
docs: install-deps
	$(SWIFT) package generate-documentation $(DOCS_TARGETS) --warnings-as-errors

# The example packages under Examples/ (each depends on this package by path and has its own
# .build): built and tested one after another. Not in CI: each builds WebImage again, and Vapor's
# first build alone takes about 8 minutes on two cores.
EXAMPLES = Examples/CodecsCLI Examples/HummingbirdGallery Examples/VaporAvatars

examples: install-deps
	@for example in $(EXAMPLES); do \
		echo "== $$example"; \
		$(SWIFT) build --package-path $$example --build-tests || exit 1; \
		$(SWIFT) test --package-path $$example --skip-build || exit 1; \
	done

# The whole suite under ThreadSanitizer / AddressSanitizer, each in its own scratch folder so the
# instrumented build never replaces the normal one. Slow (see docs/RELIABILITY.md); runs under nice.
# WEBIMAGE_SANITIZER tells tests to allow for the slowdown and to skip what cannot run instrumented
# (CLI processes under ASan, a few timing-bound tests). Swift's
# backtracer is off under ASan: it trips ASan reading other threads' stacks and then hangs.
SANITIZER_NICE ?= 10

# -DWEBIMAGE_TSAN swaps Synchronization.Mutex, whose locking TSan cannot see, for a pthread-backed
# stand-in it can (Sources/WebImageCodecs/Support/SanitizerMutex.swift). Any report fails the run (exit 66).
TSAN_BUILD = --sanitize=thread -Xswiftc -DWEBIMAGE_TSAN --scratch-path .build-tsan

tsan: install-deps
	nice -n $(SANITIZER_NICE) $(SWIFT) build --build-tests $(TSAN_BUILD)
	WEBIMAGE_SANITIZER=thread nice -n $(SANITIZER_NICE) $(SWIFT) test --skip-build $(TSAN_BUILD)

# LeakSanitizer checks every process at exit (the CLI suites' instrumented children too);
# Tests/lsan-suppressions.txt lists the toolchain's false positives, each with its reason.
ASAN_BUILD = --sanitize=address --scratch-path .build-asan
ASAN_RUN = WEBIMAGE_SANITIZER=address SWIFT_BACKTRACE=enable=no \
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0 nice -n $(SANITIZER_NICE) $(SWIFT) test --skip-build $(ASAN_BUILD)

asan: install-deps
	nice -n $(SANITIZER_NICE) $(SWIFT) build --build-tests $(ASAN_BUILD)
	$(ASAN_RUN)

demo: release
	$(RELEASE_BIN) demo

# Every published number: decode/thumbnail vs C limits, the pipeline harness (webimage bench as the
# subject, beside the Python peer and the ceiling) and memory-hit micro benchmarks (Benchmarks/README.md).
bench: release
	Benchmarks/run.sh

bench-quick: release
	Benchmarks/run.sh --quick --no-micro

# Micro benchmarks (ordo-one/package-benchmark) in Benchmarks/'s own package.
bench-micro: install-deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

# libFuzzer targets for the codecs, format sniffing, cache file names and request targets (see docs/RELIABILITY.md):
# each runs FUZZ_SECONDS (default 60) under nice; `make fuzz FUZZ_SECONDS=600` for the long run.
FUZZ_SECONDS ?= 60

fuzz-build: install-deps
	Fuzz/build.sh

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# The manager stress suite at full size: 10,000 loads over 500 URLs with random cancellation,
# 2,000 distinct 1000x1000 images under a 100 MB memory-cost limit (prints peak RSS), and a
# 1,000-frame 720x720 GIF (2 GB eagerly) played through a 16 MB frame buffer within 200 MB RSS.
stress: install-deps
	WEBIMAGE_STRESS=full $(SWIFT) test --filter 'LoadStressTests|AnimationMemoryStressTests|DecodeLeakLoopTests'

# `webimage serve` under wrk for SOAK_SECONDS with good and hostile request targets mixed; fails
# when the server dies or its RSS grows past the warm-up's (scripts/soak, docs/RELIABILITY.md).
SOAK_SECONDS ?= 60

soak: release
	scripts/soak $(SOAK_SECONDS)

# One Redis, three `webimage serve` instances sharing it and nginx in front, on loopback: a bounded
# load per scenario (steady, share, an instance killed, Redis restarted, Redis paused, throughput), a table each,
# then everything stopped (docs/SCALING.md).
cluster-demo: release
	scripts/cluster --scenario all

# Third-party conformance suites (PngSuite, the GIF, WebP, AVIF, HEIF, JPEG XL, TIFF, JPEG, ICO and
# SVG test files other projects wrote) through the release binary: `run.py` decodes and plays
# every file and prints a table per suite. The suites are not in the repository; without
# CONFORMANCE_DIR the target says so and succeeds. Not part of `make test`.
# CONFORMANCE_ARGS passes options on (e.g. `--suite tiff-imagetiff --extra-modes`).
CONFORMANCE_DIR ?= ../shared/conformance
CONFORMANCE_ARGS ?=

conformance: release
	@if [ -f "$(CONFORMANCE_DIR)/run.py" ]; then \
		python3 "$(CONFORMANCE_DIR)/run.py" $(RELEASE_BIN) $(CONFORMANCE_ARGS); \
	else \
		echo "make conformance: skipped: $(CONFORMANCE_DIR)/run.py is not there (the suites are kept outside the repository)."; \
	fi

clean:
	rm -rf .build .build-tsan .build-asan Benchmarks/.build Examples/*/.build
