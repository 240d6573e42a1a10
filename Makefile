# The two commands a newcomer needs (see README.md):
#   make book   set up everything, execute the chapters (unchanged ones come from the execution
#               cache), build the HTML book in _build/html, print the timing report
#   make test   set up everything, then ruff, unit tests, a book build that executes every chapter
#               from scratch, every downloadable notebook run in a fresh environment, and the
#               browser tests of every page
#   make lab    every chapter live in JupyterLab (from copies in _build/lab: no source rewritten)
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# Every Python this Makefile starts writes the bytecode of what it imports, once, into
# __pycache__ (git ignores it): with PYTHONDONTWRITEBYTECODE set (this project's CI runner sets
# it), every process, each chapter's kernel included, would compile moelaws and every module pip
# did not compile again. pip compiles nothing at install (--no-compile): compiling all of
# .venv's 2 GB took 74 s of CPU time, and most of it (torch's tests, JupyterLab's server
# extensions, ...) is never imported.
unexport PYTHONDONTWRITEBYTECODE

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
VENDOR := book/_static/vendor
VENDOR_STAMP := $(VENDOR)/.installed
NB_BUILD := _build/nbval
# What `live` and `pages` need first (the built book).
BOOK_DEP ?= book-check
# jupyter-cache's store (MyST-NB's default beside _build/html); FRESH=1 empties it first.
EXEC_CACHE := _build/.jupyter_cache
# Debian's chromium-headless-shell: Chromium's engine without the browser's user interface, the
# build Playwright itself runs headless. On the same pages it took about 30 % less CPU time than
# the full `chromium` (the browser process and its compositor): the browser tests' largest cost.
# `make test CHROMIUM=/usr/bin/chromium` runs the full browser (`make chromium` installs the
# Debian package the path names).
CHROMIUM := /usr/bin/chromium-headless-shell
# Warnings are errors (-W with --nitpick): a broken cross-reference or an unknown citation key
# fails the build (tests/browser/test_build_strict.py checks that with these same flags).
JB_FLAGS := --warningiserror --nitpick --keep-going

.PHONY: help venv vendor book bench test lint unit nbval downloads live live-nb7 rounding book-check chromium browser pages \
	screenshots publish publish-guard clean lab lab-notebooks lab-settings

help:
	@echo "make book   build the book into _build/html (sets up .venv and npm scripts first)"
	@echo "make test   run ruff, the unit tests, a from-scratch book build, every downloadable"
	@echo "            notebook in a fresh environment and the browser tests of every built page"
	@echo "make lab    open every chapter, executed, in JupyterLab on 127.0.0.1 (LAB_PORT=8888)"

$(STAMP): requirements.txt pyproject.toml
	@mkdir -p $(VENV) && date +%s > $(VENV)/.started
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@
	@echo "Environment set up in $$(( $$(date +%s) - $$(cat $(VENV)/.started) )) s"; rm -f $(VENV)/.started

venv: $(STAMP)

# Scripts the pages would otherwise load from CDNs, pinned by book/vendor/package-lock.json.
$(VENDOR_STAMP): book/vendor/package.json book/vendor/package-lock.json
	npm ci --prefix book/vendor --ignore-scripts --no-audit --no-fund --loglevel=error
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)
	cp book/vendor/node_modules/vega/build/vega.min.js \
	   book/vendor/node_modules/vega-lite/build/vega-lite.min.js \
	   book/vendor/node_modules/vega-embed/build/vega-embed.min.js $(VENDOR)/
	cp -r book/vendor/node_modules/mathjax/es5 $(VENDOR)/mathjax
	touch $@

# The DataTables bundle of the interactive tables ships with the pinned itables package: served
# once from _static/vendor (book/_static/moelaws_tables.js loads it) instead of inlined per page.
DT_BUNDLE := $(VENDOR)/dt_bundle.js
$(DT_BUNDLE): $(VENDOR_STAMP) $(STAMP) requirements.txt
	src=$$($(BIN)/python -c 'import itables, pathlib; print(pathlib.Path(itables.__file__).parent / "html")'); \
	cp "$$src/dt_bundle.js" "$$src/dt_bundle.css" $(VENDOR)/

vendor: $(VENDOR_STAMP) $(DT_BUNDLE)

