# Photon: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
SWIFT_FLAGS ?=

.PHONY: demo test build bench setup clean

## make demo: install what is missing, build, run `photon demo`
demo:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS) --product photon
	.build/debug/photon demo

## make build: debug build of everything
build:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS)

## make test: install what is missing (peers, services), build, run the whole suite
test:
	scripts/setup.sh test
	$(SWIFT) build $(SWIFT_FLAGS)
	$(SWIFT) test $(SWIFT_FLAGS)

## make bench: release-built benchmarks; writes docs/benchmarks.md
bench:
	scripts/setup.sh test
	$(SWIFT) build -c release $(SWIFT_FLAGS) --product photon-bench
	.build/release/photon-bench --output docs/benchmarks.md

setup:
	scripts/setup.sh test

clean:
	rm -rf .build .venv
