# plumbline: the two commands a newcomer needs are `make demo` and `make test`.

GO          ?= go
# The analyst's door links PostgreSQL's own parser (pg_query_go), C built
# through cgo: without a C compiler the build stops and says so. The first
# build compiles the parser (minutes on two cores); Go's build cache keeps it.
export CGO_ENABLED := 1
BIN         := bin/plumbline
BENCH_BIN   := bin/plumbline-bench
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
CLIENTS     := internal/clienttest
VIEWS       := internal/chartview

.PHONY: all build install dist image image-test demo test lint unit reference mutants conformance fuzz bench contract views clean

all: build

## COMMIT is stamped into every binary make builds (plumbline version): the
## checkout's commit, "-modified" when tracked files changed; VERSION=X.Y.Z
## stamps a release's version over the source's own
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -modified)
VERSION ?=
LDFLAGS := $(if $(COMMIT),-X main.stampedCommit=$(COMMIT)) $(if $(VERSION),-X plumbline/internal/mcpserver.Version=$(VERSION))

## build: bin/plumbline for this machine, linked against its C library, and
## beside it bin/plumbline-bench, the benchmark and soak, which measure it
build:
	$(GO) build -buildvcs=auto -ldflags '$(LDFLAGS)' -o bin/ ./cmd/plumbline ./cmd/plumbline-bench

## install: the binary on the PATH, as $(PREFIX)/bin/plumbline
PREFIX ?= /usr/local
install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/plumbline

## dist: static binaries for linux/amd64 and linux/arm64 in bin/dist, which
## run on any Linux with no C library installed. amd64 links musl
## (Debian: musl-tools); arm64 links glibc's static C library through the
## cross compiler (Debian: gcc-aarch64-linux-gnu), as Debian has no musl
## cross compiler. Go's own DNS resolver and user lookup (netgo, osusergo)
## keep the C library's name services out.
DIST      := bin/dist
DIST_CC_amd64 ?= musl-gcc
DIST_CC_arm64 ?= aarch64-linux-gnu-gcc
DIST_PKG_amd64 := musl-tools
DIST_PKG_arm64 := gcc-aarch64-linux-gnu
dist: $(DIST)/plumbline-linux-amd64 $(DIST)/plumbline-linux-arm64
	@cd $(DIST) && sha256sum plumbline-linux-* > SHA256SUMS && ls -l plumbline-linux-*

$(DIST)/plumbline-linux-%: FORCE
	@command -v $(DIST_CC_$*) >/dev/null || { echo "make dist: $(DIST_CC_$*) is missing: apt-get install $(DIST_PKG_$*)"; exit 1; }
	CC=$(DIST_CC_$*) GOOS=linux GOARCH=$* $(GO) build -trimpath -buildvcs=false -tags netgo,osusergo \
		-ldflags '-s -w $(LDFLAGS) -linkmode external -extldflags "-static"' -o $@ ./cmd/plumbline
	@file $@ | grep -q 'statically linked' || { file $@; echo "make dist: $@ is not statically linked"; exit 1; }

## image: an OCI image from scratch, built with buildah (Debian: buildah; no
## base image is pulled): the static amd64 binary, CA certificates, the time
## zone database and a non-root user, with plumbline serve as its entry
## point and plumbline health as its health check. It is tagged
## $(IMAGE) in buildah's (and podman's) storage and written to
## $(IMAGE_TAR), which docker load and podman load take
IMAGE     ?= localhost/plumbline:latest
IMAGE_TAR := bin/plumbline-image.tar
IMAGE_ROOT := bin/image/root
image: $(DIST)/plumbline-linux-amd64
	rm -rf bin/image && mkdir -p $(IMAGE_ROOT)/etc/ssl/certs $(IMAGE_ROOT)/usr/share
	cp $(DIST)/plumbline-linux-amd64 $(IMAGE_ROOT)/plumbline
	cp /etc/ssl/certs/ca-certificates.crt $(IMAGE_ROOT)/etc/ssl/certs/
	cp -r /usr/share/zoneinfo $(IMAGE_ROOT)/usr/share/
	printf 'root:x:0:0:root:/:/sbin/nologin\nplumbline:x:65532:65532:plumbline:/:/sbin/nologin\n' > $(IMAGE_ROOT)/etc/passwd
	printf 'root:x:0:\nplumbline:x:65532:\n' > $(IMAGE_ROOT)/etc/group
	buildah build --quiet --format docker --platform linux/amd64 -f Containerfile -t $(IMAGE) bin/image
	rm -f $(IMAGE_TAR) && buildah push --quiet $(IMAGE) docker-archive:$(IMAGE_TAR):$(IMAGE)
	@ls -l $(IMAGE_TAR)

## image-test: unpack the image's root file system and run its entry point
## in a chroot (as root): plumbline version, then serve against a private
## PostgreSQL, answering a report over HTTP and its health check
image-test: image
	$(GO) test $(RACE) -count=1 -v -run '^TestImage$$' ./cmd/plumbline -image $(CURDIR)/$(IMAGE_TAR)

FORCE:

## demo: serve the demo floor at http://127.0.0.1:8080/mcp on a private PostgreSQL
demo: build
	./$(BIN) demo $(DEMO_FLAGS)

