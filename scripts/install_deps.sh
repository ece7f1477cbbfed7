#!/usr/bin/env bash
# install_deps.sh: installs gpmc's build dependencies from Debian's packages (needs root or sudo).
set -euo pipefail
PACKAGES=(cmake g++ make antlr4 libantlr4-runtime-dev libfmt-dev nlohmann-json3-dev libcli11-dev doctest-dev
  llvm-14-dev zlib1g-dev libzstd-dev libxml2-dev libffi-dev libncurses-dev libsqlite3-dev nettle-dev pkg-config git
  python3 jq help2man python3-dev pybind11-dev python3-pybind11 python3-matplotlib python3-pandas openmpi-bin
  libopenmpi-dev)
# python3 and jq: the documentation test (tests/docs/check_docs.py) and the tutorial it runs; help2man: the man page,
# written from `gpmc --help` at build time (docs/install.md); python3-dev, pybind11: the Python module, matplotlib and
# pandas: its plots and DataFrames (docs/python.md, docs/plots.md; the build and the tests go on without them);
# openmpi-bin, libopenmpi-dev: mpirun and the MPI plugin that splits sweeps and searches over ranks (docs/mpi.md; the
# build goes on without them, and their test is skipped)
# `--sanitize` (scripts/test.sh --sanitize): clang and its sanitizer and libFuzzer runtimes too.
if [[ "${1:-}" == "--sanitize" ]]; then PACKAGES+=(clang-14 libclang-rt-14-dev); fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" > /dev/null || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
