// sweep.h: `gpmc sweep`: --vary specs to axes, and the evaluation of their cross product on threads.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "backend/jit/jit.h"
#include "driver/pipeline.h"
#include "support/units.h"
#include "ir/ir.h"

namespace gpm::driver {

// One varied parameter: its name as written, its slot, and its values in base units, in sweep order.
struct SweepAxis {
  std::string name;
  int32_t slot = -1;
  support::Dim dim;
  std::vector<double> values;
  std::vector<std::string> words;  // a word parameter's words; then `values` are indices into them
  bool shape = false;              // the parameter shapes the model: one compiled model per value
  // A word-valued setting (`comm_model`, `transport`: slot -1), a shape axis whose words choose the models.
  bool keyword = false;
  bool is_word() const { return !words.empty(); }
};

// One compiled model of a sweep over shape parameters: the module for one combination of the shape axes'
// values, and its bound slots (those values included).
struct SweepVariant {
  const ir::Module* module = nullptr;
  backend::SlotValues bound;
};

// What `--vary NAME=SPEC` says before any value is parsed. SPEC is a list `a,b,c` (one value is a list of
// one), a linear range `a:b:step` or a geometric range `a..b*factor`.
struct VarySpec {
  enum class Kind { List, Linear, Geometric };
  std::string name, spec;
  Kind kind = Kind::List;
  std::vector<std::string> parts;  // List: the values; Linear: a, b, step; Geometric: a, b, factor
};

inline constexpr uint64_t kDefaultMaxPoints = 100'000'000;

// Splits `NAME=SPEC`; false with a UsageError diagnostic when it is malformed.
bool parse_vary(const std::string& argument, VarySpec& out, support::DiagnosticEngine& diags);

// Resolves each spec to a parameter of the compiled model and expands its values (units parsed as --set
// parses them; the words of a word parameter, listed). Refuses a parameter varied twice, an empty or endless
// range, a range over words, and a cross product of more than `max_points` points. Marks the axes whose
// parameter shapes the model (Module::shape_slots).
bool plan_axes(Session& session, const Compiled& compiled, const std::vector<VarySpec>& specs, uint64_t max_points,
               std::vector<SweepAxis>& axes);

// The model a sweep starts from: `settings` bound. Where that fails and the sweep varies parameters the settings
// leave to their defaults, compiled again with each such parameter at its first value (the sweep's first point):
// a default that does not fit what the settings chose (a peer rank beyond the rank count) is not a value the sweep
// evaluates. Null when it fails, with the diagnostics of the first values where they were tried.
std::unique_ptr<Compiled> compile_sweep_base(Session& session, const std::string& machine, const std::string& app,
                                             const std::vector<Setting>& settings, const std::vector<VarySpec>& specs);

// The number of points of the cross product (saturates at UINT64_MAX).
uint64_t point_count(const std::vector<SweepAxis>& axes);

// Sweeps over shape parameters (sweep_shapes.cpp): lowers `base` again for every distinct combination of the
// shape axes' values, in the order the points first meet them (a cache by values: a value listed twice is
// compiled once). `variant_of_group[g]` is the variant of the g-th combination of the shape axes' value
// indices (the first shape axis outermost). An axis whose parameter turns out to shape another variant's
// model is made a shape axis too. False, with diagnostics and a note naming the values, when a lowering
// fails, or when two variants have different phases.
bool compile_shape_variants(Session& session, const Compiled& base, std::vector<SweepAxis>& axes,
                            std::vector<std::unique_ptr<Compiled>>& owned, std::vector<SweepVariant>& variants,
                            std::vector<uint32_t>& variant_of_group);

// The column name of each phase of a sweep (sweep_shapes.cpp): its name when every compiled variant gives it the
// same one, else the first line of its statement as written, whitespace collapsed, which holds for every row.
std::vector<std::string> sweep_phase_names(const support::SourceManager& sources, const ir::Module& base,
                                           const std::vector<std::unique_ptr<Compiled>>& variants);

// The cross product of the axes, evaluated by the JIT or the interpreter's values-only path. Point i has
// the first axis outermost and the last fastest (the order of nested loops written in --vary order).
class Sweep {
 public:
  enum class Backend { Jit, Interp };
  // One model, no shape axes: every point runs the same compiled function.
  Sweep(const ir::Module& module, const backend::SlotValues& bound, std::vector<SweepAxis> axes, Backend backend);
  // One model per combination of the shape axes' values (compile_shape_variants); each point runs its own.
  Sweep(std::vector<SweepVariant> variants, std::vector<uint32_t> variant_of_group, std::vector<SweepAxis> axes,
        Backend backend);
  ~Sweep();
  uint64_t size() const { return size_; }
  size_t phase_count() const { return phases_; }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  double compile_seconds() const { return compile_seconds_; }
  // The value of each axis at point `index`.
  void coordinates(uint64_t index, double* out) const;
  // The bound slots of point `index` (its model's bound values with the axes' values set), and its model.
  backend::SlotValues bound_at(uint64_t index) const;
  const ir::Module& module_at(uint64_t index) const;
  // Evaluates points [begin, end) on `threads` threads: totals[i - begin], phases[(i - begin) * phase_count()
  // + k]. Returns the first invalid point (NaN total), or -1. Every point is computed on its own, so the
  // results do not depend on `threads`.
  int64_t run(uint64_t begin, uint64_t end, unsigned threads, double* totals, double* phases) const;

 private:
  void run_range(uint64_t begin, uint64_t end, double* totals, double* phases) const;
  void run_range_shaped(uint64_t begin, uint64_t end, double* totals, double* phases) const;
  size_t variant_at(uint64_t index) const;
  std::vector<SweepVariant> variants_;  // variants_[0] alone without shape axes
  std::vector<uint32_t> variant_of_group_;
  std::vector<SweepAxis> axes_;
  Backend backend_;
  uint64_t size_ = 0;
  size_t phases_ = 0;
  double compile_seconds_ = 0;
  bool shaped_ = false;
  std::vector<std::unique_ptr<backend::jit::CompiledModel>> jitted_;  // one per variant (JIT backend)
};

}  // namespace gpm::driver
