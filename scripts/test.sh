#!/usr/bin/env bash
# test.sh: builds gpmc (installing dependencies if needed) and runs every test with ctest.
#   --sanitize: instead, builds everything with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/
#   (with clang, and then with the libFuzzer targets and their 60 s runs) and runs the whole suite there.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--sanitize" ]]; then
  bash scripts/install_deps.sh --sanitize
  compilers=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DGPMC_FUZZ=ON)
  if ! command -v clang++-14 > /dev/null; then compilers=(); fi  # gcc's sanitizers, without fuzzing
  # -O1 with line tables only: the usual level for sanitizers, and a build that fits CI's time beside the main one.
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPMC_SANITIZE=ON "${compilers[@]}" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    > build-sanitize.log 2>&1 || { cat build-sanitize.log; exit 1; }
  cmake --build build-sanitize -j "$(nproc)" >> build-sanitize.log 2>&1 || { tail -50 build-sanitize.log; exit 1; }
  rm -f build-sanitize.log
  export ASAN_OPTIONS="abort_on_error=1:${ASAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
  ctest --test-dir build-sanitize --output-on-failure -j "$(nproc)"
  exit 0
fi
bash scripts/build.sh
# CI note: where CMake found a CUDA compiler (nvcc), the CUDA calibration tool is compiled too, so a change
# that breaks tools/calibrate/calibrate.cu fails here; no GPU is needed to compile it (docs/calibration.md).
# (the target list is read whole first: `grep -q` closing the pipe early would fail it under pipefail)
targets="$(cmake --build build --target help)"
if grep -q '^\.\.\. calibrate$' <<< "$targets"; then
  cmake --build build --target calibrate calibrate-launch bidir-copies offload-streams app-kernels mapped-copies -j "$(nproc)"
fi
ctest --test-dir build --output-on-failure -j "$(nproc)"
