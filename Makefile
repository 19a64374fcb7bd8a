# Makefile — entry points for the notebooks. See README.md.
#
#   make notebook   install what is missing, then start Jupyter Notebook on 127.0.0.1:$(PORT) in notebooks/
#   make test       install what is missing, go vet + go test (with the headless-Chromium notebook test), a real-Slurm sweep test, every notebooks/*.ipynb headless, the Binder-environment check
#   make reproduce  run every notebook in full mode and write it in place with its outputs (signed; HTML exports in outputs/); NOTEBOOKS= for some
#   make bench      Go benchmarks of ./lbsim/...
#   make bench-peers lbsim side by side with its peers (SIMU=, RMF= source dirs; scripts/peers/README.md)
#   make setup      only install (idempotent; also run by notebook and test)

SHELL := /bin/bash
.DEFAULT_GOAL := help

PORT ?= 8888
IP ?= 127.0.0.1
NOTEBOOK_ARGS ?=
JUPYTER := /usr/bin/jupyter
# Jupyter refuses to run as root without --allow-root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

# Our tools first; Go from /usr/local/go/bin when it is not on PATH already.
export PATH := $(CURDIR)/bin:$(PATH):/usr/local/go/bin

.PHONY: help setup notebook test reproduce vet go-test notebooks nb-smoke slurm-test bench bench-peers clean

help:
	@sed -n '3,9s/^# *//p' Makefile

setup:
	@bash scripts/setup.sh

notebook: setup
	cd notebooks && exec $(JUPYTER) notebook --ip=$(IP) --port=$(PORT) --no-browser $(ALLOW_ROOT) $(NOTEBOOK_ARGS)

# LBSIM_BROWSER_TEST=1 runs kernelhelpers/browser_test.go: Jupyter + GoNB + headless Chromium,
# screenshots and exported HTML in artifacts/browser/.
test: setup
	go vet ./...
	LBSIM_BROWSER_TEST=1 go test -timeout 20m ./...
	bash scripts/slurm-test.sh
	bash scripts/run-notebooks.sh
	bash scripts/binder-env-test.sh

# A real single-node Slurm (munged, slurmctld, slurmd on 127.0.0.1, started and stopped by the
# script): a sweep as a job array + merge job, compared byte for byte with a local run, and a
# killed task resubmitted with --resume. Fails if Slurm cannot start; LBSIM_NO_SLURM=1 skips it.
slurm-test:
	bash scripts/slurm-test.sh

vet:
	go vet ./...

go-test:
	go test -timeout 20m ./...

# Executes notebooks/*.ipynb (LBSIM_QUICK=1, GOPROXY=off); outputs in artifacts/notebooks/.
notebooks:
	bash scripts/run-notebooks.sh

# Checks the kernel/setup-cell mechanism alone, on a notebook that needs only gonum.
nb-smoke: setup
	bash scripts/run-notebooks.sh scripts/testdata-nb/*.ipynb

# Full-mode runs (LBSIM_QUICK=0) take much longer than make test: minutes to hours.
# Each notebook that passes replaces its source with the executed copy (first cell: the commit,
# date and run time), and its main chart's picture goes to notebooks/thumbnails/.
NOTEBOOKS ?=
reproduce: setup
	LBSIM_QUICK=0 NB_PUBLISH=1 NB_IN_PLACE=1 NB_OUT_DIR=$(CURDIR)/outputs NB_TIMEOUT=36000 bash scripts/run-notebooks.sh $(NOTEBOOKS)

# Includes one benchmark per scenario of the README table "lbsim vs peers" (lbsim/bench_peers_test.go).
bench:
	go test -run '^$$' -bench . ./lbsim/...

# The peers' sources are not in the repository: see scripts/peers/README.md. Not part of make test.
REPS ?= 5
EVENTS ?= 20000000
bench-peers:
	@if [ -z "$(SIMU)" ] || [ -z "$(RMF)" ]; then echo "usage: make bench-peers SIMU=DIR RMF=DIR [REPS=5] [EVENTS=20000000]; see scripts/peers/README.md" >&2; exit 2; fi
	bash scripts/peers/build.sh "$(SIMU)" "$(RMF)" artifacts/peers
	bash scripts/peers/run.sh artifacts/peers $(REPS) $(EVENTS)

clean:
	rm -rf artifacts
