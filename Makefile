# fleetd — build, test, demo and benchmarks. Every target works as root on a fresh Debian 12 with the
# Swift toolchain on PATH; `deps` installs what is missing.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
SWIFT_FLAGS ?=

DEBIAN_PACKAGES := libdbus-1-dev libsystemd-dev libssl-dev libsqlite3-dev sqlite3 dbus-daemon dbus bluez bluez-test-tools \
	bluez-test-scripts python3-dbus python3-venv python3-pip systemd util-linux procps \
	libmosquitto-dev mosquitto mosquitto-clients faketime

.PHONY: all deps build release test test-unit test-bluez demo soak record-soak bench install clean

all: build

## deps: apt-get install the Debian packages the build, tests and demo need (only those missing).
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		if [ "$$(id -u)" != 0 ]; then echo "deps: need root to apt-get install $$missing" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "deps: all Debian packages present"; fi

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS)

## test: the whole suite (unit, private-bus, journald, simulator scenarios, deploy checks; real BlueZ in a
## guest when ../shared/bluez-vm/run exists and FLEET_SKIP_BLUEZ is unset).
test: deps
	@scripts/run-tests

test-unit: deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build $(SWIFT_FLAGS)

test-bluez: deps
	@scripts/test-bluez

demo: deps
	@scripts/demo

## soak: the chaos soak (docs/soak.md): fleetd on the simulator, 200 devices on 4 adapters, faults drawn from a
## seed, invariants checked all along. SEED=… replays a schedule (default: a fresh seed, printed); MINUTES=…
## simulated minutes of faults (default 10, one real minute each at time scale 10).
soak: deps
	@SEED="$(SEED)" MINUTES="$(MINUTES)" scripts/soak

## record-soak: the meter soak (issue 37, docs/records.md): three simulated glucose meters under cut transfers,
## dropped links, fleetd SIGKILLs and battery changes; every record once. SEEDS="1 2 3" (default 1…20).
record-soak: deps
	@scripts/record-soak $(SEEDS)

bench: deps
	$(SWIFT) build -c release $(SWIFT_FLAGS)
	@scripts/bench

install: release
	@scripts/install "$(DESTDIR)" "$(PREFIX)"

clean:
	rm -rf .build
