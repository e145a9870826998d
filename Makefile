# Photon: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
SWIFT_FLAGS ?=

.PHONY: demo test build bench fuzz fuzz-ci setup clean install

## make demo: install what is missing, build, run `photon demo`
demo:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS) --product photon
	$(SWIFT) build $(SWIFT_FLAGS) --product photon-cli
	.build/debug/photon demo

## make build: debug build of everything
build:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS)

## make test: install what is missing (peers, services), build, run the whole suite.
## Tests run one at a time: many start real peers and TLS servers, and on a 2-core
## machine running them all at once turns CPU contention into spurious timeouts.
test:
	scripts/setup.sh test
	$(SWIFT) build $(SWIFT_FLAGS)
	$(SWIFT) run --package-path Examples/CustomAdapter $(SWIFT_FLAGS) custom-adapter-demo
	$(SWIFT) test --no-parallel $(SWIFT_FLAGS)

## make bench: release-built benchmarks; writes docs/benchmarks.md
bench:
	scripts/setup.sh test
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon-cli
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon-bench
	.build/release/photon-bench --output docs/benchmarks.md

## make fuzz: every parser of untrusted bytes under libFuzzer + AddressSanitizer, each for
## FUZZ_SECONDS (default 60); past crashes and the corpus are replayed first (Fuzz/run.sh)
FUZZ_SECONDS ?= 60
fuzz:
	scripts/setup.sh build
	Fuzz/run.sh $(FUZZ_SECONDS)

## make fuzz-ci: what CI runs — the replay plus a few seconds per target
fuzz-ci:
	scripts/setup.sh build
	Fuzz/run.sh 5

## make install PREFIX=/usr/local: release binaries (photon, photon-cli, photon-emulator),
## man pages, shell completions and the systemd user unit (DESTDIR for packagers)
PREFIX ?= /usr/local
install:
	scripts/setup.sh build
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon-cli
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_FLAGS) --product photon-emulator
	scripts/install.sh "$(PREFIX)"

setup:
	scripts/setup.sh test

clean:
	rm -rf .build .venv Examples/CustomAdapter/.build Fuzz/.build Fuzz/.scratch