# The chapters to execute run two at a time (book/_ext/moelaws_parallel_exec.py;
# MOELAWS_EXEC_JOBS). book/_ext/moelaws_execution.py writes _build/timing.json; its report is
# printed last. A chapter's cached execution is keyed on its code cells and on every
# repository file it read when it executed; a requirements.txt or Python change empties the
# cache (both checked by book/_ext/moelaws_exec_cache.py).
book: venv vendor
	@if [ -n "$(FRESH)" ]; then echo "Emptying the execution cache"; rm -rf $(EXEC_CACHE); fi
	@start=$$(date +%s); status=0; \
	rm -rf _build/html _build/.doctrees _build/timing.json; \
	$(BIN)/jupyter-book build . --path-output . $(JB_FLAGS) || status=$$?; \
	end=$$(date +%s); \
	if [ -f _build/timing.json ]; then \
	  echo; $(BIN)/python book/_ext/moelaws_execution.py _build/timing.json --total $$((end - start)); \
	fi; \
	if [ $$status -ne 0 ]; then echo "Book build FAILED after $$((end - start)) s"; exit $$status; fi; \
	if [ -z "$$(git status --porcelain --untracked-files=normal 2>/dev/null)" ]; then \
	  git rev-parse HEAD > _build/html/.build-commit 2>/dev/null || true; fi; \
	echo "Book built in $$((end - start)) s: $(CURDIR)/_build/html/index.html"; \
	echo "To read it (search needs a server, not file://): $(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html 8000"; \
	echo "and open http://127.0.0.1:8000/"

lint: venv
	$(BIN)/ruff check moelaws tests book/_ext

# The benchmark's headline (README, "Toy training"); its duration and headline are recorded in
# _build/durations.json, which the book's timing report shows. BENCH_FLAGS: e.g. --sweep.
BENCH_FLAGS ?=
bench: venv
	@mkdir -p _build; start=$$(date +%s); \
	$(BIN)/python -m moelaws.torchmoe.bench $(BENCH_FLAGS) | tee _build/bench.txt; \
	$(BIN)/python book/_ext/moelaws_execution.py _build/timing.json --record "benchmark" \
	  "$$(( $$(date +%s) - start ))" --note "$$(tail -1 _build/bench.txt)"

# The browser tests need a built book and Chromium: `make browser` runs them.
# BELOW: a command prefix for a stage that yields the CPU to the others (`make test`);
# PAGES_BELOW, the same for the pages' tests, which yield less.
BELOW ?=
PAGES_BELOW ?=
unit: venv
	$(BELOW) $(BIN)/python -m pytest -q -p no:cacheprovider --ignore=tests/browser tests

