# vaultmcp — GNU make. `make run` serves a vault over stdio, `make test` runs
# every test (what .ci/run runs). `make help` lists the rest.
#
# Everything the tests need is installed here, never assumed: Go modules,
# the TypeScript SDK for the e2e client and puppeteer-core for the browser
# test (from e2e/ts/package-lock.json), and git, Node.js, Chromium and
# podman with runc (the container image test) from Debian's packages when
# they are missing.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO       ?= go
NPM      ?= npm
# FUZZTIME is how long `make fuzz` runs each fuzz target.
FUZZTIME ?= 10s
# RACE is passed to `go test` for the unit tests; empty turns it off.
RACE     ?= -race
# E2E_RACE=1 builds the binary the e2e tests drive with the race detector;
# a race report in the server's log then fails the test.
E2E_RACE ?= 1
# ARGS are extra flags for `make run`, e.g. ARGS='--vault ~/notes'.
ARGS     ?=
# CRASH_KILLS is how many times `make crash` kills the server (make test's
# run of the same test kills it 50 times).
CRASH_KILLS ?= 500

STATICCHECK_VERSION := v0.8.2
STATICCHECK         := bin/tools/staticcheck-$(STATICCHECK_VERSION)/staticcheck
NPM_STAMP           := e2e/ts/node_modules/.package-lock.json
CONFORMANCE_STAMP   := conformance/node_modules/.package-lock.json

.PHONY: release release-bins image image-deps help run build generate test deps system-deps go-deps e2e-deps vet unit e2e crash lint fuzz bench bench-deps clean conformance conformance-deps

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

# stdout is the MCP stream: the recipe is not echoed onto it.
run: ## serve a vault over stdio (the local default vault unless ARGS/config name one)
	@$(GO) run ./cmd/vaultmcp serve $(ARGS)

# Without cgo the binary is static: no dynamic loader, libc or cgo thread
# start at every spawn (about 60 fewer page faults before initialize is
# answered, 5-20 % of the CPU until then in paired runs). DNS and user
# lookups then use Go's own resolvers.
build: ## build bin/vaultmcp
	CGO_ENABLED=0 $(GO) build -o bin/vaultmcp ./cmd/vaultmcp

# Every generated file carries the //go:generate line that rewrites it (a
# test run with -update); without -update the same test fails on a stale
# file.
generate: ## rewrite every generated file (go generate ./...)
	$(GO) generate ./...

# Release builds are reproducible: the version comes from git describe (a
# leading v dropped), the build date is the commit's time (or
# SOURCE_DATE_EPOCH when set), paths are trimmed and the build id is empty,
# so one commit gives the same bytes on any machine with the same Go.
# VCS stamping is off: it would change with untracked files.
VERSION           ?= $(patsubst v%,%,$(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev))
COMMIT            ?= $(shell git rev-parse HEAD 2>/dev/null)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE        := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
DIST              ?= dist
PLATFORMS         ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
RELEASE_LDFLAGS   := -s -w -buildid= -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE)

release: ## static binaries for every PLATFORMS into dist/, with SHA256SUMS (reproducible)
	@mkdir -p $(DIST)
	rm -f $(DIST)/vaultmcp_* $(DIST)/SHA256SUMS
	$(MAKE) release-bins
	cd $(DIST) && sha256sum vaultmcp_* > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

release-bins:
	@for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [[ $$os == windows ]] && ext=.exe; \
		out=$(DIST)/vaultmcp_$(VERSION)_$${os}_$${arch}$$ext; \
		echo "build $$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false \
			-ldflags '$(RELEASE_LDFLAGS)' -o $$out ./cmd/vaultmcp; \
	done

# The container image (Containerfile) is built with podman from the linux
# release binary. PODMAN_STORE holds podman's configuration and image
# store, so the build leaves the machine's own podman state alone (set it
# to an empty value to use your own store). The containers.conf written
# there is what podman with runc needs on machines like these: no default
# ulimits ("error setting rlimit") and cgroupfs; crun fails on hybrid
# cgroups. The image is also saved as an OCI archive in dist/.
IMAGE         ?= vaultmcp:$(VERSION)
IMAGE_ARCH    ?= $(shell $(GO) env GOARCH)
IMAGE_CONTEXT ?= bin/image
PODMAN_STORE  ?= $(CURDIR)/bin/podman
PODMAN        := $(if $(PODMAN_STORE),CONTAINERS_CONF=$(PODMAN_STORE)/containers.conf CONTAINERS_STORAGE_CONF=$(PODMAN_STORE)/storage.conf )podman

