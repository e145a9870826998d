# Photon: the two commands a newcomer needs are `make demo` and `make test`.
SWIFT ?= swift
SWIFT_FLAGS ?=
# Release builds: the static Swift runtime; no $ORIGIN run path (nothing is loaded from
# beside the binaries, yet the dynamic loader would search there, ~20 paths, for every
# library); libstdc++ and libgcc linked into photon-cli (see Package.swift and below).
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath

.PHONY: demo test build bench fuzz fuzz-ci setup clean install release deb deb-test docs format static-libstdc++

## make demo: install what is missing, build, run `photon demo`
demo:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS) --product photon
	$(SWIFT) build $(SWIFT_FLAGS) --product photon-cli
	$(SWIFT) build $(SWIFT_FLAGS) --product photon-emulator
	.build/debug/photon demo

## make build: debug build of everything
build:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS)

## make test: install what is missing (peers, services), build, run the whole suite.
## Pure suites (codecs, the router, the session service over in-memory sessions, the
## store) run in parallel: they are the test targets in PURE_TESTS (a new pure suite goes
## in Tests/PhotonUnitTests). Suites with real peers — TLS servers, emulators, child
## processes, avahi-daemon, mosquitto — run one test at a time within a shard, and the
## shards run at once (scripts/run-shards.sh): the PhotonCLITests suites of the doors
## (voice, the web remote in Chromium, the MQTT bridge), the rest of PhotonCLITests, the
## brands' targets with their end-to-end suites, and every other target. Each shard's
## filter is another's skip, so every real-peer test runs exactly once; a new suite or
## target lands in the cli or the last shard. Shards share no fixed port, system daemon or
## global file (the suites that use avahi-daemon are all in the last). Each runs under a
## watchdog (scripts/run-tests.sh): one stuck past its limit prints its threads and the
## tests still open, and fails, instead of hanging CI.
PURE_TESTS = PhotonCoreTests\.|PhotonCryptoTests\.|PhotonStoreTests\.|PhotonUnitTests\.
DOOR_TESTS = ^PhotonCLITests\.(VoiceEndToEndTests|WebRemoteBrowserTests|MQTTBridgeTests)
BRAND_TESTS = ^AndroidTVTests\. ^AppleTVTests\. ^FireTVTests\. ^LGWebOSTests\. ^PhilipsTests\. ^RokuTests\. ^SamsungTVTests\. ^SonyTests\. ^VizioTests\.
BRAND_CLI_TESTS = ^PhotonCLITests\.(AndroidTVEndToEndTests|SamsungEndToEndTests|FrameEndToEndTests|LGEndToEndTests|RokuEndToEndTests|FireTVEndToEndTests|SonyEndToEndTests|PhilipsEndToEndTests|VizioEndToEndTests)
test:
	scripts/setup.sh test
	scripts/check-format.sh
	$(SWIFT) build $(SWIFT_FLAGS)
	.build/debug/custom-adapter-demo
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	scripts/run-tests.sh 300 pure $(SWIFT) test --skip-build $(SWIFT_FLAGS) --filter '$(PURE_TESTS)'
	scripts/run-shards.sh 600 "$$($(SWIFT) build --show-bin-path $(SWIFT_FLAGS))/PhotonPackageTests.xctest" \
		doors '$(DOOR_TESTS)' - \
		cli '^PhotonCLITests\.' '$(DOOR_TESTS) $(BRAND_CLI_TESTS)' \
		brands '$(BRAND_TESTS) $(BRAND_CLI_TESTS)' - \
		core - '$(PURE_TESTS) ^PhotonCLITests\. $(BRAND_TESTS)'

## make bench: release-built benchmarks; writes docs/benchmarks.md
bench: static-libstdc++
	scripts/setup.sh test
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon-cli
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon-bench
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

## The C++ runtime's static archive where photon-cli's release link looks first (the
## compiler's own directory holds the shared library too, which the linker would prefer).
## Without it the release photon-cli still builds, with libstdc++ as a shared library.
static-libstdc++:
	@mkdir -p .build/static-libstdc++
	@a=$$(cc -print-file-name=libstdc++.a 2>/dev/null); \
	case "$$a" in /*) [ -f "$$a" ] && ln -sf "$$a" .build/static-libstdc++/libstdc++.a ;; esac; true

## make release: the release binaries (photon, photon-cli, photon-emulator)
release: static-libstdc++
	scripts/setup.sh build
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon-cli
	$(SWIFT) build $(RELEASE_FLAGS) $(SWIFT_FLAGS) --product photon-emulator

## make deb: the Debian package .build/deb/photon_<VERSION>_<arch>.deb (release binaries,
## static Swift runtime; Depends from dpkg-shlibdeps; checked by lintian). docs/packaging.md
deb: release
	scripts/setup.sh deb
	scripts/make-deb.sh

## make deb-test: installs that package on this machine (as root), drives an emulated TV
## with the installed binaries, removes it and checks nothing is left behind
deb-test: deb
	scripts/test-deb.sh

## make docs: the API reference (DocC) for PhotonKit, PhotonCore, PhotonConformance and the
## test kit PhotonTesting, as a static site in .build/docs; a DocC warning fails it
docs:
	scripts/setup.sh build
	$(SWIFT) build $(SWIFT_FLAGS)
	scripts/make-docs.sh

## make format: formats every Swift file with swift-format (.swift-format); `make test`
## fails on unformatted code
format:
	scripts/check-format.sh --fix

## make install PREFIX=/usr/local: release binaries, man pages, shell completions and the
## systemd user unit (DESTDIR for packagers). Under sudo it only copies: it never compiles
## as root in your checkout (run `make release` as yourself first).
PREFIX ?= /usr/local
install:
	@if [ "$$(id -u)" = 0 ] && [ -n "$$SUDO_USER" ]; then \
		for b in photon photon-cli photon-emulator; do \
			[ -x .build/release/$$b ] || { echo "make install: .build/release/$$b is missing; run \`make release\` as $$SUDO_USER first, then sudo make install" >&2; exit 1; }; \
		done; \
	else \
		$(MAKE) release; \
	fi
	scripts/install.sh "$(PREFIX)"

setup:
	scripts/setup.sh test

clean:
	rm -rf .build .venv Examples/CustomAdapter/.build Fuzz/.build Fuzz/.scratch
