// verifier.cpp: checks SSA order, operand types, parameter slots, checks, topology and task references.
#include "ir/verifier.h"

#include <fmt/format.h>

namespace gpm::ir {

std::vector<std::string> verify(const Module& m) {
  std::vector<std::string> problems;
  auto valid_before = [&](ValueId v, size_t limit) { return v >= 0 && size_t(v) < limit; };
  auto valid = [&](ValueId v) { return valid_before(v, m.instrs.size()); };
  for (size_t i = 0; i < m.instrs.size(); ++i) {
    const Instr& in = m.instrs[i];
    ValueId ops[3] = {in.a, in.b, in.c};
    for (int k = 0; k < operand_count(in.op); ++k)
      if (!valid_before(ops[k], i)) problems.push_back(fmt::format("%{}: operand {} is not an earlier value", i, k));
    if (in.op == Opcode::Param && (in.slot < 0 || size_t(in.slot) >= m.params.size()))
      problems.push_back(fmt::format("%{}: parameter slot {} does not exist", i, in.slot));
    if ((in.op == Opcode::Add || in.op == Opcode::Sub || in.op == Opcode::Min || in.op == Opcode::Max) &&
        valid_before(in.a, i) && valid_before(in.b, i) && m.instrs[size_t(in.a)].dim != m.instrs[size_t(in.b)].dim)
      problems.push_back(fmt::format("%{}: operands of different dimensions", i));
  }
  for (size_t s = 0; s < m.params.size(); ++s)
    if (!valid(m.params[s].value) || m.instrs[size_t(m.params[s].value)].slot != int32_t(s))
      problems.push_back(fmt::format("parameter `{}` does not point at its param instruction", m.params[s].name));
  for (const auto& c : m.checks)
    if (!valid(c.value) || (c.kind == CheckKind::InRange && (!valid(c.lo) || !valid(c.hi))) ||
        (c.kind == CheckKind::AtMost && !valid(c.hi)))
      problems.push_back("check `" + c.what + "` refers to a missing value");
  for (const auto& l : m.topology.links) {
    if (l.a < 0 || l.b < 0 || size_t(l.a) >= m.topology.components.size() || size_t(l.b) >= m.topology.components.size())
      problems.push_back("a link refers to a missing component");
    for (int d = 0; d < (l.bidirectional ? 2 : 1); ++d)
      if (!valid(l.bw[d]) || !valid(l.latency[d])) problems.push_back("a link lacks a bandwidth or latency value");
  }
  std::vector<const Task*> stack = {&m.root};
  while (!stack.empty()) {
    const Task* t = stack.back();
    stack.pop_back();
    if ((t->kind == TaskKind::Iterate || t->kind == TaskKind::Op) && t->value != kNoValue && !valid(t->value))
      problems.push_back("task `" + t->name + "` refers to a missing value");
    if (t->kind == TaskKind::Iterate && t->value == kNoValue) problems.push_back("iterate `" + t->name + "` has no count");
    if (t->kind == TaskKind::Engine) {
      if (t->engine_call < 0 || size_t(t->engine_call) >= m.engine_calls.size() ||
          !m.engine_calls[size_t(t->engine_call)].engine)
        problems.push_back("engine task `" + t->name + "` refers to a missing engine call");
      else
        for (ValueId v : m.engine_calls[size_t(t->engine_call)].inputs)
          if (!valid(v)) problems.push_back("engine task `" + t->name + "` has an input without a value");
    }
    for (const auto& term : t->terms)
      if (!valid(term.value)) problems.push_back("task `" + t->name + "` has a term without a value");
    for (const auto& c : t->children) stack.push_back(&c);
  }
  return problems;
}

}  // namespace gpm::ir
