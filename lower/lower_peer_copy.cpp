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
  const std::string& src_path = m_.topology.components[size_t(src)].path;
  const std::string& dst_path = m_.topology.components[size_t(dst)].path;
  if (src == dst) {
    diags_.error(DiagKind::InvalidKeyword, s.direction_range,
                 fmt::format("copy p2p from `{}` to itself: a copy within one gpu is `copy d2d SIZE on {}`", src_path,
                             src_path));
    return task;
  }
  auto path = shortest_path(m_.topology, src, dst, "gpu", link_costs());
  if (!path) {
    diags_.error(DiagKind::NoPath, s.range,
                 fmt::format("no path of links carries data from `{}` to `{}` without passing through another gpu",
                             src_path, dst_path));
    return task;
  }
  PathCost cost = path_cost(*path);
  task.name += " (" + route_name(src, *path) + ")";
  task.model = "AHEAD eq. 10, GPU to GPU (section IV-C)";
  task.value = call_stdlib("ahead_pinned_copy_time", {cost.lo, bytes, cost.bw}, s.range);
  task.terms = {{"L+O", cost.lo}, {"path bandwidth", cost.bw}};
  return task;
}

}  // namespace gpm::lower