## test: everything CI runs: formatting, vet, staticcheck, every test under
## the race detector (the conformance suite's verbosely, to show its pass
## list), the engine against the reference evaluator, and a short fuzz run
test: lint unit reference conformance fuzz

## RACE: the race detector is on for every test (it needs cgo, so a C
## compiler); RACE= runs them without it, a little faster
RACE ?= -race

lint:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

unit: $(CLIENTS)/node_modules/.package-lock.json $(VIEWS)/node_modules/.package-lock.json
	$(GO) test $(RACE) -count=1 -skip '^(TestConformance|TestEngineAgreesWithTheReference|TestImage)$$' ./...

## reference: the engine against the reference evaluator on REFERENCE_N random
## requests, verbose to show the count (REFERENCE_SEED=N repeats a run)
REFERENCE_N ?= 2000
REFERENCE_SEED ?= 0
reference:
	$(GO) test -count=1 -v -timeout 90m -run '^TestEngineAgreesWithTheReference$$' ./internal/reference \
		-reference.n=$(REFERENCE_N) -reference.seed=$(REFERENCE_SEED)

## mutants: show that the tests bite (not part of test: minutes on two cores).
## Each testdata/mutants/<name>.patch breaks one rule of the engine and names,
## in its comment lines, the go test commands that must catch it; the test
## copies the module's tracked files, checks that each command passes there,
## then applies each mutant in turn and requires its commands to fail,
## logging which test caught it and how long that took
mutants:
	$(GO) test -count=1 -v -timeout 60m -run '^TestMutantsAreCaught$$' ./internal/mutants -mutants

## conformance: the official MCP conformance suite against the demo, verbose so
## that the suite's line for every scenario shows
conformance: $(CLIENTS)/node_modules/.package-lock.json
	$(GO) test $(RACE) -count=1 -v -run '^TestConformance$$' ./cmd/plumbline

## the programs nobody on plumbline wrote that the tests run against it (the MCP
## conformance suite, the TypeScript SDK, the MCP Inspector, an OpenID Connect
## provider) and the Node.js 22 they need, pinned by their lockfile
$(CLIENTS)/node_modules/.package-lock.json: $(CLIENTS)/package.json $(CLIENTS)/package-lock.json
	cd $(CLIENTS) && npm ci --no-audit --no-fund

## the chart view's build tools, pinned by their lockfile: its tests rebuild it
$(VIEWS)/node_modules/.package-lock.json: $(VIEWS)/package.json $(VIEWS)/package-lock.json
	cd $(VIEWS) && npm ci --no-audit --no-fund

## fuzz: a short run of each fuzz target, one for every decoder of caller
## input: tool arguments, names matched against the directory, the OAuth
## endpoints' forms and registration JSON, client metadata documents, the
## catalogue loader and the analyst's door's check (SELECTs from a grammar,
## judged by PostgreSQL). Each runs a count of inputs (about ten seconds on two
## cores), not a duration: Go 1.26's fuzzer can fail a run at the end of a
## -fuzztime duration with "context deadline exceeded" when its workers are
## slow to stop (go.dev/issue/75804, fixed in Go 1.27). FUZZTIME=1m runs
## each for a duration instead. Each new input gets FUZZMINIMIZE to shrink,
## as Go's default of 60s would spend a short run shrinking inputs instead
## of trying new ones. The corpus each grew in its long runs is kept under
## the package's testdata/fuzz and runs in unit too.
FUZZTIME ?=
FUZZMINIMIZE ?= 1s
FUZZ_TARGETS := reports:FuzzDecodeReport:150000x reports/directory:FuzzResolveWho:100000x \
	internal/oauth/intake:FuzzReadForm:25000x internal/oauth/intake:FuzzDecodeRegistration:15000x \
	internal/oauth/cimd:FuzzParse:150000x catalog:FuzzLoad:50000x internal/scim:FuzzIntake:25000x \
	internal/sqlcheck:FuzzCheck:4000x
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; budget=$(or $(FUZZTIME),$${rest#*:}); \
		echo "fuzz $$name in ./$$pkg for $$budget"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$budget -fuzzminimizetime $(FUZZMINIMIZE) ./$$pkg; \
	done

## views: rebuild the chart view (internal/chartview/dist) from its sources; needs `npm ci` in internal/chartview
views: $(VIEWS)/node_modules/.package-lock.json
	cd $(VIEWS) && npm run build

## bench: the Go benchmarks, then plumbline-bench on the demo floor and on
## one ten times its size, measuring bin/plumbline (results and charts under
## bin/); BENCH_FLAGS passes flags to plumbline-bench, such as
## --baseline OLD_BINARY (a plumbline binary of an earlier build) for a
## before and after in one run
BENCH_FLAGS ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./$(BENCH_BIN) $(BENCH_FLAGS) --json bin/bench-demo.json --charts bin/bench-demo
	./$(BENCH_BIN) --agents 960 $(BENCH_FLAGS) --json bin/bench-10x.json --charts bin/bench-10x

## contract: regenerate the committed snapshot of the demo catalogue's contract
contract:
	$(GO) run ./cmd/plumbline contract catalog/demo -o testdata/contract/demo.json

clean:
	rm -rf bin
