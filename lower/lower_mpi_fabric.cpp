// lower_mpi_fabric.cpp: MPI operations on the fabric model: each rank on a GPU of its node, each message a flow over
// the machine's routes (engines/mpi/fabric_engine.h), the links' bandwidths and latencies as the engine's inputs.
#include <fmt/format.h>

#include <cmath>

#include "engines/congestion/engine.h"
#include "engines/mpi/fabric_engine.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

namespace {

// The node a component belongs to: N for a cluster's `node[N].` paths (lower_cluster.cpp), 0 for a machine that
// describes one node, -1 for the cluster's own switches.
int64_t node_of_path(const std::string& path) {
  if (!path.starts_with("node[")) return path.starts_with("leaf[") || path.starts_with("spine[") ? -1 : 0;
  return std::stoll(path.substr(5, path.find(']') - 5));
}

// What decides a fabric engine besides the lowering's machine: the operation and its pattern's parameters, the
// ranks' layout and the components they run on (and stage through). Statements with the same key share one engine:
// only their sizes, which are inputs, differ (AMGX's 23 halos of three sizes are one engine).
std::string fabric_engine_key(const MpiFabricRequest& r, const mpi::FabricPlacement& p) {
  const mpi::Layout& l = r.layout;
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", r.name,
                                r.halo, r.p2p, int(r.collective), int(r.algorithm), int(r.transport), r.from, r.to,
                                r.window, r.both, r.channels, r.grid.dims, r.grid.extent[0], r.grid.extent[1],
                                r.grid.extent[2], r.grid.periodic, r.grid.neighbours, l.ranks, l.ranks_per_node,
                                l.ranks_per_socket, l.nodes, l.sockets_per_node, l.nodes_per_leaf, r.node_aware.on,
                                r.node_aware.bcast_k, r.node_aware.reduce_k);
  key += r.chosen_by + '|';
  key += r.staging_chunk_given ? "pieces|" : "whole|";  // staging in pieces: the engine pipelines its phases
  key += r.tcp ? "tcp|" : "|";
  const mpi::Variant& v = r.variant;
  key += fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", v.bcast_chains, v.reduce_chains, v.radix, int(v.reduce_part),
                     int(v.bcast_part), v.reduce_part_chains, v.bcast_part_chains, v.segmented, v.ring_phases,
                     v.requests);
  auto append = [&key](const auto& v) {
    key += std::to_string(v.size()) + ':';
    key.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  append(l.node);
  append(l.socket);
  append(p.gpu);
  append(p.memory);
  append(r.matrix);
  return key;
}

}  // namespace

// A machine without an `mpi` section: one rank per GPU of a node (node[0]'s, for a cluster), mapped linearly, and
// the fabric model, which needs no fitted constant.
std::shared_ptr<MpiMachineInfo> Lowerer::fabric_mpi_defaults(const MachineDecl& machine) {
  int64_t gpus = 0;
  for (int g : components_of_kind(m_.topology, "gpu")) gpus += node_of_path(m_.topology.components[size_t(g)].path) == 0;
  if (gpus == 0) return nullptr;
  auto info = std::make_shared<MpiMachineInfo>();
  info->from_section = false;
  info->model = mpi::CommModel::Fabric;
  info->ranks_per_node = gpus;
  info->ranks_per_socket = gpus;
  info->overhead = b_.constant(0, Dim::seconds(), machine.name_range);
  return info;
}

