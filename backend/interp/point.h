// point.h: the interpreter's values-only path for sweeps: one point's total and phase times, no diagnostics.
#pragma once
#include <vector>

#include "backend/interp/interpreter.h"
#include "ir/ir.h"

namespace gpm::backend {

// Reusable buffers for evaluate_point (one per thread), so that a point allocates nothing.
struct PointScratch {
  std::vector<double> values;
  std::vector<char> poisoned;
  std::vector<double> engine_inputs;
};

// Evaluates one point like `evaluate`, without rows or diagnostics: writes each phase's time to phases_out
// and returns the total, or NaN when `evaluate` would fail (a needed value faulty, a check failed, an engine
// error). The same contract as the JIT's gpmc_point.
double evaluate_point(const ir::Module& module, const SlotValues& bound, PointScratch& scratch, double* phases_out);

}  // namespace gpm::backend
