// interpreter.cpp: straight-line evaluation of the SSA IR with fault tracking, checks, and task folding.
#include "backend/interp/interpreter.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "support/units.h"
#include "ir/semantics.h"

namespace gpm::backend {

using namespace ir;
using support::DiagKind;
using support::format_quantity;

namespace {

struct State {
  std::vector<double> values;
  std::vector<int32_t> fault_origin;  // the instruction whose fault poisoned this value, or -1
  std::vector<Fault> fault_kind;
};

State run(const Module& m, const SlotValues& bound) {
  size_t n = m.instrs.size();
  State s{std::vector<double>(n), std::vector<int32_t>(n, -1), std::vector<Fault>(n, Fault::None)};
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = m.instrs[i];
    switch (in.op) {
      case Opcode::Const: s.values[i] = in.imm; break;
      case Opcode::Param: {
        size_t slot = size_t(in.slot);
        if (slot < bound.size() && bound[slot]) {
          s.values[i] = *bound[slot];
        } else {
          s.values[i] = s.values[size_t(in.a)];
          s.fault_origin[i] = s.fault_origin[size_t(in.a)];
        }
        break;
      }
      default: {
        auto get = [&](ValueId x) { return x >= 0 ? s.values[size_t(x)] : 0.0; };
        double a = get(in.a), b = get(in.b), c = get(in.c);
        double r = apply(in.op, a, b, c);
        s.values[i] = r;
        // A select only inherits the fault of the branch it takes.
        std::vector<ValueId> used = {in.a, in.b, in.c};
        if (in.op == Opcode::Select) used = {in.a, a != 0 ? in.b : in.c};
        for (ValueId x : used)
          if (x >= 0 && s.fault_origin[size_t(x)] >= 0) {
            s.fault_origin[i] = s.fault_origin[size_t(x)];
            break;
          }
        if (s.fault_origin[i] < 0) {
          Fault f = fault_of(in.op, a, b, r);
          if (f != Fault::None) {
            s.fault_origin[i] = int32_t(i);
            s.fault_kind[i] = f;
          }
        }
      }
    }
  }
  return s;
}

struct Reporter {
  const Module& m;
  const SlotValues& bound;
  const State& s;
  support::DiagnosticEngine& diags;
  std::set<int32_t> reported;
  const std::set<int32_t>* varied;  // slots bound by a sweep's --vary (the others by --set); may be null
  bool ok = true;
  // Values that a NonNegative or Positive check also covers: a negative one is reported by that check alone, not
  // again as a whole number that is not >= 0 (a negative `bytes` is one error, NegativeValue).
  std::set<ValueId> signed_checked;

  // Reports a faulty value once per origin; returns false if the value is faulty.
  bool need(ValueId v, const std::string& context) {
    int32_t origin = s.fault_origin[size_t(v)];
    if (origin < 0) return true;
    ok = false;
    if (!reported.insert(origin).second) return false;
    const Instr& in = m.instrs[size_t(origin)];
    if (s.fault_kind[size_t(origin)] == Fault::DivisionByZero)
      diags.error(DiagKind::DivisionByZero, in.range, fmt::format("division by zero while evaluating {}", context));
    else
      diags.error(DiagKind::DomainError, in.range,
                  fmt::format("`{}` has no finite value here (while evaluating {})", opcode_name(in.op), context));
    return false;
  }

  void check(const Check& c) {
    if (!need(c.value, c.what)) return;
    double v = s.values[size_t(c.value)];
    Dim dim = m.instrs[size_t(c.value)].dim;
    switch (c.kind) {
      case CheckKind::Positive:
        if (!(v > 0)) {
          ok = false;
          diags.error(DiagKind::NonPositiveValue, c.range,
                      fmt::format("{} must be positive, but it is {}", c.what, format_quantity(v, dim)));
        }
        break;
      case CheckKind::InRange: {
        if (!need(c.lo, c.what) || !need(c.hi, c.what)) return;
        double lo = s.values[size_t(c.lo)], hi = s.values[size_t(c.hi)];
        if (!(lo <= hi)) {
          ok = false;
          diags.error(DiagKind::ParamOutOfRange, c.range,
                      fmt::format("the range of {} is empty: {} .. {}", c.what, format_quantity(lo, dim),
                                  format_quantity(hi, dim)));
        } else if (!(v >= lo && v <= hi)) {
          ok = false;
          const Instr& in = m.instrs[size_t(c.value)];
          bool from_set = in.op == Opcode::Param && size_t(in.slot) < bound.size() && bound[size_t(in.slot)];
          diags.error(DiagKind::ParamOutOfRange, c.range,
                      fmt::format("{} is {}{}, outside its range {} .. {}", c.what, format_quantity(v, dim),
                                  !from_set                              ? ""
                                  : varied && varied->count(in.slot) != 0 ? " (from --vary)"
                                                                          : " (from --set)",
                                  format_quantity(lo, dim),
                                  format_quantity(hi, dim)));
        }
        break;
      }
      case CheckKind::NonNegative:
        if (!(v >= 0)) {
          ok = false;
          diags.error(DiagKind::NegativeValue, c.range,
                      fmt::format("{} must not be negative, but it is {}", c.what, format_quantity(v, dim)));
        }
        break;
      case CheckKind::AtMost: {
        if (!need(c.hi, c.what)) return;
        double hi = s.values[size_t(c.hi)];
        if (!(v <= hi)) {
          ok = false;
          diags.error(DiagKind::ExceedsMemory, c.range,
                      fmt::format("{} is {}, more than the gpu's memory (mem_size = {})", c.what,
                                  format_quantity(v, dim), format_quantity(hi, dim)));
        }
        break;
      }
      case CheckKind::WholeNumber:
        if (v < 0 && signed_checked.count(c.value) != 0) break;
        if (!(v >= 0 && v == std::floor(v) && std::isfinite(v))) {
          ok = false;
          diags.error(DiagKind::NotAnInteger, c.range,
                      fmt::format("{} must be a whole number >= 0, but it is {}", c.what, format_quantity(v, dim)));
        }
        break;
    }
  }
};

struct Folder {
  const Module& m;
  const State& s;
  Reporter& reporter;

