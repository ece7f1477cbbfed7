// point.cpp: a lean forward loop over the SSA list with one poison flag per value, the checks and the task fold.
#include "backend/interp/point.h"

#include <cmath>
#include <limits>

#include "ir/semantics.h"

namespace gpm::backend {

using namespace ir;

namespace {

struct Point {
  const Module& m;
  PointScratch& s;
  bool ok = true;

  void need(ValueId v) {
    if (s.poisoned[size_t(v)]) ok = false;
  }
  double value(ValueId v) {
    need(v);
    return s.values[size_t(v)];
  }

  double fold(const Task& task) {
    if (task.kind == TaskKind::Engine) {
      const EngineCall& call = m.engine_calls[size_t(task.engine_call)];
      s.engine_inputs.clear();
      for (ValueId x : call.inputs) s.engine_inputs.push_back(value(x));
      double t = call.engine->time(s.engine_inputs);
      if (!std::isfinite(t)) ok = false;
      return t;
    }
    if (task.kind == TaskKind::Op) return task.value == kNoValue ? 0 : value(task.value);
    double count = task.kind == TaskKind::Iterate ? value(task.value) : 1;
    double inner = 0;
    for (const auto& child : task.children) {
      double t = fold(child);
      inner = task.kind == TaskKind::Par ? std::max(inner, t) : inner + t;
    }
    return inner * count;
  }

  bool check(const Check& c) {
    double v = s.values[size_t(c.value)];
    switch (c.kind) {
      case CheckKind::Positive: return v > 0;
      case CheckKind::NonNegative: return v >= 0;
      case CheckKind::InRange: {
        if (s.poisoned[size_t(c.lo)] || s.poisoned[size_t(c.hi)]) return false;
        double lo = s.values[size_t(c.lo)], hi = s.values[size_t(c.hi)];
        return lo <= hi && v >= lo && v <= hi;
      }
      case CheckKind::WholeNumber: return v >= 0 && v == std::floor(v) && std::isfinite(v);
      case CheckKind::AtMost: return !s.poisoned[size_t(c.hi)] && v <= s.values[size_t(c.hi)];
    }
    return false;
  }
};

}  // namespace

double evaluate_point(const Module& m, const SlotValues& bound, PointScratch& scratch, double* phases_out) {
  size_t n = m.instrs.size();
  scratch.values.resize(n);
  scratch.poisoned.resize(n);
  double* values = scratch.values.data();
  char* poisoned = scratch.poisoned.data();
  for (size_t i = 0; i < n; ++i) {
    const Instr& in = m.instrs[i];
    if (in.op == Opcode::Const) {
      values[i] = in.imm;
      poisoned[i] = 0;
      continue;
    }
    if (in.op == Opcode::Param) {
      size_t slot = size_t(in.slot);
      bool set = slot < bound.size() && bound[slot];
      values[i] = set ? *bound[slot] : values[size_t(in.a)];
      poisoned[i] = set ? 0 : poisoned[size_t(in.a)];
      continue;
    }
    double a = in.a >= 0 ? values[size_t(in.a)] : 0.0;
    double b = in.b >= 0 ? values[size_t(in.b)] : 0.0;
    double c = in.c >= 0 ? values[size_t(in.c)] : 0.0;
    double r = apply(in.op, a, b, c);
    values[i] = r;
    auto flag = [&](ValueId x) { return x >= 0 && poisoned[size_t(x)]; };
    bool inherited = in.op == Opcode::Select ? flag(in.a) || flag(a != 0 ? in.b : in.c)
                                             : flag(in.a) || flag(in.b) || flag(in.c);
    poisoned[i] = inherited || fault_of(in.op, a, b, r) != Fault::None;
  }
  Point point{m, scratch};
  for (const auto& p : m.params) point.need(p.value);
  for (const auto& [name, value] : m.lets) point.need(value);
  for (const auto& c : m.checks) {
    point.need(c.value);
    if (point.ok && !point.check(c)) point.ok = false;
  }
  double total = 0;
  size_t k = 0;
  for (const auto& phase : m.root.children) {
    double t = point.fold(phase);
    phases_out[k++] = t;
    total += t;
  }
  return point.ok && std::isfinite(total) ? total : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace gpm::backend
