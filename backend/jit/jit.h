// jit.h: the compiled backend: an IR module lowered to one LLVM function per model, compiled by ORC LLJIT.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "ir/ir.h"

namespace gpm::backend::jit {

// What to compile. Parameters whose slot is listed in `inputs` are read from the function's input array
// (in that order); every other parameter is a constant: its bound value, or its default expression.
struct Options {
  std::vector<int32_t> inputs;
  bool optimize = true;     // the new pass manager's O2 pipeline
  bool with_point = true;    // compile gpmc_point
  bool with_values = false;  // compile gpmc_values, which also stores every instruction's value
};

// `double gpmc_point(const double* inputs, double* phases_out)`: writes each phase's time (seconds) and
// returns the total, or NaN when the point is invalid: a value the model needs is faulty (a division by
// zero, a domain error) or a check fails (a parameter out of its range, a bandwidth not positive...).
// The interpreter then reports why. Same rules as backend::evaluate, decided without diagnostics.
using PointFn = double (*)(const double* inputs, double* phases_out);
// `double gpmc_values(const double* inputs, double* phases_out, double* values_out)`: the same, and
// stores the value of every instruction (values_out has one entry per instruction).
using ValuesFn = double (*)(const double* inputs, double* phases_out, double* values_out);

class CompiledModel {
 public:
  // Above this many IR instructions, a module is compiled without optimisation, in blocks of a few hundred
  // instructions, its constants in a table: LLVM's O2 pipeline and code generator grow faster than linearly
  // on one large basic block (15,000 instructions took half a minute).
  static constexpr size_t kOptimizeLimit = 2'000;
  // Lowers, verifies, optimises and compiles. Throws std::runtime_error if LLVM fails (a compiler bug).
  static std::unique_ptr<CompiledModel> compile(const ir::Module& module, const SlotValues& bound,
                                                const Options& options);
  ~CompiledModel();
  PointFn point() const { return point_; }
  ValuesFn values() const { return values_; }
  size_t phase_count() const { return phase_count_; }
  double compile_seconds() const { return compile_seconds_; }

 private:
  CompiledModel();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  PointFn point_ = nullptr;
  ValuesFn values_ = nullptr;
  size_t phase_count_ = 0;
  double compile_seconds_ = 0;
};

// The LLVM module as text (`gpmc dump-llvm`), before or after optimisation.
std::string print_llvm(const ir::Module& module, const SlotValues& bound, const Options& options);

// Evaluates one point with the JIT like backend::evaluate: the rows come from the compiled values, and an
// invalid point is handed to the interpreter, which reports its diagnostics. Returns false on errors.
bool evaluate(const ir::Module& module, const SlotValues& bound, support::DiagnosticEngine& diags,
              Evaluation& out);

}  // namespace gpm::backend::jit
