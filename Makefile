# sandview — see README.md. `make run` and `make test` do all set-up a fresh
# machine needs (Go modules are fetched by the go tool).
GO      ?= go
BIN     := bin/sandview
PKGS    := ./...

.PHONY: build run test vet fmt-check check-size unit e2e bench lint stress screenshots clean dist package package-check ci-package

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

# check-size fails on any tracked file over 1 MB (sizes as staged, like a
# pre-commit check): binaries and dumps stay out of git.
MAX_TRACKED_BYTES := 1048576

check-size:
	@big=$$(git ls-files -s | awk '{ sha = $$2; sub(/^[^\t]*\t/, ""); print sha, $$0 }' \
		| git cat-file --batch-check='%(objectsize) %(rest)' | awk -v max=$(MAX_TRACKED_BYTES) '$$1 > max'); \
	if [ -n "$$big" ]; then echo "tracked files over 1 MB (bytes, path):"; echo "$$big"; exit 1; fi

unit:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

e2e: build
	./tui/e2e/tmux-e2e.sh $(BIN)
	./tui/e2e/ssh-e2e.sh $(BIN)
	./tui/e2e/quickstart-e2e.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint: vet fmt-check check-size
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

# stress proves the suite is not flaky on a busy machine and runs every fuzz
# target for 60 s (.ci/stress): slow,
# and not part of test.
stress:
	./.ci/stress

screenshots: build
	./screenshots/capture.sh $(BIN)

# Releases (.goreleaser.yaml, docs/install.md), into build/release:
# `make dist` every platform's archive, the .deb and .rpm, checksums.txt,
# then the container image where podman, buildah or a docker daemon works;
# `make package` only linux/amd64's (the same file, its one targets line
# rewritten); `make package-check` (as root) builds that, checks the
# checksums and the archive, and installs, upgrades and removes the .deb.
# goreleaser reads the commit (stamped into --version) only in a repository
# with a remote: one without (a `git init`, a worktree of one) is given
# itself as origin, in goreleaser's environment only.
GORELEASER_GIT := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=$(CURDIR))
GORELEASER := $(GORELEASER_GIT) $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1

dist:
	$(GORELEASER) release --snapshot --clean
	./dist/container/build-image.sh build/release

package:
	@mkdir -p build
	sed 's/^    targets: \[.*\]$$/    targets: [linux_amd64]/' .goreleaser.yaml > build/goreleaser-linux-amd64.yaml
	grep -q '^    targets: \[linux_amd64\]$$' build/goreleaser-linux-amd64.yaml
	$(GORELEASER) release --snapshot --clean --config build/goreleaser-linux-amd64.yaml

package-check: package
	./dist/packaging/install-test.sh build/release

# ci-package (CI, as root) builds and checks the linux/amd64 release
# without goreleaser, whose first build is too slow for CI: the binary as
# .goreleaser.yaml's builds entry makes it (static, its --version stamped),
# the man pages and completions (its before hook; built with the binary's
# flags, so it reuses that build's packages), the .deb and .rpm by
# nfpm from .goreleaser.yaml's nfpms entry (internal/gennfpm translates it:
# the packages are described once), the archive as its archives entry holds
# it, checksums.txt; then the same install-test.sh as package-check.
CI_RELEASE := build/ci-release
CI_STAGE   := build/ci-stage
NFPM       := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
# A snapshot version, like goreleaser's (0.0.1-dev+abc1234) but named for CI,
# and the commit's date in UTC (goreleaser's CommitDate); `=`: read from git
# only when ci-package runs.
CI_VERSION  = 0.0.0-ci+$(shell git rev-parse --short HEAD)
CI_DATE     = $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)

ci-package:
	@rm -rf $(CI_RELEASE) $(CI_STAGE) build/docs && mkdir -p $(CI_RELEASE) $(CI_STAGE)
	CGO_ENABLED=0 GOOS=linux GOARCH=amd64 $(GO) build -trimpath -o $(CI_STAGE)/sandview \
		-ldflags "-s -w -X sandview/internal/cli.stampedVersion=$(CI_VERSION) -X sandview/internal/cli.stampedCommit=$$(git rev-parse HEAD) -X sandview/internal/cli.stampedDate=$(CI_DATE)" .
	CGO_ENABLED=0 $(GO) run -trimpath ./internal/gendocs build/docs $(CI_DATE)
	$(GO) run ./internal/gennfpm -version $(CI_VERSION) -arch amd64 -binary $(CI_STAGE)/sandview > $(CI_STAGE)/nfpm.yaml
	$(NFPM) pkg --config $(CI_STAGE)/nfpm.yaml --packager deb --target $(CI_RELEASE)/
	$(NFPM) pkg --config $(CI_STAGE)/nfpm.yaml --packager rpm --target $(CI_RELEASE)/
	mkdir -p $(CI_STAGE)/archive/man $(CI_STAGE)/archive/completions
	cp $(CI_STAGE)/sandview LICENSE README.md $(CI_STAGE)/archive/
	cp build/docs/man/*.1 $(CI_STAGE)/archive/man/
	cp build/docs/completions/* $(CI_STAGE)/archive/completions/
	tar -czf $(CI_RELEASE)/sandview_$(CI_VERSION)_linux_amd64.tar.gz -C $(CI_STAGE)/archive sandview LICENSE README.md man completions
	cd $(CI_RELEASE) && sha256sum *.tar.gz *.deb *.rpm > checksums.txt
	./dist/packaging/install-test.sh $(CI_RELEASE) $(CI_VERSION)

clean:
	rm -rf bin build
