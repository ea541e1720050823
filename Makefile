# sandview — see README.md. `make run` and `make test` do all set-up a fresh
# machine needs (Go modules are fetched by the go tool).
GO      ?= go
BIN     := bin/sandview
PKGS    := ./...

.PHONY: build run test vet fmt-check unit e2e bench lint screenshots clean

build:
	$(GO) build -o $(BIN) .

run: build
	./$(BIN) --local --demo

test: vet fmt-check unit e2e

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

unit:
	$(GO) test -race -count=1 $(PKGS)

e2e: build
	./tui/e2e/tmux-e2e.sh $(BIN)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint: vet fmt-check
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

screenshots: build
	./screenshots/capture.sh $(BIN)

clean:
	rm -rf bin
