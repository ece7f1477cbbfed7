// sweep_bench.cpp: evaluations per second of 10^6-point sweeps with the JIT and the interpreter, and JIT compile latency.
// Not a test: run it with `cmake --build build --target bench` (bench/run.sh); docs/performance.md records results.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>
#include <iostream>

#include "driver/pipeline.h"
#include "driver/sweep.h"

using namespace gpm;
using Clock = std::chrono::steady_clock;

namespace {

struct Case {
  const char* machine;
  const char* app;
  std::vector<std::string> varies;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Evaluations per second of the whole sweep on `threads` threads (best of `repeats`).
double rate(const driver::Sweep& sweep, unsigned threads, int repeats) {
  std::vector<double> totals(sweep.size()), phases(sweep.size() * sweep.phase_count());
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    if (sweep.run(0, sweep.size(), threads, totals.data(), phases.data()) >= 0) {
      std::fprintf(stderr, "an invalid point in the benchmark sweep\n");
      std::exit(1);
    }
    best = std::min(best, seconds_since(start));
  }
  return double(sweep.size()) / best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : ".";
  std::vector<Case> cases = {
      {"machines/titan.gpm", "apps/bandwidth.gpm", {"bytes=1B:1000000B:1B"}},
      {"machines/summit.gpm", "apps/jacobi2d.gpm", {"n=1:1000:1", "iters=1:1000:1"}},
      // The same points with `n`, which the MPI engines read, on the fastest axis: every engine call misses the
      // compiled code's memo of its last result.
      {"machines/summit.gpm", "apps/jacobi2d.gpm", {"iters=1:1000:1", "n=1:1000:1"}},
  };
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("| model | points | varied (last fastest) | IR instructions | JIT compile (ms) | JIT evals/s, 1 thread | JIT evals/s, %u threads "
              "| interpreter evals/s, 1 thread | JIT / interpreter |\n|---|---|---|---|---|---|---|---|---|\n",
              cores);
  for (const auto& c : cases) {
    driver::Session session(driver::Options{});
    auto compiled = session.compile(root + "/" + c.machine, root + "/" + c.app, {});
    std::vector<driver::VarySpec> specs(c.varies.size());
    for (size_t k = 0; k < specs.size(); ++k) driver::parse_vary(c.varies[k], specs[k], session.diags());
    std::vector<driver::SweepAxis> axes;
    if (!compiled || !driver::plan_axes(session, *compiled, specs, driver::kDefaultMaxPoints, axes)) {
      session.diags().flush(std::cerr);
      return 1;
    }
    // Compile latency: the median of 5 compilations (LLVM's one-time initialisation is in the first).
    std::vector<double> compile;
    for (int r = 0; r < 5; ++r) {
      driver::Sweep s(compiled->module, compiled->bound, axes, driver::Sweep::Backend::Jit);
      compile.push_back(s.compile_seconds());
    }
    std::sort(compile.begin(), compile.end());
    driver::Sweep jit(compiled->module, compiled->bound, axes, driver::Sweep::Backend::Jit);
    driver::Sweep interp(compiled->module, compiled->bound, axes, driver::Sweep::Backend::Interp);
    double jit1 = rate(jit, 1, 5), jitn = rate(jit, cores, 5), interp1 = rate(interp, 1, 2);
    std::string varied;
    for (const auto& v : c.varies) varied += (varied.empty() ? "`" : ", `") + v + "`";
    std::printf("| %s on %s | %llu | %s | %zu | %.1f (first %.1f) | %.3g | %.3g | %.3g | %.0fx |\n", c.app, c.machine,
                static_cast<unsigned long long>(jit.size()), varied.c_str(), compiled->module.instrs.size(), compile[2] * 1e3,
                compile.front() * 1e3, jit1, jitn, interp1, jit1 / interp1);
  }
  return 0;
}
