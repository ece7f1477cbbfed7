#!/usr/bin/env bash
# test.sh: builds gpmc (installing dependencies if needed) and runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