image: image-deps ## the container image (podman, FROM scratch) from the linux release binary
	$(MAKE) release-bins PLATFORMS=linux/$(IMAGE_ARCH)
	rm -rf $(IMAGE_CONTEXT)
	mkdir -p $(IMAGE_CONTEXT)/rootfs/vault $(IMAGE_CONTEXT)/rootfs/state $(IMAGE_CONTEXT)/rootfs/tmp
	chmod 0700 $(IMAGE_CONTEXT)/rootfs/state
	chmod 1777 $(IMAGE_CONTEXT)/rootfs/tmp
	cp $(DIST)/vaultmcp_$(VERSION)_linux_$(IMAGE_ARCH) $(IMAGE_CONTEXT)/vaultmcp
	cp /etc/ssl/certs/ca-certificates.crt $(IMAGE_CONTEXT)/ca-certificates.crt
	@if [[ -n "$(PODMAN_STORE)" ]]; then \
		mkdir -p $(PODMAN_STORE); \
		printf '[containers]\ndefault_ulimits = []\n\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' > $(PODMAN_STORE)/containers.conf; \
		printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' $(PODMAN_STORE)/storage $(PODMAN_STORE)/run > $(PODMAN_STORE)/storage.conf; \
	fi
	$(PODMAN) build --quiet --format oci --arch $(IMAGE_ARCH) -f Containerfile -t $(IMAGE) $(IMAGE_CONTEXT)
	rm -f $(DIST)/vaultmcp_$(VERSION)_image_linux_$(IMAGE_ARCH).tar
	$(PODMAN) save --quiet --format oci-archive -o $(DIST)/vaultmcp_$(VERSION)_image_linux_$(IMAGE_ARCH).tar $(IMAGE)
	@echo "image $(IMAGE): $$($(PODMAN) image inspect --format '{{.Size}}' $(IMAGE)) bytes"