std::optional<mpi::FabricPlacement> Lowerer::fabric_placement(const Stmt& s, const MpiMachineInfo& info,
                                                              const MpiFabricRequest& request) {
  const mpi::Layout& layout = request.layout;
  // Each node's GPUs in declaration order: the node's i-th rank runs on its i-th GPU.
  std::vector<std::vector<int>> gpus_of_node;
  for (int g : components_of_kind(m_.topology, "gpu")) {
    int64_t node = node_of_path(m_.topology.components[size_t(g)].path);
    if (node < 0) continue;
    if (size_t(node) >= gpus_of_node.size()) gpus_of_node.resize(size_t(node) + 1);
    gpus_of_node[size_t(node)].push_back(g);
  }
  mpi::FabricPlacement placement;
  placement.gpu.resize(size_t(layout.ranks));
  std::vector<int64_t> placed(gpus_of_node.size(), 0);
  for (int64_t r = 0; r < layout.ranks; ++r) {
    size_t node = size_t(layout.node[size_t(r)]);
    if (node >= gpus_of_node.size() || gpus_of_node[node].empty()) {
      diags_.error(DiagKind::InvalidMapping, s.range,
                   fmt::format("`mpi {}` over {} ranks puts rank {} on node {}, and machine `{}` describes {} "
                               "node{} with GPUs: the fabric model places each rank on a GPU of its node{}",
                               request.name, layout.ranks, r, node, m_.machine_name, gpus_of_node.size(),
                               gpus_of_node.size() == 1 ? "" : "s",
                               m_.topology.node_count != kNoValue && gpus_of_node.size() == 1 &&
                                       eager_value(m_.topology.node_count) > 1
                                   ? " (a machine's `nodes` count does not describe the others: give it a `cluster` "
                                     "section)"
                                   : ""));
      if (info.mapping_range.file != kNoFile) diags_.note(info.mapping_range, "the mapping is given here");
      return std::nullopt;
    }
    int64_t slot = placed[node]++;
    if (slot >= int64_t(gpus_of_node[node].size())) {
      diags_.error(DiagKind::InvalidMapping, s.range,
                   fmt::format("`mpi {}` over {} ranks puts {} or more ranks on node {}, which has {} GPU{}: the "
                               "fabric model places one rank on each GPU",
                               request.name, layout.ranks, slot + 1, node, gpus_of_node[node].size(),
                               gpus_of_node[node].size() == 1 ? "" : "s"));
      if (info.mapping_range.file != kNoFile) diags_.note(info.mapping_range, "the mapping is given here");
      return std::nullopt;
    }
    placement.gpu[size_t(r)] = gpus_of_node[node][size_t(slot)];
  }
  if (request.transport != mpi::Transport::Staged) {
    // GPUs without peer access (`peer_access = 0`) cannot write to each other; the model still moves the messages
    // GPU to GPU, and says so.
    for (int g : placement.gpu)
      if (!peer_access(g, s.range)) {
        diags_.warning(DiagKind::ModelSubstituted, s.range,
                       fmt::format("gpu `{}` has no peer access (peer_access = 0), and the fabric model moves the "
                                   "messages of `mpi {}` from GPU to GPU all the same; `transport = staged` moves them "
                                   "through host memory",
                                   m_.topology.components[size_t(g)].path, request.name));
        break;
      }
  }
  if (request.transport == mpi::Transport::Staged) {
    // Host staging goes through the host memory nearest each rank's GPU (fewest links, then declaration order).
    placement.memory.resize(placement.gpu.size());
    for (size_t r = 0; r < placement.gpu.size(); ++r) {
      placement.memory[r] = nearest_of_kind(m_.topology, placement.gpu[r], "memory");
      if (placement.memory[r] < 0) {
        diags_.error(DiagKind::NoPath, s.range,
                     fmt::format("`mpi {}` stages its messages through host memory, and no `memory` component is "
                                 "reachable from `{}`",
                                 request.name, m_.topology.components[size_t(placement.gpu[r])].path));
        return std::nullopt;
      }
    }
  }
  return placement;
}

ir::Router& Lowerer::fabric_router() {
  if (!fabric_router_) {
    fabric_router_ = std::make_unique<ir::Router>(m_.topology, link_costs());
    fabric_router_->keep_routes(size_t(1) << 14);  // a few MB at most
  }
  return *fabric_router_;
}

mpi::FabricShared Lowerer::fabric_shared(bool* too_large) {
  return {&fabric_router(), component_names(),
          [](uint64_t flows, std::string& why) { return flows_fit(flows, why, "its messages make"); }, too_large};
}

std::shared_ptr<const std::vector<std::string>> Lowerer::component_names() {
  if (!component_names_) {
    auto names = std::make_shared<std::vector<std::string>>();
    names->reserve(m_.topology.components.size());
    for (const auto& c : m_.topology.components) names->push_back(c.path);
    component_names_ = std::move(names);
  }
  return component_names_;
}

