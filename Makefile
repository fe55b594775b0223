# plumbline: the two commands a newcomer needs are `make demo` and `make test`.

GO          ?= go
BIN         := bin/plumbline
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

.PHONY: all build demo test lint unit bench contract clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/plumbline

## demo: serve the demo floor at http://127.0.0.1:8080/mcp on a private PostgreSQL
demo: build
	./$(BIN) demo $(DEMO_FLAGS)

## test: everything CI runs: formatting, vet, staticcheck and every test
test: lint unit

lint:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

unit:
	$(GO) test -count=1 ./...

## bench: the benchmarks, side by side with the raw SQL
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## contract: regenerate the committed snapshot of the demo catalogue's contract
contract:
	$(GO) run ./cmd/plumbline contract catalog/demo -o testdata/contract/demo.json

clean:
	rm -rf bin
