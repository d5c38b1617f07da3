# WebImage — the README's commands. `make demo` runs it, `make test` tests it.
SWIFT ?= swift
RELEASE_BIN = .build/release/webimage

.PHONY: install-deps build release test demo bench bench-quick bench-micro clean

install-deps:
	@scripts/install-deps

build: install-deps
	$(SWIFT) build

release: install-deps
	$(SWIFT) build -c release --product webimage

test: install-deps
	$(SWIFT) test

demo: release
	$(RELEASE_BIN) demo

# Decode and thumbnail benchmarks against the shared harness's C limits (see Benchmarks/README.md).
bench: release
	Benchmarks/run.sh

bench-quick: release
	Benchmarks/run.sh --quick

# Micro benchmarks (ordo-one/package-benchmark) in Benchmarks/'s own package.
bench-micro: install-deps
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark

clean:
	rm -rf .build Benchmarks/.build
