// fabric_routes.cpp: MPI messages' routes on the fabric, through the NICs nearest their GPUs between nodes.
#include "engines/mpi/fabric_routes.h"

#include <algorithm>

namespace gpm::mpi {

MessageRouter::MessageRouter(const ir::Topology& topology, ir::Router& router) : t_(topology), router_(router) {}

std::string MessageRouter::node_prefix(const std::string& path) {
  if (!path.starts_with("node[")) return {};
  size_t end = path.find("].");
  return end == std::string::npos ? std::string() : path.substr(0, end + 2);
}

const std::vector<int>& MessageRouter::nearest_nics(int gpu) {
  if (auto it = nearest_.find(gpu); it != nearest_.end()) return it->second;
  if (adj_.empty()) {
    adj_.resize(t_.components.size());
    for (const ir::Link& l : t_.links) {
      adj_[size_t(l.a)].push_back(l.b);
      adj_[size_t(l.b)].push_back(l.a);
    }
    stamp_.assign(t_.components.size(), 0);
  }
  ++search_;
  // Within the GPU's node only (a node without a NIC has none: the search never walks the cluster).
  const std::string prefix = node_prefix(t_.components[size_t(gpu)].path);
  std::vector<int> layer = {gpu}, next, found;
  stamp_[size_t(gpu)] = search_;
  while (!layer.empty() && found.empty()) {
    next.clear();
    for (int at : layer) {
      if (at != gpu && t_.components[size_t(at)].kind == "gpu") continue;  // not passed through
      for (int b : adj_[size_t(at)]) {
        if (stamp_[size_t(b)] == search_) continue;
        stamp_[size_t(b)] = search_;
        if (!t_.components[size_t(b)].path.starts_with(prefix)) continue;
        if (t_.components[size_t(b)].kind == "nic") found.push_back(b);
        next.push_back(b);
      }
    }
    layer.swap(next);
  }
  std::sort(found.begin(), found.end());
  return nearest_.emplace(gpu, std::move(found)).first->second;
}

int MessageRouter::nic_of(int gpu) {
  if (auto it = nic_.find(gpu); it != nic_.end()) return it->second;
  const std::vector<int> nics = nearest_nics(gpu);
  int nic = -1;
  if (nics.size() == 1) {
    nic = nics[0];
  } else if (!nics.empty()) {
    // The GPUs of this node with the same nearest NICs take them in turn, in declaration order.
    if (gpus_of_node_.empty())  // every node's GPUs, in one pass
      for (size_t c = 0; c < t_.components.size(); ++c)
        if (t_.components[c].kind == "gpu") gpus_of_node_[node_prefix(t_.components[c].path)].push_back(int(c));
    size_t turn = 0;
    for (int g : gpus_of_node_[node_prefix(t_.components[size_t(gpu)].path)]) {
      if (g == gpu) break;
      if (nearest_nics(g) == nics) ++turn;
    }
    nic = nics[turn % nics.size()];
  }
  nic_.emplace(gpu, nic);
  return nic;
}

int MessageRouter::spread_number(int gpu) {
  if (spread_.empty()) {
    spread_.assign(t_.components.size(), -1);
    // Each GPU's key: the network switch its NIC plugs into (the NIC's first neighbour outside its node).
    std::vector<std::pair<int, int>> keyed;  // (switch, gpu)
    for (size_t c = 0; c < t_.components.size(); ++c) {
      if (t_.components[c].kind != "gpu") continue;
      int nic = nic_of(int(c));  // builds adj_
      if (nic < 0) continue;
      const std::string prefix = node_prefix(t_.components[size_t(nic)].path);
      int out = -1;
      for (int b : adj_[size_t(nic)])
        if (!prefix.empty() && !t_.components[size_t(b)].path.starts_with(prefix) && (out < 0 || b < out)) out = b;
      if (out >= 0) keyed.emplace_back(out, int(c));
    }
    std::sort(keyed.begin(), keyed.end());
    for (size_t i = 0; i < keyed.size(); ++i) spread_[size_t(keyed[i].second)] = int(i);
  }
  int n = spread_[size_t(gpu)];
  return n >= 0 ? n : router_.rank_of(gpu);
}

std::optional<std::vector<ir::Hop>> MessageRouter::route(int from, int to) {
  if (from == to) return std::vector<ir::Hop>{};
  const ir::Component& a = t_.components[size_t(from)];
  const ir::Component& b = t_.components[size_t(to)];
  if (a.kind == "gpu" && b.kind == "gpu") {
    std::string pa = node_prefix(a.path), pb = node_prefix(b.path);
    if (!pa.empty() && !pb.empty() && pa != pb) {
      int na = nic_of(from), nb = nic_of(to);
      if (na >= 0 && nb >= 0 && na != nb) {
        auto out_at = out_leg_.find(from);
        if (out_at == out_leg_.end()) out_at = out_leg_.emplace(from, router_.route(from, na, "gpu")).first;
        auto in_at = in_leg_.find(to);
        if (in_at == in_leg_.end()) in_at = in_leg_.emplace(to, router_.route(nb, to, "gpu")).first;
        const auto& out = out_at->second;
        const auto& in = in_at->second;
        // Equal paths between the NICs are spread by the receiving GPU's number, leaf by leaf (d-mod-k).
        auto across = out && in ? router_.route(na, nb, "gpu", spread_number(to)) : std::nullopt;
        if (across) {
          std::vector<ir::Hop> hops = *out;
          hops.insert(hops.end(), across->begin(), across->end());
          hops.insert(hops.end(), in->begin(), in->end());
          return hops;
        }
      }
    }
  }
  return router_.route(from, to, "gpu");
}

}  // namespace gpm::mpi
