// lower_peer_copy.cpp: lowers `copy p2p SIZE from GPU to GPU`, a copy between two GPUs over the node's links.
#include <fmt/format.h>

#include "lower/lower.h"
#include "ir/topology.h"

namespace gpm::lower {

using namespace frontend;

// AHEAD (Abdelhafez et al.) section IV-C, last paragraph: "in multi-GPU systems, one can use our NVLink or PCIe
// models ... to estimate the data transfer time in GPU-GPU communication". The copy follows eq. 10,
// T = L+O + n / BW_eff, over the route between the two GPUs: the fewest links, never forwarded through a third
// GPU (a direct NVLink when there is one, otherwise through PCIe switches, root complexes and the link between
// sockets). L+O is the sum of the route's link latencies and of the switches and root complexes it crosses, and
// BW_eff the smallest link bandwidth in the direction travelled: the machine file gives each link its protocol's
// effective bandwidth (eq. 2-8, stdlib/pcie.gpm and stdlib/nvlink.gpm), so the least efficient link bounds it.
Task Lowerer::lower_peer_copy(const Stmt& s, Task task, ValueId bytes) {
  task.part = "communication";  // data moved between GPUs, as MPI moves it between ranks (docs/output.md)
  int src = gpu_for(s.peer_from, s.peer_from->range);
  int dst = gpu_for(s.peer_to, s.peer_to->range);
  if (src < 0 || dst < 0) return task;
  check_fits(src, bytes, s.range, "its source buffer");
  check_fits(dst, bytes, s.range, "its destination buffer");
  const std::string& src_path = m_.topology.components[size_t(src)].path;
  task.track = src_path + " copies";
  const std::string& dst_path = m_.topology.components[size_t(dst)].path;
  if (src == dst) {
    diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                 fmt::format("copy p2p from `{}` to itself: a copy within one gpu is `copy d2d SIZE on {}`", src_path,
                             src_path));
    return task;
  }
  if (!peer_access(src, s.range) || !peer_access(dst, s.range)) return lower_staged_peer_copy(s, task, bytes, src, dst);
  auto path = shortest_path(m_.topology, src, dst, "gpu", link_costs());
  if (!path) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no path of links carries data from `{}` to `{}` without passing through another gpu",
                             src_path, dst_path));
    return task;
  }
  PathCost cost = path_cost(*path);
  task.name += " (" + route_name(src, *path) + ")";
  for (const Hop& hop : *path) task.route.emplace_back(hop.link, hop.direction);
  task.model = "AHEAD eq. 10, GPU to GPU (section IV-C)";
  task.value = call_stdlib("ahead_pinned_copy_time", {cost.lo, bytes, cost.bw}, s.range);
  task.flow = {src, dst, bytes, cost.lo};
  task.terms = {{"L+O", cost.lo}, {"path bandwidth", cost.bw}};
  return task;
}

// A gpu's `peer_access` at the bound values (1, direct, when absent); a shape decision.
bool Lowerer::peer_access(int gpu, SourceRange site) {
  const Component& c = m_.topology.components[size_t(gpu)];
  auto it = c.attrs.find("peer_access");
  if (it == c.attrs.end()) return true;
  double v = eager_value(it->second);
  if (v != 0 && v != 1) {
    auto written = c.attr_ranges.find("peer_access");
    SourceRange where = written != c.attr_ranges.end() && written->second.valid() ? written->second : site;
    diags_.error(DiagKind::InvalidAttributeValue, where,
                 fmt::format("gpu `{}` has peer_access = {:g}; it must be 1 (direct copies) or 0 (staged through host "
                             "memory)",
                             c.path, v));
    diags_.note(site, "the copy that needs it");
    return true;
  }
  return v == 1;
}

// A copy between GPUs of which one has no peer access (`peer_access = 0`): the driver stages it through a pinned
// buffer in host memory, pipelined (stdlib `staged_p2p_copy_time`). The buffer is in the memory nearest the source
// GPU (the driver's choice is not documented; gpmc's assumption, stated in docs/models.md). The first leg is a
// device-to-host copy over the route from the source GPU to that memory, the second a host-to-device copy from it to
// the destination; each leg's L+O and bandwidth are those of its route, as for host copies (AHEAD eq. 10).
Task Lowerer::lower_staged_peer_copy(const Stmt& s, Task task, ValueId bytes, int src, int dst) {
  const std::string& src_path = m_.topology.components[size_t(src)].path;
  const std::string& dst_path = m_.topology.components[size_t(dst)].path;
  int memory = nearest_of_kind(m_.topology, src, "memory");
  if (memory < 0) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("gpu `{}` has no peer access and no host memory is linked to it to stage the copy "
                             "through; add a `memory` and links to it",
                             src_path));
    return task;
  }
  const Component& mem = m_.topology.components[size_t(memory)];
  auto out = shortest_path(m_.topology, src, memory, "gpu", link_costs());
  auto in = shortest_path(m_.topology, memory, dst, "gpu", link_costs());
  if (!out || !in) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no path of links carries the staged copy from `{}` through `{}` to `{}`", src_path,
                             mem.path, dst_path));
    return task;
  }
  auto mem_bw = mem.attrs.find("bw");
  if (mem_bw == mem.attrs.end()) {
    diags_.error(DiagKind::MissingAttribute, s.range,
                 fmt::format("a copy staged through host memory `{}` needs its bandwidth `bw`", mem.path));
    diags_.note(mem.range, "the memory is declared here");
    return task;
  }
  PathCost d2h = path_cost(*out), h2d = path_cost(*in);
  task.name += " (staged: " + route_name(src, *out) + " -> " + route_name(memory, *in).substr(mem.path.size() + 4) + ")";
  task.model = "staged through host memory, pipelined (AHEAD eq. 10 per leg)";
  task.value = call_stdlib("staged_p2p_copy_time", {d2h.lo, h2d.lo, bytes, d2h.bw, h2d.bw, mem_bw->second}, s.range);
  task.terms = {{"L+O to host", d2h.lo}, {"L+O from host", h2d.lo}, {"bandwidth to host", d2h.bw},
                {"bandwidth from host", h2d.bw}, {"host memory bandwidth", mem_bw->second}};
  // As a flow (in a `par` whose copies share a link): one flow over both legs, from the two legs' L+O, moving at most
  // at B_mem / 2 (the memory carries every byte twice), so that alone it ends at the pipeline's time.
  for (const Hop& hop : *out) task.route.emplace_back(hop.link, hop.direction);
  for (const Hop& hop : *in) task.route.emplace_back(hop.link, hop.direction);
  task.flow = {src, dst, bytes, b_.binary(Opcode::Add, d2h.lo, h2d.lo, s.range), memory,
               b_.binary(Opcode::Div, mem_bw->second, b_.constant(2, Dim::count(), s.range), s.range)};
  return task;
}

}  // namespace gpm::lower
