// printer.cpp: prints parameters, instructions, checks, topology and tasks of an IR module.
#include "ir/printer.h"

#include <fmt/format.h>

namespace gpm::ir {

namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string type_of(const Instr& in) { return in.is_bool ? "bool" : support::dim_name(in.dim); }

void print_task(const Module& m, const Task& t, int depth, std::string& out) {
  std::string pad(size_t(depth) * 2 + 2, ' ');
  static const char* kinds[] = {"seq", "par", "iterate", "phase", "op", "engine"};
  out += fmt::format("{}{} {}", pad, kinds[int(t.kind)], quoted(t.name));
  if (t.value != kNoValue) out += fmt::format(" = %{}", t.value);
  if (t.kind == TaskKind::Engine && t.engine_call >= 0 && size_t(t.engine_call) < m.engine_calls.size()) {
    const EngineCall& call = m.engine_calls[size_t(t.engine_call)];
    out += fmt::format(" = {}#{}(", call.engine->name(), t.engine_call);
    for (size_t i = 0; i < call.inputs.size(); ++i) out += fmt::format("{}%{}", i ? ", " : "", call.inputs[i]);
    out += ")";
  }
  if (!t.model.empty()) out += fmt::format(" [{}]", t.model);
  for (const auto& term : t.terms) out += fmt::format(" {}=%{}", term.name, term.value);
  out += "\n";
  for (const auto& c : t.children) print_task(m, c, depth + 1, out);
}
}  // namespace

std::string print_module(const Module& m, const std::vector<std::optional<double>>* bound) {
  std::string out = fmt::format("ir machine={} app={}\n", m.machine_name.empty() ? "-" : m.machine_name,
                                m.app_name.empty() ? "-" : m.app_name);
  out += "instructions:\n";
  for (size_t i = 0; i < m.instrs.size(); ++i) {
    const Instr& in = m.instrs[i];
    out += fmt::format("  %{} = {}", i, opcode_name(in.op));
    if (in.op == Opcode::Const) out += fmt::format(" {}", in.imm);
    if (in.op == Opcode::Param) out += fmt::format(" {} default %{}", m.params[size_t(in.slot)].name, in.a);
    else
      for (ValueId x : {in.a, in.b, in.c})
        if (x != kNoValue) out += fmt::format(" %{}", x);
    out += fmt::format(" : {}\n", type_of(in));
  }
  out += "params:\n";
  for (size_t slot = 0; slot < m.params.size(); ++slot) {
    const auto& p = m.params[slot];
    out += fmt::format("  {}{} : {} = %{}", p.owner.empty() ? "" : p.owner + ".", p.name, support::dim_name(p.dim),
                       p.value);
    if (p.range_lo != kNoValue) out += fmt::format(" in %{} .. %{}", p.range_lo, p.range_hi);
    for (size_t w = 0; w < p.words.size(); ++w) out += fmt::format("{}{} = {}", w ? ", " : " words ", w, p.words[w]);
    if (bound && slot < bound->size() && (*bound)[slot])
      out += fmt::format("  (--set {})", support::format_quantity(*(*bound)[slot], p.dim));
    out += "\n";
  }
  out += "checks:\n";
  static const char* check_kinds[] = {"positive", "in-range", "whole", "non-negative", "at-most"};
  for (const auto& c : m.checks) {
    out += fmt::format("  {} %{}", check_kinds[int(c.kind)], c.value);
    if (c.kind == CheckKind::InRange) out += fmt::format(" %{} %{}", c.lo, c.hi);
    if (c.kind == CheckKind::AtMost) out += fmt::format(" %{}", c.hi);
    out += fmt::format("  ; {}\n", c.what);
  }
  out += fmt::format("topology: nodes=%{}\n", m.topology.node_count);
  for (size_t i = 0; i < m.topology.components.size(); ++i) {
    const auto& c = m.topology.components[i];
    out += fmt::format("  #{} {} {}{}", i, c.kind, c.path, c.type_name.empty() ? "" : " : " + c.type_name);
    for (const auto& [name, v] : c.attrs) out += fmt::format(" {}=%{}", name, v);
    out += "\n";
  }
  for (const auto& l : m.topology.links) {
    out += fmt::format("  link #{} {} #{} bw=%{}", l.a, l.bidirectional ? "<->" : "->", l.b, l.bw[0]);
    if (l.bidirectional) out += fmt::format("/%{}", l.bw[1]);
    out += fmt::format(" latency=%{}", l.latency[0]);
    if (l.bidirectional) out += fmt::format("/%{}", l.latency[1]);
    if (l.gap[0] != kNoValue || l.gap[1] != kNoValue)
      out += fmt::format(" gap={}/{}", l.gap[0] == kNoValue ? "-" : fmt::format("%{}", l.gap[0]),
                         l.gap[1] == kNoValue ? "-" : fmt::format("%{}", l.gap[1]));
    if (l.global) out += " global";
    out += "\n";
  }
  out += "tasks:\n";
  print_task(m, m.root, 0, out);
  if (!m.engine_calls.empty()) out += "engines:\n";
  for (size_t i = 0; i < m.engine_calls.size(); ++i) {
    const EngineCall& call = m.engine_calls[i];
    out += fmt::format("  {}#{}\n", call.engine->name(), i);
    std::string described = call.engine->describe();
    size_t at = 0;
    while (at < described.size()) {
      size_t end = described.find('\n', at);
      if (end == std::string::npos) end = described.size();
      out += "    " + described.substr(at, end - at) + "\n";
      at = end + 1;
    }
  }
  return out;
}

}  // namespace gpm::ir