# podman with runc (and slirp4netns for its networking), and the CA
# bundle the image carries, from Debian's packages when missing.
image-deps: ## install podman, runc and slirp4netns (make image, the container e2e test) when missing
	@missing=(); \
	command -v podman >/dev/null || missing+=(podman); \
	command -v runc >/dev/null || missing+=(runc); \
	command -v slirp4netns >/dev/null || missing+=(slirp4netns); \
	[[ -f /etc/ssl/certs/ca-certificates.crt ]] || missing+=(ca-certificates); \
	if (( $${#missing[@]} )); then \
		if [[ $$(id -u) -ne 0 ]]; then \
			echo "missing: $${missing[*]}; install them (apt-get install $${missing[*]}) or run make as root" >&2; exit 1; \
		fi; \
		echo "installing $${missing[*]} from Debian's packages"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$${missing[@]}" >/dev/null; \
	fi

test: deps ## everything: go vet, unit tests (race), fuzz seed corpora, e2e
	$(MAKE) vet
	$(MAKE) unit
	$(MAKE) e2e

deps: system-deps image-deps go-deps $(NPM_STAMP) ## install what the tests need

# git (the vaults are repositories), Node.js with npm (the TypeScript SDK
# client) and Chromium (the OAuth sign-in page, driven by puppeteer-core)
# come from Debian's packages when missing.
system-deps:
	@missing=(); \
	command -v git >/dev/null || missing+=(git); \
	command -v node >/dev/null || missing+=(nodejs); \
	command -v npm >/dev/null || missing+=(npm); \
	[[ -x /usr/bin/chromium ]] || missing+=(chromium); \
	if (( $${#missing[@]} )); then \
		if [[ $$(id -u) -ne 0 ]]; then \
			echo "missing: $${missing[*]}; install them (apt-get install $${missing[*]}) or run make as root" >&2; exit 1; \
		fi; \
		echo "installing $${missing[*]} from Debian's packages"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$${missing[@]}" >/dev/null; \
	fi

go-deps:
	$(GO) mod download

# npm ci runs again whenever the lock file changes (npm writes the stamp).
$(NPM_STAMP): e2e/ts/package.json e2e/ts/package-lock.json | system-deps
	$(NPM) ci --prefix e2e/ts --no-audit --no-fund
	@touch $@

e2e-deps: system-deps ## install the e2e TypeScript client's packages (npm ci)
	$(NPM) ci --prefix e2e/ts --no-audit --no-fund
	@touch $(NPM_STAMP)

# The MCP conformance suite and the Node 22 it needs (npm's node package)
# come from conformance/package-lock.json.
$(CONFORMANCE_STAMP): conformance/package.json conformance/package-lock.json | system-deps
	$(NPM) ci --prefix conformance --no-audit --no-fund
	@touch $@

conformance-deps: system-deps ## install the MCP conformance suite and Node 22 (npm ci)
	$(NPM) ci --prefix conformance --no-audit --no-fund
	@touch $(CONFORMANCE_STAMP)

conformance: build $(CONFORMANCE_STAMP) ## the official MCP conformance suite against serve --http on loopback, auth off
	bash conformance/run.sh

vet:
	$(GO) vet ./...

# Unit tests run every Fuzz* target's seed corpus (testdata/fuzz/...) as
# ordinary tests; e2e runs separately below.
unit:
	$(GO) test $(RACE) $$($(GO) list ./... | grep -v '^vaultmcp/e2e$$')

# The suite takes about 5 minutes on two idle cores; its timeout leaves
# room for a loaded machine (11 minutes at load 40) instead of Go's
# default 10, which stops a slow run that would have passed.
e2e: system-deps image-deps $(NPM_STAMP) ## end-to-end tests: the built binary, mcp-go and TypeScript SDK clients, Chromium, podman
	VAULTMCP_E2E_RACE=$(filter 1,$(E2E_RACE)) $(GO) test -count=1 -timeout 25m ./e2e/...

crash: system-deps ## the long crash test: kill -9 the server mid-write CRASH_KILLS times (default 500)
	VAULTMCP_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -count=1 -timeout 90m -v -run '^TestCrashRecovery$$' ./e2e/

lint: $(STATICCHECK) ## gofmt check, go vet, staticcheck
	@files=$$(git ls-files -co --exclude-standard '*.go'); \
	unformatted=$$(gofmt -l $$files); \
	if [[ -n "$$unformatted" ]]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(CURDIR)/$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

fuzz: go-deps ## run every fuzz target for FUZZTIME (default 10s)
	@targets=$$($(GO) test -list '^Fuzz' ./... | awk '/^Fuzz/ {f[n++] = $$1; next} /^ok/ {for (i = 0; i < n; i++) print $$2 " " f[i]; n = 0}'); \
	if [[ -z "$$targets" ]]; then echo "no fuzz targets"; exit 0; fi; \
	while read -r pkg target; do \
		echo "== $$pkg $$target ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$pkg"; \
	done <<< "$$targets"

# ripgrep is the baseline `make bench` runs grep against.
bench-deps: ## install ripgrep (make bench's baseline) from Debian's packages when missing
	@if ! command -v rg >/dev/null; then \
		if [[ $$(id -u) -ne 0 ]]; then \
			echo "missing: ripgrep; install it (apt-get install ripgrep) or run make as root" >&2; exit 1; \
		fi; \
		echo "installing ripgrep from Debian's packages"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null; \
	fi

bench: go-deps bench-deps ## Go benchmarks, then the performance budget table, written into docs/performance.md (cmd/vaultbench)
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@if [[ -d cmd/vaultbench ]]; then echo "$(GO) run ./cmd/vaultbench --write-docs docs/performance.md"; $(GO) run ./cmd/vaultbench --write-docs docs/performance.md; fi

clean: ## remove build output and installed e2e packages
	rm -rf bin dist e2e/ts/node_modules conformance/node_modules
