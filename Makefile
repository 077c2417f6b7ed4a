# Gantry's build. `make demo` runs the playground, `make test` runs every check CI runs.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c

BIN := $(CURDIR)/bin
CONTROLLER_GEN := $(BIN)/controller-gen
export GOFLAGS ?= -buildvcs=false

.PHONY: all build generate verify-generated vet test test-unit envtest-assets config-servers demo demo-once bench bench-large bench-helm fmt conformance faults

all: build

# The binaries as they ship (hack/build.sh): the CLI, and the controller alone as the image has it.
build:
	hack/build.sh $(BIN)/gantry
	hack/build.sh $(BIN)/gantry-controller ./cmd/gantry-controller

# controller-gen is pinned by hack/tools/go.mod (its own module, so its dependencies stay out of ours).
$(CONTROLLER_GEN): hack/tools/go.mod hack/tools/go.sum
	cd hack/tools && GOWORK=off go build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen

generate: $(CONTROLLER_GEN)
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./apis/...
	$(CONTROLLER_GEN) crd paths=./apis/... output:crd:artifacts:config=config/crd
	hack/gateway-api-crds.sh
	rm -f charts/gantry/crds/*.yaml && cp config/crd/*.yaml charts/gantry/crds/
	go test ./manifests -run '^TestCRDDefaultsFile$$' -count=1 -update

# Regenerates CRDs and deepcopy and fails if that changed anything: generated code is committed.
verify-generated: generate
	@if [ -n "$$(git status --porcelain -- apis config/crd config/gateway-api charts/gantry/crds manifests/crddefaults.json)" ]; then \
	  echo "generated files are out of date; run 'make generate' and commit:"; \
	  git status --porcelain -- apis config/crd config/gateway-api; git --no-pager diff -- apis config/crd config/gateway-api | head -50; exit 1; fi

vet:
	@hack/check-committed-files.sh
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet ./...

# Builds kube-apiserver and etcd from the Go module proxy when missing (minutes, once).
envtest-assets:
	@hack/envtest-binaries.sh >/dev/null

# nginx and haproxy from Debian's packages: the config-quoting functions are tested against the
# real readers (confquote). Installs them when missing; starts no service.
config-servers:
	@hack/config-servers.sh >/dev/null

# Every check CI runs: generated code up to date, gofmt and vet, then all tests with the race
# detector, controller tests on a real kube-apiserver and etcd.
test: verify-generated vet envtest-assets config-servers
	KUBEBUILDER_ASSETS=$$(hack/envtest-binaries.sh) go test -race -count=1 ./...

# The playground: a local kube-apiserver and etcd, the controller, and a sample (DEMO=path).
DEMO ?= samples/defaults-vs-overrides
demo: envtest-assets
	go run ./cmd/gantry playground $(DEMO)

demo-once: envtest-assets
	go run ./cmd/gantry playground --once $(DEMO)

# The upstream Gateway API conformance suite, every test of the GATEWAY-HTTP, GATEWAY-GRPC,
# GATEWAY-TLS, GATEWAY-TCP and GATEWAY-UDP profiles, on a real kube-apiserver and etcd
# (conformance/); writes the GEP-1709 report and what was skipped and why to docs/conformance/.
# `make test` runs the core status tests of them.
VERSION ?= v$(shell sed -n 's/^appVersion: "\(.*\)"/\1/p' charts/gantry/Chart.yaml)
CONFORMANCE_REPORT ?= $(CURDIR)/docs/conformance/standard-$(VERSION)-default-report.yaml
conformance: envtest-assets
	KUBEBUILDER_ASSETS=$$(hack/envtest-binaries.sh) go test -count=1 -timeout 60m -run '^TestConformance$$' ./conformance \
	  -args -conformance.full -conformance.version=$(VERSION) -conformance.report=$(CONFORMANCE_REPORT)

# The fault suite (faults/): the shipped binary killed, stopped and failed over on a real
# kube-apiserver and etcd, with the slow cases `make test` skips (docs/reliability.md).
faults: envtest-assets
	GANTRY_FAULTS=all KUBEBUILDER_ASSETS=$$(hack/envtest-binaries.sh) go test -count=1 -v ./faults

test-unit:
	go test -count=1 ./...

# Scale harness on a real kube-apiserver and etcd (N=100, 1000, 2000; several minutes), then the
# Go benchmarks; both compare with the figures recorded in docs/ and print regressions over 20%.
bench: envtest-assets build
	go run ./hack/scale -gantry $(BIN)/gantry -controller $(BIN)/gantry-controller -sizes $${SIZES:-100,1000,2000} -json bin/performance.json -baseline docs/performance.json
	go test -run='^$$' -bench=. -benchmem -count=3 ./precedence ./render ./blueprints | tee bin/benchmarks.txt
	go run ./hack/benchcmp -baseline docs/benchmarks.txt bin/benchmarks.txt

# One run at N=10,000 Gateways (issue 10), apart from make bench: long. Compared with the
# N=10,000 entry of docs/performance.json and described in docs/performance.md.
bench-large: envtest-assets build
	go run ./hack/scale -gantry $(BIN)/gantry -controller $(BIN)/gantry-controller -sizes 10000 -json bin/performance-large.json -baseline docs/performance.json

# gantry render against helm template on the proxy blueprint's templates, for 1 and 1,000
# Gateways (issue 22; hack/helmcompare): checks that both print the same objects, then times them
# in turn. Helm is built from the version go.mod requires, with its own go.mod (go install).
HELM := $(BIN)/helm
$(HELM): go.mod
	GOBIN=$(BIN) go install helm.sh/helm/v3/cmd/helm@$$(go list -m -f '{{.Version}}' helm.sh/helm/v3)

bench-helm: build $(HELM)
	go run ./hack/helmcompare -gantry $(BIN)/gantry -helm $(HELM) -sizes $${SIZES:-1,1000} -runs $${RUNS:-5}

fmt:
	gofmt -w $$(git ls-files '*.go')