  double value(ValueId v, const std::string& context) {
    reporter.need(v, context);
    return s.values[size_t(v)];
  }

  // Picks the bounding term: the largest of those marked `limits`, when there are at least two (ties keep the first).
  static void mark_bound(Row& row, const std::vector<bool>& limits) {
    double largest = -1;
    int limiting = 0;
    for (size_t i = 0; i < row.terms.size(); ++i) {
      if (!limits[i]) continue;
      ++limiting;
      if (row.terms[i].value.value > largest) {
        largest = row.terms[i].value.value;
        row.bound = row.terms[i].name;
      }
    }
    if (limiting < 2) row.bound.clear();
  }

  // An engine's operation: the engine runs on the values of its inputs; its errors are reported at the operation.
  double fold_engine(const Task& task, int depth, double multiplier, std::vector<Row>& rows) {
    Row row;
    row.name = task.name;
    row.model = task.model;
    row.part = task.part;
    row.track = task.track;
    row.depth = depth;
    row.count = multiplier;
    const EngineCall& call = m.engine_calls.at(size_t(task.engine_call));
    std::vector<double> inputs;
    bool ready = true;
    for (ValueId v : call.inputs) {
      ready = reporter.need(v, "`" + task.name + "`") && ready;
      inputs.push_back(s.values[size_t(v)]);
    }
    if (ready) {
      EngineResult result = call.engine->run(inputs);
      if (!result.error.empty()) {
        reporter.ok = false;
        reporter.diags.error(DiagKind::EngineError, task.range, fmt::format("`{}`: {}", task.name, result.error));
      } else if (!std::isfinite(result.time_s)) {
        // An engine's sums and products of finite inputs may still overflow (constants near the largest double).
        reporter.ok = false;
        reporter.diags.error(DiagKind::DomainError, task.range,
                             fmt::format("`{}` takes a time that is not finite ({}): a value it reads is too large",
                                         task.name, result.time_s));
      } else {
        row.each_s = result.time_s;
        row.kernels_each_s = result.kernel_s;
        std::vector<bool> limits;
        for (auto& term : result.terms) {
          row.terms.push_back({term.name, {term.value, term.dim}});
          limits.push_back(term.limits);
        }
        mark_bound(row, limits);
        row.detail = std::move(result.detail);
        row.write_flows = std::move(result.write_flows);
      }
    }
    row.total_s = row.each_s * multiplier;
    rows.push_back(std::move(row));
    return rows.back().each_s;
  }

