# The two commands a newcomer needs (see README.md):
#   make book   set up everything, execute every chapter, build the HTML book in _build/html
#   make test   set up everything, then ruff, unit tests, every chapter under nbval, book build
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
VENDOR := book/_static/vendor
VENDOR_STAMP := $(VENDOR)/.installed
NB_BUILD := _build/nbval

.PHONY: help venv vendor book test lint unit nbval book-check clean

help:
	@echo "make book   build the book into _build/html (sets up .venv and npm scripts first)"
	@echo "make test   run ruff, the unit tests, every notebook under nbval, and a book build"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

venv: $(STAMP)

# Scripts the pages would otherwise load from CDNs, pinned by book/vendor/package-lock.json.
$(VENDOR_STAMP): book/vendor/package.json book/vendor/package-lock.json
	npm ci --prefix book/vendor --ignore-scripts --no-audit --no-fund --loglevel=error
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)
	cp book/vendor/node_modules/vega/build/vega.min.js \
	   book/vendor/node_modules/vega-lite/build/vega-lite.min.js \
	   book/vendor/node_modules/vega-embed/build/vega-embed.min.js \
	   book/vendor/node_modules/requirejs/require.js \
	   book/vendor/node_modules/@jupyter-widgets/html-manager/dist/embed-amd.js $(VENDOR)/
	mv $(VENDOR)/require.js $(VENDOR)/require.min.js
	cp -r book/vendor/node_modules/mathjax/es5 $(VENDOR)/mathjax
	# The widget manager loads its fonts from beside its RequireJS module id.
	mkdir -p $(VENDOR)/@jupyter-widgets/html-manager
	cp -r book/vendor/node_modules/@jupyter-widgets/html-manager/dist \
	   $(VENDOR)/@jupyter-widgets/html-manager/dist
	touch $@

vendor: $(VENDOR_STAMP)

book: venv vendor
	@start=$$(date +%s); \
	rm -rf _build/html _build/.doctrees; \
	$(BIN)/jupyter-book build . --path-output . --warningiserror --nitpick --keep-going; \
	end=$$(date +%s); \
	echo "Book built in $$((end - start)) s: open $(CURDIR)/_build/html/index.html"

lint: venv
	$(BIN)/ruff check moelaws tests book/_ext

unit: venv
	$(BIN)/python -m pytest -q -p no:cacheprovider tests

# nbval collects .ipynb only: convert the MyST sources to fresh notebooks first.
nbval: venv
	rm -rf $(NB_BUILD) && mkdir -p $(NB_BUILD)
	for f in notebooks/*.md; do \
	  $(BIN)/jupytext --quiet --to ipynb -o $(NB_BUILD)/$$(basename $${f%.md}).ipynb $$f; \
	done
	$(BIN)/python -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env $(NB_BUILD)

book-check: book
	test -f _build/html/index.html
	test -f _build/html/notebooks/00_anatomy.html
	@if grep -rlE "unpkg\.com|jsdelivr|cdnjs|cdn\.plot\.ly|googleapis" _build/html --include='*.html'; then \
	  echo "built pages above refer to a CDN"; exit 1; fi

test: lint unit nbval book-check
	@echo "make test: all checks passed"

clean:
	rm -rf _build $(VENV) book/vendor/node_modules $(VENDOR)
