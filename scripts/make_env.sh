#!/usr/bin/env bash
# `make env`: the virtualenv the suite and the demo run in, with reconciler installed editable.
#
# The dependencies come from a wheelhouse in the cache, one per (pyproject.toml, lock, Python,
# platform): built once by pip (PyPI, with the lock's pins as constraints), then installed by uv,
# offline, from there. A fresh clone's venv took about 85 s with `pip install` alone (resolving
# against PyPI again, unpacking pyspark, compiling every module: the suite compiles into its own
# PYTHONPYCACHEPREFIX anyway) and takes seconds this way (docs/testing.md). The dev tools, which
# the lock does not pin, stay at the versions of the day the wheelhouse was built until
# pyproject.toml or the lock changes.
set -euo pipefail

python=${PYTHON:-python3}
venv=${VENV:-.venv}
lock=${LOCK:-reconciler/scaffold/reconciler-requirements.txt}
cache=${RECONCILER_CACHE:?set RECONCILER_CACHE (the Makefile does)}
extras='.[dev,fleet]'

key=$({
  cat pyproject.toml "$lock"
  "$python" -c 'import sys, sysconfig; print(sys.version, sysconfig.get_platform())'
} | sha256sum | cut -c1-16)
house="$cache/wheelhouse/$key"

constraints=$(mktemp)
partial=""
# a build stopped half-way (Ctrl-C, a network failure) leaves no partial wheelhouse behind
trap 'rm -f "$constraints"; if [ -n "$partial" ]; then rm -rf "$partial"; fi' EXIT
# the lock's pins (and markers) without its hashes: hash-checking mode cannot install an
# editable checkout
sed -n 's/^\([A-Za-z][^ ]*==[^ ]*\)\( ;[^\\]*\)\{0,1\}.*/\1\2/p' "$lock" >"$constraints"

"$python" -m venv "$venv"

if [ ! -f "$house/.complete" ]; then
  echo "building the wheelhouse $house (once per pyproject.toml and lock)"
  partial="$house.partial.$$"
  rm -rf "$partial"
  mkdir -p "$partial"
  "$venv/bin/pip" install -q --upgrade pip
  # setuptools and wheel: the editable build's own requirements (pyproject.toml's build-system)
  "$venv/bin/pip" wheel -q -w "$partial" -c "$constraints" "$extras" 'setuptools>=77' wheel
  rm -f "$partial"/kafka_topic_reconciler-*.whl # the checkout itself is installed editable
  touch "$partial/.complete"
  # renamed whole, so a reader never sees half a wheelhouse; a make that lost the race drops its own
  mv -T "$partial" "$house" 2>/dev/null || rm -rf "$partial"
fi

"$venv/bin/pip" install -q --no-index --find-links "$house" uv
"$venv/bin/uv" pip install -q --python "$venv/bin/python" --offline --no-index \
  --find-links "$house" -e "$extras" -c "$constraints"
