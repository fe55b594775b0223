# plumbline: the two commands a newcomer needs are `make demo` and `make test`.

GO          ?= go
# The analyst's door links PostgreSQL's own parser (pg_query_go), C built
# through cgo: without a C compiler the build stops and says so. The first
# build compiles the parser (minutes on two cores); Go's build cache keeps it.
export CGO_ENABLED := 1
BIN         := bin/plumbline
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
CLIENTS     := internal/clienttest
VIEWS       := internal/chartview

.PHONY: all build demo test lint unit reference mutants conformance fuzz bench contract views clean

all: build

## build records the commit it is built from (plumbline version), when it
## is built from a checkout
build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/plumbline

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
	$(GO) test $(RACE) -count=1 -skip '^(TestConformance|TestEngineAgreesWithTheReference)$$' ./...

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
FUZZ_TARGETS := reports:FuzzDecodeReport:150000x reports:FuzzResolveWho:100000x \
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

## bench: the Go benchmarks, then plumbline bench on the demo floor and on
## one ten times its size (results and charts under bin/); BENCH_FLAGS
## passes flags to plumbline bench, such as --baseline OLD_BINARY for a
## before and after in one run
BENCH_FLAGS ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./$(BIN) bench $(BENCH_FLAGS) --json bin/bench-demo.json --charts bin/bench-demo
	./$(BIN) bench --agents 960 $(BENCH_FLAGS) --json bin/bench-10x.json --charts bin/bench-10x

## contract: regenerate the committed snapshot of the demo catalogue's contract
contract:
	$(GO) run ./cmd/plumbline contract catalog/demo -o testdata/contract/demo.json

clean:
	rm -rf bin
