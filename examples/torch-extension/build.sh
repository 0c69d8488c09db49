#!/bin/sh
# Build leaky_ext into build/lib/ with the Python whose torch it is for:
#   PYTHON=/path/to/venv/bin/python ./build.sh
# Needs g++, and setuptools and torch in that Python (ninja is used when present).
set -eu
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python}
"$PYTHON" setup.py build_ext --build-lib build/lib
