// lower_mapped_run.cpp: lowers `run K { mapped_in = ...; mapped_out = ... }`, a kernel that reads and writes host
// memory through device-mapped memory while it runs (van Werkhoven et al. section III-A and eq. 6).
#include <fmt/format.h>

#include "lower/lower.h"
#include "ir/topology.h"

namespace gpm::lower {

using namespace frontend;

// Van Werkhoven et al., Figure 7, eq. 6 (section IV): with device-mapped host memory, the kernel's loads and
// stores cross the host link while it computes, so input, computation and output overlap and the time is the
// longest of the three, each with the latencies of both directions:
//   T = max(L+o_hd + B_hd G_hd + L+o_dh, L+o_hd + t_E + L+o_dh, L+o_hd + L+o_dh + B_dh G_dh).
// L+o is the host path's L+O per direction; G = 1 / the path's `bw_mapped` (Table II: the bandwidth while mapped
// accesses share the link), falling back to `bw` on a link without it. B_hd and B_dh are the bytes that cross the
// link: larger than the data when the kernel reads an element more than once (section IV).
Task Lowerer::lower_mapped_run(const Stmt& s, Task task, int gpu) {
  std::map<std::string, const Attr*> attrs;
  for (const auto& a : s.attrs) attrs[a.name] = &a;
  auto bytes_of = [&](const char* name) {
    if (!attrs.count(name)) return b_.constant(0, Dim::byte(), s.range);
    ValueId v = lower_expr(*attrs[name]->value);
    add_check(CheckKind::NonNegative, v, attrs[name]->value->range, fmt::format("`{}` of a run", name));
    m_.checks.push_back({CheckKind::WholeNumber, v, kNoValue, kNoValue, attrs[name]->value->range, "a size in bytes"});
    return v;
  };
  ValueId b_hd = bytes_of("mapped_in"), b_dh = bytes_of("mapped_out");
  const Component& g = m_.topology.components[size_t(gpu)];
  int memory = nearest_of_kind(m_.topology, gpu, "memory");
  if (memory < 0) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no host memory is linked to gpu `{}` for device-mapped accesses", g.path));
    return task;
  }
  ValueId lo[2], bw[2];
  std::vector<std::pair<int32_t, int32_t>> hops[2];
  std::string route;
  for (int d = 0; d < 2; ++d) {
    auto path = d == 0 ? shortest_path(m_.topology, memory, gpu, {}, link_costs())
                         : shortest_path(m_.topology, gpu, memory, {}, link_costs());
    if (!path) {
      diags_.error(DiagKind::NoPath, s.range, fmt::format("no path of links joins `{}` and host memory {}", g.path,
                                                          d == 0 ? "(host to device)" : "(device to host)"));
      return task;
    }
    lo[d] = path_cost(*path).lo;
    bw[d] = kNoValue;
    for (const Hop& hop : *path) {
      task.route.emplace_back(hop.link, hop.direction);  // both directions: a `par` checks them against its branches
      hops[d].emplace_back(hop.link, hop.direction);
      const Link& link = m_.topology.links[size_t(hop.link)];
      ValueId w = link.bw_mapped[hop.direction] != kNoValue ? link.bw_mapped[hop.direction] : link.bw[hop.direction];
      bw[d] = bw[d] == kNoValue ? w : b_.binary(Opcode::Min, bw[d], w, link.range);
    }
    if (d == 0) route = route_name(memory, *path);
  }
  ValueId kernel = task.value;
  for (Term& t : task.terms) t.limits = false;  // the kernel's own terms; eq. 6's three below bound the run
  ValueId both = b_.binary(Opcode::Add, lo[0], lo[1], s.range);
  ValueId input = b_.binary(Opcode::Add, both, b_.binary(Opcode::Div, b_hd, bw[0], s.range), s.range);
  ValueId compute = b_.binary(Opcode::Add, both, kernel, s.range);
  ValueId output = b_.binary(Opcode::Add, both, b_.binary(Opcode::Div, b_dh, bw[1], s.range), s.range);
  task.value = call_stdlib("overlap_eq6", {lo[0], b_hd, bw[0], kernel, lo[1], b_dh, bw[1]}, s.range);
  task.part = "overhead";  // E2E section 3.4: the kernel time is kernels, the exposed mapped transfers overhead
  task.kernel_part = kernel;
  task.name += " (mapped over " + route + ")";
  task.model += ", device-mapped host memory (van Werkhoven et al. eq. 6)";
  task.terms.push_back({"kernel time", kernel});
  task.terms.push_back({"mapped input (eq. 6)", input, true});
  task.terms.push_back({"kernel with latencies (eq. 6)", compute, true});
  task.terms.push_back({"mapped output (eq. 6)", output, true});
  task.terms.push_back({"mapped bandwidth h2d", bw[0]});
  task.terms.push_back({"mapped bandwidth d2h", bw[1]});
  // A direction the run does not access has no flow.
  eq6_flow_form(task, fmt::format("run {}", s.name), gpu, memory, hops, lo, attrs.count("mapped_in") ? b_hd : kNoValue,
                attrs.count("mapped_out") ? b_dh : kNoValue, kernel, bw);
  return task;
}

void Lowerer::eq6_flow_form(Task& task, const std::string& name, int gpu, int memory,
                            const std::vector<std::pair<int32_t, int32_t>> route[2], const ValueId lo[2], ValueId b_hd,
                            ValueId b_dh, ValueId kernel, const ValueId cap[2]) {
  // Alone: each ends L+o_hd after the start plus its own time, the longest of them then L+o_dh: eq. 6's maximum.
  Task::FlowOp k;
  k.name = name + ": kernel";
  k.kind = "kernel";
  k.src = k.dst = int32_t(gpu);
  k.size = kernel;
  k.delay = lo[0];
  k.engine = 2;
  task.flow_form = {k};
  for (int d = 0; d < 2; ++d) {
    if ((d == 0 ? b_hd : b_dh) == kNoValue) continue;
    Task::FlowOp f;
    f.name = name + (d == 0 ? ": mapped reads" : ": mapped writes");
    f.kind = d == 0 ? "h2d" : "d2h";
    f.src = d == 0 ? memory : gpu;
    f.dst = d == 0 ? gpu : memory;
    f.route = route[d];
    f.size = d == 0 ? b_hd : b_dh;
    f.delay = lo[0];
    f.cap = cap[d];
    f.engine = -1;
    task.flow_form.push_back(std::move(f));
  }
  task.flow_tail = lo[1];
}

}  // namespace gpm::lower