std::optional<EngineCall> Lowerer::lower_mpi_fabric(const Stmt& s, const MpiMachineInfo& info,
                                                    const MpiFabricRequest& request) {
  const mpi::Layout& layout = request.layout;
  auto placed = fabric_placement(s, info, request);
  if (!placed) return std::nullopt;
  const mpi::FabricPlacement& placement = *placed;
  mpi::FabricCommEngine::Operation op;
  op.what = request.halo || request.p2p || request.alltoallv ? request.name : mpi::collective_name(request.collective);
  op.algorithm = request.halo || request.p2p ? ""
                 : request.alltoallv         ? mpi::algorithm_name(request.algorithm)
                                             : mpi::algorithm_title(request.algorithm,
                                                                    request.node_aware.on &&
                                                                        mpi::has_node_aware(request.collective),
                                                                    request.variant, request.collective);
  op.transport = request.transport;
  op.staging_chunks = request.staging_chunk_given && request.transport == mpi::Transport::Staged;
  op.tcp = request.tcp;
  op.chosen_by = request.chosen_by;
  op.ranks = layout.ranks;
  op.nodes = layout.nodes;
  op.ranks_per_node = layout.ranks_per_node;
  op.halo = request.halo;
  op.grid = request.grid;
  ValueId tau = kNoValue;
  std::string key = fabric_engine_key(request, placement);
  std::shared_ptr<mpi::FabricCommEngine> engine;
  if (auto known = fabric_engines_.find(key); known != fabric_engines_.end()) {
    fabric_map(tau);
    engine = known->second;
  } else {
  std::vector<mpi::Round> rounds;
  std::vector<mpi::HaloMessage> halo;
  std::string error;
  if (request.halo) {
    halo = mpi::halo_messages(request.grid, layout.ranks, error);
    if (!error.empty()) {
      diags_.error(DiagKind::InvalidDecomposition, s.range, fmt::format("`mpi halo`: {}", error));
      return std::nullopt;
    }
  } else if (request.p2p) {
    rounds = mpi::p2p_rounds(layout, request.from, request.to, request.both, request.window, true);
  } else if (request.alltoallv) {
    rounds = mpi::alltoallv_rounds(layout, request.matrix, request.algorithm, true);
  } else if (request.algorithm == mpi::Algorithm::InNetwork && layout.ranks >= 2) {  // one rank: nothing to do
    auto round = in_network_round(s, request, placement);
    if (!round) return std::nullopt;
    rounds.push_back(std::move(*round));
  } else {
    // Listed first, then made flows: refuse a list that would not fit in memory before making it (an all-to-all
    // lists p (p - 1) messages).
    if (std::string why; !messages_fit(mpi::listed_messages(layout, request.collective, request.algorithm,
                                                            request.channels, request.node_aware, request.variant),
                                       why)) {
      diags_.error(DiagKind::ModelTooLarge, s.range, fmt::format("`mpi {}` on the fabric: {}", request.name, why));
      return std::nullopt;
    }
    rounds = mpi::collective_rounds(layout, request.collective, request.algorithm, true, request.channels,
                                    request.node_aware, request.variant);
  }
  // Every message is a flow (three with staging), or with the fast path those of one period: the engine refuses
  // what would not fit in memory before building them.
  engines::congestion::FabricMap fabrics = fabric_map(tau);
  bool too_large = false;
  engine = mpi::FabricCommEngine::build(m_.topology, fabrics, link_costs(), op, placement, rounds, halo, error,
                                        fabric_shared(&too_large));
  if (!engine) {
    DiagKind kind = too_large                                  ? DiagKind::ModelTooLarge
                    : error.find("no path") != std::string::npos ? DiagKind::NoPath
                                                                 : DiagKind::FabricError;
    diags_.error(kind, s.range, fmt::format("`mpi {}` on the fabric: {}", request.name, error));
    return std::nullopt;
  }
  fabric_engines_.emplace(std::move(key), engine);
  // Written out, each round's messages repeat: what a `par` would build (a pipeline's repeats are not known here).
  double written = 0;
  bool pipelined = false;
  for (const auto& r : rounds) {
    written += double(r.messages.size()) * r.repeat;
    pipelined = pipelined || r.pipeline_hops > 0;
  }
  if (engine->symmetric_period() > 0 && !pipelined && written <= double(kParMpiFlows)) {
    auto spec = std::make_shared<FabricWholeSpec>();
    spec->op = op;
    spec->placement = placement;
    spec->rounds = std::move(rounds);
    fabric_whole_[engine.get()] = std::move(spec);
  }
  }
  if (!info.has_overhead && !fabric_overhead_warned_) {
    // The model's software latency per message has no default a source gives: say once that it is taken as 0.
    fabric_overhead_warned_ = true;
    diags_.warning(DiagKind::AssumedZero, s.range,
                   fmt::format("the fabric model prices `mpi {}` with no software latency: machine `{}` {}, so each "
                               "message costs only its route's link latencies and bandwidths; the same holds for "
                               "every fabric-model operation of this run",
                               request.name, m_.machine_name,
                               info.from_section ? "gives no `overhead` in its mpi section"
                                                 : "has no mpi section to give its `overhead` (`mpi { model = fabric; overhead = T }`)"));
    if (info.from_section) diags_.note(info.section_range, "`overhead = T` in this section sets it");
  }
  EngineCall call{engine, {}};
  if (engine->uses_tau()) {
    if (tau == kNoValue) {  // sema requires tau; a guard for hand-built programs
      diags_.error(DiagKind::MissingAttribute, s.range, "PCIe arbitration needs `tau`");
      return std::nullopt;
    }
    call.inputs.push_back(tau);
  }
  call.inputs.push_back(info.overhead != kNoValue ? info.overhead : b_.constant(0, Dim::seconds(), s.range));
  call.inputs.push_back(request.staging_chunk != kNoValue ? request.staging_chunk
                                                          : b_.constant(0, Dim::byte(), s.range));
  // TCP: the network's links (those of a network switch, or a cable from NIC to NIC) carry TCP/IP in Ethernet frames,
  // whose payload per frame is the MTU less the IPv4 and TCP headers (20 + 20 B, RFC 791 and 9293) and the TCP
  // timestamps option (12 B with padding, RFC 7323), on MTU + 38 B of wire (Ethernet's header 14, FCS 4, preamble and
  // start delimiter 8, inter-frame gap 12: IEEE 802.3): such a link delivers its bandwidth times (MTU - 52) /
  // (MTU + 38) of payload, 94.1 % for 1500 B frames, 99.0 % for 9000 B.
  ValueId tcp_payload = kNoValue;
  if (request.tcp)
    tcp_payload = b_.binary(Opcode::Div, b_.binary(Opcode::Sub, request.mtu, b_.constant(52, Dim::byte(), s.range), s.range),
                            b_.binary(Opcode::Add, request.mtu, b_.constant(38, Dim::byte(), s.range), s.range), s.range);
  for (auto [link, dir] : engine->link_inputs()) {
    const ir::Link& l = m_.topology.links[size_t(link)];
    const ir::Component& a = m_.topology.components[size_t(l.a)];
    const ir::Component& b = m_.topology.components[size_t(l.b)];
    const bool wire = is_network_switch(a) || is_network_switch(b) || (a.kind == "nic" && b.kind == "nic");
    call.inputs.push_back(request.tcp && wire ? b_.binary(Opcode::Mul, l.bw[dir], tcp_payload, s.range) : l.bw[dir]);
  }
  for (auto [link, dir] : engine->link_inputs()) {
    ValueId latency = m_.topology.links[size_t(link)].latency[dir];
    call.inputs.push_back(latency != kNoValue ? latency : b_.constant(0, Dim::seconds(), s.range));
  }
  call.inputs.insert(call.inputs.end(), request.sizes.begin(), request.sizes.end());
  return call;
}