# A quick check without a book build (not part of `make test`, whose `live` runs the same
# cells): nbval collects .ipynb only, so convert the MyST sources to fresh notebooks first. The
# student editions (solutions removed, moelaws/teaching/student.py) run too: no cell may need a
# solution.
nbval: venv
	rm -rf $(NB_BUILD) && mkdir -p $(NB_BUILD)
	for f in notebooks/*.md; do \
	  $(BIN)/jupytext --quiet --to ipynb -o $(NB_BUILD)/$$(basename $${f%.md}).ipynb $$f; \
	done
	$(BIN)/python -m moelaws.teaching.student notebooks/*.md -o $(NB_BUILD)/student
	$(BIN)/python -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env $(NB_BUILD)

# The reader's stage, one pytest session: a fresh virtual environment with only ipykernel, into
# which a download's set-up cell installs moelaws (tests/fresh_env.py) with the oldest versions
# pyproject.toml admits (tests/lowest_versions.py); every chapter's download
# then runs in JupyterLab on that kernel, from a folder outside the repository
# (tests/browser/test_live_lab.py: errors, stderr, charts, widgets, saving), which also runs
# the code of each student edition whose code is the chapter's first cells; the reproducibility
# page and any other student edition run headless beside it (tests/test_downloads.py); plus a
# chapter's .md saved from JupyterLab and chapter 0 in Notebook 7. Each chapter is executed
# once here.
live: $(BOOK_DEP) chromium
	MOELAWS_DOWNLOAD_TESTS=1 MOELAWS_BROWSER_TESTS=1 CHROMIUM=$(CHROMIUM) \
	  OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser/test_live_lab.py \
	  tests/test_downloads.py

downloads: live

# Every chapter of `make lab`'s copies in Notebook 7 (`make live` runs chapter 0 there): saved
# charts drawn on opening, then run, every chart and widget drawn and every control moved. Not
# part of `make test`: about 40 s a chapter (8 in 5 min 44 s, 2026-11-28).
live-nb7: $(BOOK_DEP) chromium
	MOELAWS_NB7_CHAPTERS=all MOELAWS_DOWNLOAD_TESTS=1 MOELAWS_BROWSER_TESTS=1 CHROMIUM=$(CHROMIUM) \
	  OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser/test_live_lab.py -k notebook_7

# Every page the book executes, run again from its source under each lower level of vector
# kernels this machine can emulate (NumPy's, OpenBLAS's, PyTorch's: tests/test_rounding.py),
# where each must still run to its end. Not part of `make test`: about 100 CPU-seconds a level.
rounding: venv
	MOELAWS_ROUNDING_TESTS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_rounding.py

book-check: book
	test -f _build/html/index.html
	test -f _build/html/notebooks/00_anatomy.html
	@if grep -rlE "unpkg\.com|jsdelivr|cdnjs|cdn\.plot\.ly|googleapis" _build/html --include='*.html'; then \
	  echo "built pages above refer to a CDN"; exit 1; fi

# Debian's headless Chromium, driven by Playwright's Python client (which never downloads a
# browser here).
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "Installing Debian's $(notdir $(CHROMIUM)) (needed by the browser tests)"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(notdir $(CHROMIUM)) fonts-dejavu-core; \
	fi
	@$(CHROMIUM) --version 2>/dev/null

# Every built page in headless Chromium with the network blocked; screenshots of every page (the
# window at the top of the page) go to _build/screenshots/. MOELAWS_BROWSER_TESTS=1 turns a
# missing book or browser into a failure.
# One Chromium and one HTTP server for the session (tests/browser/conftest.py).
pages: $(BOOK_DEP) chromium
	rm -rf _build/screenshots
	MOELAWS_BROWSER_TESTS=1 CHROMIUM=$(CHROMIUM) MOELAWS_JB_FLAGS="$(JB_FLAGS)" \
	  $(PAGES_BELOW) $(BIN)/python -m pytest -q -p no:cacheprovider tests/browser \
	  --ignore=tests/browser/test_live_lab.py

browser: pages live

# Screenshots of whole pages, every page at both sizes, for a person to look through: the tests
# that load every page, with MOELAWS_FULL_SCREENSHOTS=1. `pages` takes only the window: no test
# reads a screenshot, and whole pages cost Chromium 75 CPU-seconds (the window 3.9).
screenshots: $(BOOK_DEP) chromium
	rm -rf _build/screenshots
	MOELAWS_BROWSER_TESTS=1 MOELAWS_FULL_SCREENSHOTS=1 CHROMIUM=$(CHROMIUM) \
	  $(BIN)/python -m pytest -q -p no:cacheprovider \
	  tests/browser/test_reader.py::test_no_page_scrolls_sideways \
	  tests/browser/test_tables.py::test_reproducibility_page_fits_a_phone
	@echo "Screenshots in $(CURDIR)/_build/screenshots/"

# The test command's book build executes every chapter from scratch (FRESH=1). Its stages run
# two at a time, one per core of a 2-core machine, as soon as what they need is there: the unit
# tests from the start, beside the book build; the reader's stage (`live`: the chapters in
# JupyterLab and the student editions, in one fresh environment) as soon as the book is built;
# the static pages' browser tests when a core is free. --output-sync prints each stage's output
# whole, when it ends. The unit tests run at a lower CPU priority (nice 10): the book build takes
# the CPU when it needs it. The pages' tests, beside the reader's stage, run at nice 5: at nice 10
# they were once starved (650c8a5). Both cores stay busy whatever the priorities (README: the
# whole command took 0.57 to 0.60 s per busy CPU-second in every arrangement measured).
# The set-up's three parts (pip, npm, apt-get) wait on the disk and the network more than on the
# CPU, and need nothing from each other but the DataTables bundle's copy (after pip): they run
# side by side.
TEST_JOBS ?= 2
test:
	$(MAKE) --no-print-directory -j3 --output-sync=target venv vendor chromium
	@mkdir -p _build && date +%s > _build/.test-started
	$(MAKE) --no-print-directory lint
	@echo "make test: unit tests, book build, reader's stage, pages ($(TEST_JOBS) at a time; output when each ends)"
	$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target unit live pages FRESH=1 \
	  BELOW="nice -n 10" PAGES_BELOW="nice -n 5"
	@$(BIN)/python book/_ext/moelaws_execution.py _build/timing.json --record "make test" \
	  "$$(( $$(date +%s) - $$(cat _build/.test-started) ))" \
	  --note "ruff, unit tests, book build, reader's stage and pages; set-up not counted"
	@echo "make test: all checks passed"

# Publish the built book on the gh-pages branch (GitHub Pages); the chapters' Colab buttons open
# their executed notebooks from there (book/_ext/moelaws_pages.py).
# The live chapters: notebooks generated from the book's executed chapters (glue values filled
# in, MyST directives as plain Markdown) into _build/lab, which git ignores, so running and
# saving them rewrites no tracked file. The chapters are executed only when a source is newer
# than its executed copy, a cached chapter read a file that changed since, or requirements.txt
# changed (then through `make book` and its execution cache).
LAB_DIR := _build/lab
EXECUTED_DIR := _build/jupyter_execute/notebooks
LAB_PORT ?= 8888
LAB_FLAGS ?=
LAB_AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json

lab-notebooks: venv
	@stale=0; for f in notebooks/*.md; do \
	  nb=$(EXECUTED_DIR)/$$(basename $${f%.md}).ipynb; \
	  if [ ! -f $$nb ] || [ $$f -nt $$nb ]; then stale=1; fi; \
	done; \
	if [ $$stale = 0 ] && ! $(BIN)/python book/_ext/moelaws_exec_cache.py $(EXEC_CACHE); then stale=1; fi; \
	if [ $$stale = 1 ]; then echo "Executing the chapters (make book)"; $(MAKE) --no-print-directory book; fi
	rm -rf $(LAB_DIR)/notebooks $(LAB_DIR)/exercises
	$(BIN)/python -m moelaws.notebook_export --executed-dir $(EXECUTED_DIR) \
	  --out $(LAB_DIR)/notebooks notebooks/*.md
	$(BIN)/python -m moelaws.notebook_export --executed-dir $(EXECUTED_DIR) --student \
	  --out $(LAB_DIR)/exercises notebooks/*.md

# A .md chapter opened from the file browser opens as a notebook (Jupytext), in this venv only.
lab-settings: venv
	mkdir -p $(dir $(LAB_SETTINGS))
	printf '%s\n' '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers":' \
	  '  {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}}}' > $(LAB_SETTINGS)

# JUPYTER_PREFER_ENV_PATH: the venv's kernel and settings win over a user-wide Jupyter. Jupyter
# refuses to run as root without --allow-root (containers, CI).
lab: lab-notebooks lab-settings
	@echo "JupyterLab opens $(CURDIR)/$(LAB_DIR): the executed chapters in notebooks/,"
	@echo "their student editions (no solutions) in exercises/:"
	@cd $(LAB_DIR) && ls notebooks/*.ipynb exercises/*.ipynb
	@echo "(kernel: $(CURDIR)/$(BIN)/python; stop with Ctrl+C)"
	cd $(LAB_DIR) && JUPYTER_PREFER_ENV_PATH=1 $(CURDIR)/$(BIN)/jupyter lab --ip=127.0.0.1 \
	  --port=$(LAB_PORT) $(LAB_AS_ROOT) $(LAB_FLAGS)

# It refuses a working tree that differs from HEAD (the published book must be the commit the
# notebooks' set-up cells install) and a build not recorded as made from HEAD.
publish: publish-guard book
	@built=$$(cat _build/html/.build-commit 2>/dev/null || true); head=$$(git rev-parse HEAD); \
	if [ "$$built" != "$$head" ]; then \
	  echo "make publish: _build/html was built from '$$built', not HEAD $$head"; exit 1; fi
	$(BIN)/ghp-import --no-jekyll --force --push --branch gh-pages _build/html

publish-guard:
	@if [ -n "$$(git status --porcelain --untracked-files=normal)" ]; then \
	  echo "make publish: the working tree differs from HEAD; commit or stash first:"; \
	  git status --short | head -20; exit 1; fi

clean:
	rm -rf _build $(VENV) book/vendor/node_modules $(VENDOR)