  // Returns the time of one execution of `task` and appends its rows.
  double fold(const Task& task, int depth, double multiplier, std::vector<Row>& rows) {
    if (task.kind == TaskKind::Engine) return fold_engine(task, depth, multiplier, rows);
    if (task.kind == TaskKind::Op) {
      Row row;
      row.name = task.name;
      row.model = task.model;
      row.part = task.part;
      row.track = task.track;
      row.depth = depth;
      row.count = multiplier;
      row.each_s = task.value == kNoValue ? 0 : value(task.value, "`" + task.name + "`");
      if (task.kernel_part != kNoValue) row.kernels_each_s = s.values[size_t(task.kernel_part)];
      row.total_s = row.each_s * multiplier;
      std::vector<bool> limits;
      for (const auto& term : task.terms) {
        row.terms.push_back({term.name, {s.values[size_t(term.value)], m.instrs[size_t(term.value)].dim}});
        limits.push_back(term.limits);
      }
      mark_bound(row, limits);
      rows.push_back(std::move(row));
      return rows.back().each_s;
    }
    double count = task.kind == TaskKind::Iterate ? value(task.value, "`" + task.name + "`") : 1;
    size_t at = rows.size();
    Row block;
    block.name = task.name;
    block.model = task.kind == TaskKind::Par ? "max of its parts" : "sum of its parts";
    block.depth = depth;
    block.is_block = true;
    block.count = multiplier;
    block.block = task.kind == TaskKind::Par ? "par" : task.kind == TaskKind::Iterate ? "iterate" : "seq";
    block.iterations = count;
    rows.push_back(std::move(block));
    double inner = 0;
    std::vector<std::pair<size_t, double>> branches;  // each child's first row and time
    for (const auto& child : task.children) {
      size_t first = rows.size();
      double t = fold(child, depth + 1, multiplier * count, rows);
      branches.emplace_back(first, t);
      inner = task.kind == TaskKind::Par ? std::max(inner, t) : inner + t;
    }
    if (task.kind == TaskKind::Par) {
      // Only the longest branch (the first of equal ones) bounds the par; the others' rows are off the critical path.
      size_t longest = 0;
      for (size_t b = 1; b < branches.size(); ++b)
        if (branches[b].second > branches[longest].second) longest = b;
      for (size_t b = 0; b < branches.size(); ++b) {
        if (b == longest) continue;
        size_t end = b + 1 < branches.size() ? branches[b + 1].first : rows.size();
        for (size_t r = branches[b].first; r < end; ++r) rows[r].critical = 0;
      }
    }
    double each = inner * count;
    if (!std::isfinite(each) && std::isfinite(inner) && std::isfinite(count) && reporter.ok) {
      reporter.ok = false;  // the parts are finite, their sum or its repetitions overflow
      reporter.diags.error(DiagKind::DomainError, task.range,
                           fmt::format("the time of this `{}` is not finite ({}): its parts add up beyond the "
                                       "largest number", rows[at].block, each));
    }
    rows[at].each_s = each;
    rows[at].total_s = each * multiplier;
    if (task.kind == TaskKind::Iterate) rows[at].model = fmt::format("{} iterations", count);
    return each;
  }
};

}  // namespace

std::vector<double> compute_values(const Module& module, const SlotValues& bound) {
  State s = run(module, bound);
  for (size_t i = 0; i < s.values.size(); ++i)
    if (s.fault_origin[i] >= 0) s.values[i] = NAN;
  return s.values;
}

namespace {

// Reports faults and failed checks, then folds the task tree into phases and rows.
bool report_and_fold(const Module& m, const SlotValues& bound, const State& s, support::DiagnosticEngine& diags,
                     Evaluation& out, const std::set<int32_t>* varied = nullptr) {
  Reporter reporter{m, bound, s, diags, {}, varied};
  out.machine = m.machine_name;
  out.app = m.app_name;
  for (size_t slot = 0; slot < m.params.size(); ++slot) {
    const ParamInfo& p = m.params[slot];
    reporter.need(p.value, fmt::format("parameter `{}`", p.name));
    bool overridden = slot < bound.size() && bound[slot].has_value();
    double value = s.values[size_t(p.value)];
    std::string word;
    if (!p.words.empty() && value >= 0 && value < double(p.words.size())) word = p.words[size_t(value)];
    out.params.push_back({p.name, p.owner, {value, p.dim}, overridden, word});
  }
  for (const auto& [name, value] : m.lets) reporter.need(value, fmt::format("`{}`", name));
  for (const auto& c : m.checks)
    if (c.kind == CheckKind::NonNegative || c.kind == CheckKind::Positive) reporter.signed_checked.insert(c.value);
  for (const auto& c : m.checks) reporter.check(c);
  if (!reporter.ok) return false;
  Folder folder{m, s, reporter};
  out.total_s = 0;
  for (const auto& phase : m.root.children) {
    PhaseResult result;
    result.name = phase.name;
    std::vector<Row> rows;
    result.time_s = folder.fold(phase, 0, 1, rows);
    if (phase.kind == TaskKind::Iterate) result.model = rows.front().model;
    if (rows.front().is_block) {
      result.block = rows.front().block;
      result.iterations = rows.front().iterations;
    }
    // The phase itself is the first row; keep only what is inside it.
    result.rows.assign(std::make_move_iterator(rows.begin() + 1), std::make_move_iterator(rows.end()));
    for (auto& r : result.rows) --r.depth;
    out.total_s += result.time_s;
    out.phases.push_back(std::move(result));
  }
  if (!std::isfinite(out.total_s) && reporter.ok) {
    reporter.ok = false;
    diags.error(DiagKind::DomainError, m.root.children.empty() ? support::SourceRange{} : m.root.children.back().range,
                fmt::format("the total time is not finite ({}): the phases add up beyond the largest number",
                            out.total_s));
  }
  return reporter.ok;
}

}  // namespace

bool evaluate(const Module& m, const SlotValues& bound, support::DiagnosticEngine& diags, Evaluation& out,
              const std::set<int32_t>* varied) {
  return report_and_fold(m, bound, run(m, bound), diags, out, varied);
}

bool evaluate_with_values(const Module& m, const SlotValues& bound, std::vector<double> values,
                          support::DiagnosticEngine& diags, Evaluation& out) {
  size_t n = m.instrs.size();
  if (values.size() != n) throw std::logic_error("evaluate_with_values: one value per instruction expected");
  State s{std::move(values), std::vector<int32_t>(n, -1), std::vector<Fault>(n, Fault::None)};
  return report_and_fold(m, bound, s, diags, out);
}

}  // namespace gpm::backend