// An all-reduce reduced in the network's switches (InfiniBand SHARP, a cluster's `sharp`; NVLink SHARP, a switch's
// `nvls`): the root is the reducing switch nearest to the farthest rank (fewest links, then component order); the
// tree is each rank's GPU's route to it, a route ending where it meets the tree. Up a tree link go as many streams
// as the component below sends: one from a switch that reduces, else its own ranks' and its children's; down the
// link as many come back (a reducing switch multicasts). Each stream is a flow of the operation's bytes on that one
// link; the reduction and the broadcast are pipelined in segments over twice the tree's depth, as a pipelined
// chain is (docs/models.md, 9.8).
std::optional<mpi::Round> Lowerer::in_network_round(const Stmt& s, const MpiFabricRequest& request,
                                                    const mpi::FabricPlacement& placement) {
  const auto& comps = m_.topology.components;
  auto reduces = [&](int c) {
    if (comps[size_t(c)].kind != "switch") return false;
    for (const char* name : {"sharp", "nvls"}) {
      auto it = comps[size_t(c)].attrs.find(name);
      if (it != comps[size_t(c)].attrs.end() && eager_value(it->second) != 0) return true;
    }
    return false;
  };
  std::map<int, int64_t> ranks_on;  // GPU -> its ranks
  for (int g : placement.gpu) ++ranks_on[g];
  // Links at each component, for the distances from each candidate root (not passing through a GPU).
  std::vector<std::vector<int>> next(comps.size());
  for (const auto& l : m_.topology.links) {
    next[size_t(l.a)].push_back(l.b);
    next[size_t(l.b)].push_back(l.a);
  }
  int root = -1;
  int64_t root_depth = INT64_MAX;
  std::vector<int64_t> dist(comps.size());
  for (int c = 0; c < int(comps.size()); ++c) {
    if (!reduces(c)) continue;
    std::fill(dist.begin(), dist.end(), -1);
    std::vector<int> queue = {c};
    dist[size_t(c)] = 0;
    for (size_t i = 0; i < queue.size(); ++i) {
      int at = queue[i];
      if (at != c && comps[size_t(at)].kind == "gpu") continue;
      for (int n : next[size_t(at)])
        if (dist[size_t(n)] < 0) {
          dist[size_t(n)] = dist[size_t(at)] + 1;
          queue.push_back(n);
        }
    }
    int64_t depth = 0;
    for (const auto& [g, n] : ranks_on) depth = dist[size_t(g)] < 0 ? INT64_MAX : std::max(depth, dist[size_t(g)]);
    if (depth < root_depth) root = c, root_depth = depth;
  }
  if (root < 0 || root_depth == INT64_MAX) {
    diags_.error(DiagKind::ConflictingAttributes, s.range,
                 fmt::format("`algorithm = in_network` reduces in the network's switches, and no switch that "
                             "reduces (`sharp = 1`, `nvls = 1`) is reachable from the GPU of every rank of `mpi {}`",
                             request.name));
    return std::nullopt;
  }
  // The tree: each GPU's route to the root, until it meets a component already in the tree.
  std::map<int, int> parent;
  int64_t depth = 0;
  ir::Router& router = fabric_router();
  for (const auto& [g, n] : ranks_on) {
    auto route = router.route(g, root, "gpu");
    if (!route) continue;  // the distances above found one: not reached
    depth = std::max(depth, int64_t(route->size()));
    int at = g;
    for (const auto& hop : *route) {
      const ir::Link& l = m_.topology.links[size_t(hop.link)];
      int to = hop.direction == 0 ? l.b : l.a;
      if (!parent.emplace(at, to).second) break;
      at = to;
    }
  }
  // Streams up each tree link, the deepest components first.
  std::map<int, int64_t> level;
  for (const auto& [c, up] : parent) {
    int64_t d = 0;
    for (int a = c; a != root; a = parent.at(a)) ++d;
    level[c] = d;
  }
  std::vector<int> order;
  for (const auto& [c, up] : parent) order.push_back(c);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return level[a] > level[b]; });
  std::map<int, int64_t> streams;  // component -> streams it sends up
  mpi::Round round;
  for (int c : order) {
    int64_t sent = ranks_on.count(c) ? ranks_on[c] : 0;
    sent += streams[c];
    if (reduces(c) && sent > 0) sent = 1;
    if (sent == 0) continue;
    streams[parent.at(c)] += sent;
    for (int64_t k = 0; k < sent; ++k) {
      round.component_messages.emplace_back(c, parent.at(c));
      round.component_messages.emplace_back(parent.at(c), c);
    }
  }
  round.what = fmt::format("in-network reduction step (up the tree to `{}` and back)", comps[size_t(root)].path);
  round.pipeline_hops = 2 * depth;
  return round;
}

std::shared_ptr<const mpi::FabricCommEngine> Lowerer::fabric_unrolled(
    const std::shared_ptr<const mpi::FabricCommEngine>& e) {
  if (e->symmetric_period() == 0) return e;
  auto it = fabric_whole_.find(e.get());
  if (it == fabric_whole_.end()) return nullptr;
  FabricWholeSpec& spec = *it->second;
  if (!spec.tried) {
    spec.tried = true;
    ValueId tau = kNoValue;
    std::string error;
    // Written out only up to kParMpiFlows flows (lower_mpi_fabric above), so no flow limit here.
    mpi::FabricShared shared{&fabric_router(), component_names(), {}, nullptr};
    spec.whole = mpi::FabricCommEngine::build(m_.topology, fabric_map(tau), link_costs(), spec.op, spec.placement,
                                              spec.rounds, {}, error, shared, false);
    spec.rounds = {};
  }
  return spec.whole;
}

}  // namespace gpm::lower
