// lower_mpi_nccl.cpp: collectives on the nccl model: the library type's constants, the probes that give the
// library's graph bandwidths from the machine's links, and the class of each link (engines/mpi/nccl_engine.h).
#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

#include "engines/congestion/engine.h"
#include "engines/mpi/nccl_engine.h"
#include "lower/lower.h"
#include "lower/lower_mpi.h"

namespace gpm::lower {

using namespace frontend;

namespace {

// How the library rates a link: a NIC's link or the network's is the network class; a link between two GPUs, or
// between a GPU and a switch that joins GPUs only (an NVSwitch), is NVLink; every other link (PCIe switches, root
// complexes, CPUs, host memory) is PCIe.
std::vector<mpi::LinkClass> link_classes(const ir::Topology& t) {
  std::vector<std::vector<int>> neighbours(t.components.size());
  for (const auto& l : t.links) {
    neighbours[size_t(l.a)].push_back(l.b);
    neighbours[size_t(l.b)].push_back(l.a);
  }
  auto gpu_only_switch = [&](int c) {
    if (t.components[size_t(c)].kind != "switch" || is_network_switch(t.components[size_t(c)])) return false;
    for (int n : neighbours[size_t(c)])
      if (t.components[size_t(n)].kind != "gpu") return false;
    return true;
  };
  std::vector<mpi::LinkClass> out;
  for (const auto& l : t.links) {
    const auto& a = t.components[size_t(l.a)];
    const auto& b = t.components[size_t(l.b)];
    if (a.kind == "nic" || b.kind == "nic" || is_network_switch(a) || is_network_switch(b))
      out.push_back(mpi::LinkClass::Net);
    else if ((a.kind == "gpu" && b.kind == "gpu") || (a.kind == "gpu" && gpu_only_switch(l.b)) ||
             (b.kind == "gpu" && gpu_only_switch(l.a)))
      out.push_back(mpi::LinkClass::NvLink);
    else
      out.push_back(mpi::LinkClass::Pcie);
  }
  return out;
}

// NCCL's rings over GPUs joined by direct links (no NVSwitch: a DGX-1's hybrid cube mesh, four GH200 or A100 in a
// full mesh): its topology search follows the links, several rings (channels) at once, so that together they use
// every link of a GPU (src/graph/search.cc). Here: directed Hamiltonian cycles over the direct GPU-to-GPU links of
// `gpus`, one at a time, each the first that a depth-first search from the first GPU finds among those whose
// busiest link carries the fewest rings so far (at each GPU the least used link first, then the lowest index; for
// the first ring, if that finds none, then the GPU with the fewest unused neighbours, Warnsdorff's rule), until
// every direct link carries as many rings as every other (at most `max` rings), or exactly `want` rings when the
// operation names its channels. Each search is bounded (kMaxSteps extensions of a path); a bound that admits no
// cycle within it ends the rings. Empty with fewer than two GPUs or when no first cycle is found (no Hamiltonian
// cycle over direct links: the rank order then stands).
std::vector<std::vector<int>> direct_link_rings(const ir::Topology& t, const std::vector<int>& gpus, int64_t want,
                                                int64_t max) {
  const size_t n = gpus.size();
  if (n < 2 || n > 64) return {};
  std::vector<std::vector<char>> direct(n, std::vector<char>(n, 0));
  std::unordered_map<int, size_t> index;  // component -> position in `gpus`: one pass over the links
  for (size_t i = 0; i < n; ++i) index.emplace(gpus[i], i);
  for (const auto& l : t.links) {
    auto a = index.find(l.a), b = index.find(l.b);
    if (a == index.end() || b == index.end() || a->second == b->second) continue;
    direct[a->second][b->second] = 1;
    if (l.bidirectional) direct[b->second][a->second] = 1;
  }
  std::vector<std::vector<int64_t>> load(n, std::vector<int64_t>(n, 0));
  constexpr int64_t kMaxSteps = 200000;
  // One cycle whose links all carry at most `bound` rings, or empty.
  // `fewest_onward`: among links of equal load, the GPU with the fewest unused direct neighbours first (Warnsdorff's
  // rule), which finds a Hamiltonian cycle within the bound where the plain order wanders (a 6-cube of 64 GPUs).
  auto find = [&](int64_t bound, bool fewest_onward) {
    std::vector<int> path{0}, found;
    std::vector<char> used(n, 0);
    used[0] = 1;
    int64_t steps = 0;
    auto dfs = [&](auto&& self) -> bool {
      if (++steps > kMaxSteps) return false;
      const size_t last = size_t(path.back());
      if (path.size() == n) {
        if (direct[last][0] && load[last][0] <= bound) {
          found = path;
          return true;
        }
        return false;
      }
      std::vector<size_t> next;
      for (size_t j = 1; j < n; ++j)
        if (!used[j] && direct[last][j] && load[last][j] <= bound) next.push_back(j);
      auto onward = [&](size_t g) {
        size_t k = 0;
        for (size_t j = 1; j < n; ++j) k += !used[j] && j != g && direct[g][j];
        return k;
      };
      std::vector<size_t> degree(n, 0);
      if (fewest_onward)
        for (size_t j : next) degree[j] = onward(j);
      std::stable_sort(next.begin(), next.end(), [&](size_t a, size_t b) {
        if (load[last][a] != load[last][b]) return load[last][a] < load[last][b];
        return fewest_onward && degree[a] < degree[b];
      });
      for (size_t j : next) {
        used[j] = 1;
        path.push_back(int(j));
        if (self(self)) return true;
        path.pop_back();
        used[j] = 0;
        if (steps > kMaxSteps) return false;
      }
      return false;
    };
    dfs(dfs);
    return found;
  };
  std::vector<std::vector<int>> chosen;
  const int64_t limit = want > 0 ? want : max;
  while (int64_t(chosen.size()) < limit) {
    int64_t lo = INT64_MAX, hi = 0;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (direct[i][j]) {
          lo = std::min(lo, load[i][j]);
          hi = std::max(hi, load[i][j]);
        }
    if (want <= 0 && !chosen.empty() && lo == hi) break;  // every link carries as many rings
    std::vector<int> cycle;
    for (int64_t bound = lo; bound <= hi + 1 && cycle.empty(); ++bound) cycle = find(bound, false);
    // No first ring in the plain order: once more with Warnsdorff's rule (later rings keep the plain order, so
    // machines whose first ring the plain order finds keep their rings).
    for (int64_t bound = lo; bound <= hi + 1 && cycle.empty(); ++bound) cycle = find(bound, true);
    if (cycle.empty()) break;
    for (size_t i = 0; i < n; ++i) ++load[size_t(cycle[i])][size_t(cycle[(i + 1) % n])];
    chosen.push_back(std::move(cycle));
  }
  return chosen;
}

// One round of the rings above: each ring's GPUs send to their successors, every message 1 / rings of a rank's
// data (ranks are the positions in `gpus`, offset by `first`).
mpi::Round ring_round_of(const std::vector<std::vector<int>>& rings, int32_t first) {
  mpi::Round r;
  r.what = "rings over direct links";
  for (const auto& c : rings)
    for (size_t i = 0; i < c.size(); ++i)
      r.messages.emplace_back(first + int32_t(c[i]), first + int32_t(c[(i + 1) % c.size()]));
  r.size_factor = 1.0 / double(rings.size());
  return r;
}

}  // namespace

bool Lowerer::lower_nccl_choice(const Stmt& s, mpi::CommModel model, const Attr* algorithm, const std::string& word,
                                MpiFabricRequest& request) {
  const bool nccl_word = word == "tree" || word == "nvls" || word == "nvls_tree" || word == "collnet_direct" ||
                         word == "collnet_chain";
  if (model == mpi::CommModel::Nccl) {
    request.nccl_algorithm = -1;
    if (algorithm) {
      static const std::pair<const char*, mpi::NcclAlgo> allowed[] = {
          {"ring", mpi::NcclAlgo::Ring},
          {"tree", mpi::NcclAlgo::Tree},
          {"nvls", mpi::NcclAlgo::Nvls},
          {"nvls_tree", mpi::NcclAlgo::NvlsTree},
          {"collnet_direct", mpi::NcclAlgo::CollnetDirect},
          {"collnet_chain", mpi::NcclAlgo::CollnetChain}};
      for (const auto& [name, algo] : allowed)
        if (word == name) request.nccl_algorithm = int(algo);
      const bool grouped_sends = s.name == "alltoall" || s.name == "alltoallv" || s.name == "gather" ||
                                 s.name == "scatter";
      if (grouped_sends || s.name == "barrier") {
        diags_.error(DiagKind::InvalidKeyword, algorithm->value->range,
                     fmt::format("under the nccl model `mpi {}` is {}, which take{} no algorithm (`auto` or none), "
                                 "not `{}`",
                                 s.name,
                                 grouped_sends ? "NCCL's grouped sends and receives" : "an all-reduce of one element",
                                 grouped_sends ? "" : "s", word));
        return false;
      }
      if (request.nccl_algorithm < 0) {
        diags_.error(DiagKind::InvalidKeyword, algorithm->value->range,
                     fmt::format("the nccl model runs NCCL's algorithms (ring, tree, nvls, nvls_tree, collnet_direct, "
                                 "collnet_chain, as the library allows them for `{}`), not `{}`",
                                 s.name, word));
        return false;
      }
    }
  } else if (algorithm && nccl_word) {
    diags_.error(DiagKind::ConflictingAttributes, algorithm->value->range,
                 fmt::format("`algorithm = {}` is NCCL's: it needs the nccl model (`model = nccl`), and this `mpi {}` "
                             "has the {} model",
                             word, s.name, mpi::comm_model_name(model)));
    return false;
  }
  for (const auto& a : s.attrs) {
    if (a.name != "protocol") continue;
    if (model != mpi::CommModel::Nccl) {
      diags_.error(DiagKind::ConflictingAttributes, a.name_range,
                   fmt::format("`protocol` chooses one of NCCL's protocols: it needs the nccl model, and this `mpi {}` "
                               "has the {} model",
                               s.name, mpi::comm_model_name(model)));
      return false;
    }
    std::string w = word_of(a.word_param, a.value->name);
    request.nccl_protocol = w == "ll" ? 0 : w == "ll128" ? 1 : 2;  // mpi::NcclProto's order
  }
  // The launch from the host: how many GPUs one thread launches the operation on (nccl-tests -g N). Only the nccl
  // model prices launches; elsewhere a thread driving several GPUs costs nothing, and a warning says so.
  if (const Attr* a = find_attr(s.attrs, "gpus_per_thread")) {
    double v = eager_value(lower_expr(*a->value));
    if (!std::isfinite(v) || v != std::floor(v) || v < 1 || v > double(mpi::kMaxRanks)) {
      diags_.error(DiagKind::NotAnInteger, a->value->range,
                   fmt::format("`gpus_per_thread` must be a whole number from 1 to {}, not {}", mpi::kMaxRanks, v));
      return false;
    }
    request.gpus_per_thread = int64_t(v);
    if (model != mpi::CommModel::Nccl && request.gpus_per_thread > 1)
      diags_.warning(DiagKind::UnpricedAttribute, a->name_range,
                     fmt::format("`gpus_per_thread = {}` is not priced: the {} model has no launch cost (the nccl "
                                 "model has)",
                                 request.gpus_per_thread, mpi::comm_model_name(model)));
  }
  // `launch = overlapped`: the operation is one of a loop of the same operation issued back to back (nccl-tests'
  // timed loop); the host launches the next while this one runs.
  for (const auto& a : s.attrs) {
    if (a.name != "launch") continue;
    request.overlapped_launch = word_of(a.word_param, a.value->name) == "overlapped";
    if (model != mpi::CommModel::Nccl && request.overlapped_launch)
      diags_.warning(DiagKind::UnpricedAttribute, a.name_range,
                     fmt::format("`launch = overlapped` is not priced: the {} model has no launch cost (the nccl "
                                 "model has)",
                                 mpi::comm_model_name(model)));
  }
  return true;
}

std::optional<EngineCall> Lowerer::lower_mpi_nccl(const Stmt& s, const MpiMachineInfo& info,
                                                  const MpiFabricRequest& request) {
  const mpi::Layout& layout = request.layout;
  if (layout.ranks < 2) {
    diags_.error(DiagKind::InvalidMapping, s.range,
                 fmt::format("`mpi {}` on the nccl model needs two ranks or more (NCCL runs nothing on one)", s.name));
    return std::nullopt;
  }
  auto placed = fabric_placement(s, info, request);
  if (!placed) return std::nullopt;
  const mpi::FabricPlacement& placement = *placed;
  const auto classes = link_classes(m_.topology);

  mpi::NcclEngine::Setup setup;
  setup.collective = request.collective;
  setup.ranks = layout.ranks;
  setup.nodes = layout.nodes;
  setup.forced_algo = request.nccl_algorithm;
  setup.forced_proto = request.nccl_protocol;
  setup.overlapped_launch = request.overlapped_launch;
  // The class of the links between a node's GPUs (the first two ranks of node 0), and whether a switch on that
  // route reduces in the network (NVLS).
  const int64_t ppn = layout.ranks_per_node;
  if (ppn >= 2 && layout.ranks >= 2 && layout.node[1] == layout.node[0]) {
    if (auto route = shortest_path(m_.topology, placement.gpu[0], placement.gpu[1], "", link_costs())) {
      setup.intra = mpi::LinkClass::NvLink;
      for (const auto& hop : *route) {
        if (classes[size_t(hop.link)] != mpi::LinkClass::NvLink) setup.intra = mpi::LinkClass::Pcie;
        const ir::Link& l = m_.topology.links[size_t(hop.link)];
        for (int c : {l.a, l.b}) {
          const auto& comp = m_.topology.components[size_t(c)];
          auto it = comp.attrs.find("nvls");
          if (comp.kind == "switch" && it != comp.attrs.end() && eager_value(it->second) != 0) setup.nvls = true;
        }
      }
    }
  } else {
    setup.intra = mpi::LinkClass::Net;  // one rank per node: every step crosses the network
  }
  auto attr_on = [&](const ir::Component& comp, const char* name) {
    auto it = comp.attrs.find(name);
    return comp.kind == "switch" && it != comp.attrs.end() && eager_value(it->second) != 0;
  };
  // An NVSwitch system: a node's first two ranks talk over NVLink through a switch (CollNet Direct needs one).
  if (setup.intra == mpi::LinkClass::NvLink)
    if (auto route = shortest_path(m_.topology, placement.gpu[0], placement.gpu[1], "", link_costs()))
      for (const auto& hop : *route) {
        const ir::Link& l = m_.topology.links[size_t(hop.link)];
        for (int c : {l.a, l.b}) setup.nvswitch = setup.nvswitch || m_.topology.components[size_t(c)].kind == "switch";
      }
  // CollNet: the route from rank 0 to the first rank of another node crosses a switch that reduces (`sharp`); its
  // heads, the NICs of rank 0's node.
  for (int64_t r = 1; r < layout.ranks && !setup.collnet; ++r) {
    if (layout.node[size_t(r)] == layout.node[0]) continue;
    if (auto route = shortest_path(m_.topology, placement.gpu[0], placement.gpu[size_t(r)], "", link_costs()))
      for (const auto& hop : *route) {
        const ir::Link& l = m_.topology.links[size_t(hop.link)];
        for (int c : {l.a, l.b}) setup.collnet = setup.collnet || attr_on(m_.topology.components[size_t(c)], "sharp");
      }
    break;
  }
  // NCCL has no gather, scatter or barrier; frameworks build them on it (PyTorch's NCCL process group: a gather or a
  // scatter as the root's ncclRecv or ncclSend of each rank's block in one group, torch/csrc/cuda/nccl.cpp; a barrier
  // as an all-reduce of a one-element tensor, ProcessGroupNCCL::barrier). Gathers and scatters are point-to-point
  // here, with the network's step latency when a rank is on another node than the root.
  const bool gather_scatter = !request.p2p && !request.halo && (request.collective == mpi::Collective::Gather ||
                                                                request.collective == mpi::Collective::Scatter);
  std::vector<mpi::Round> root_round;
  if (gather_scatter) {
    setup.p2p_op = s.name;
    setup.p2p_class = setup.intra;
    mpi::Round& round = root_round.emplace_back();
    round.what = s.name;
    for (int64_t r = 1; r < layout.ranks; ++r) {
      if (request.collective == mpi::Collective::Gather) round.messages.emplace_back(int32_t(r), 0);
      else round.messages.emplace_back(0, int32_t(r));
      if (layout.node[size_t(r)] != layout.node[0]) setup.p2p_class = mpi::LinkClass::Net;
    }
  }
  if (request.collective == mpi::Collective::Barrier && !request.p2p && !request.halo) {
    setup.collective = mpi::Collective::Allreduce;
    setup.barrier = true;
  }
  std::vector<mpi::HaloMessage> halo_messages;  // a halo's messages, made once for its class and its probe
  if (request.halo) {
    // A halo exchange (grouped sends and receives to the neighbours): the network's step latency if a neighbour is on
    // another node, else that of the links between a node's GPUs.
    std::string halo_error;
    halo_messages = mpi::halo_messages(request.grid, layout.ranks, halo_error);
    if (!halo_error.empty()) {
      diags_.error(DiagKind::InvalidDecomposition, s.range, fmt::format("`mpi halo`: {}", halo_error));
      return std::nullopt;
    }
    setup.p2p_op = s.name;
    setup.p2p_class = setup.intra;
    for (const auto& m : halo_messages)
      if (layout.node[size_t(m.from)] != layout.node[size_t(m.to)]) setup.p2p_class = mpi::LinkClass::Net;
  }
  if (request.p2p) {
    // A point-to-point operation: the class of its route (the network if it crosses one, else PCI if a link of it is
    // PCI, else NVLink), whose per-step latency it pays; a message's channels at the LL threshold (Setup).
    setup.p2p_op = s.name;
    setup.p2p_class = mpi::LinkClass::NvLink;
    if (auto route = shortest_path(m_.topology, placement.gpu[size_t(request.from)], placement.gpu[size_t(request.to)],
                                   "", link_costs()))
      for (const auto& hop : *route) {
        mpi::LinkClass cls = classes[size_t(hop.link)];
        if (cls == mpi::LinkClass::Net || (cls == mpi::LinkClass::Pcie && setup.p2p_class == mpi::LinkClass::NvLink))
          setup.p2p_class = cls;
      }
  }
  setup.p2p_ll_channels = layout.nodes == 1 && setup.intra == mpi::LinkClass::Pcie ? 2 : 1;
  if (layout.nodes > 1) {  // the first rank's node's NICs: CollNet Direct's heads, and the channels across nodes
    const std::string& gpu_path = m_.topology.components[size_t(placement.gpu[0])].path;
    const std::string node = gpu_path.starts_with("node[") ? gpu_path.substr(0, gpu_path.find(']') + 2) : "";
    for (const auto& comp : m_.topology.components)
      if (comp.kind == "nic" && comp.path.starts_with(node)) ++setup.nics_per_node;
  }

  ValueId tau = kNoValue;
  engines::congestion::FabricMap fabrics = fabric_map(tau);
  mpi::FabricCommEngine::Operation op;
  op.what = request.p2p || request.halo ? s.name : mpi::collective_name(request.collective);
  op.transport = mpi::Transport::GpuDirect;
  op.ranks = layout.ranks;
  op.nodes = layout.nodes;
  op.ranks_per_node = ppn;

  EngineCall call{nullptr, {}};
  // The operation's bytes: a halo's largest message (which decides its protocol), else the size input.
  // A barrier: its all-reduce's one element, taken as 4 bytes (a float; the time is its latency either way).
  call.inputs.push_back(setup.barrier ? b_.constant(4, Dim::byte(), s.range)
                        : request.halo ? b_.binary(Opcode::Max, request.sizes[0],
                                                   b_.binary(Opcode::Max, request.sizes[1], request.sizes[2], s.range),
                                                   s.range)
                                       : request.sizes[0]);
  // The library's constants, in the engine's order.
  const TypeDecl& lib = *info.library;
  for (const auto& name : mpi::nccl_library_attributes()) {
    const Attr* a = nullptr;
    for (const auto& attr : lib.attrs)
      if (attr.name == name) a = &attr;
    if (!a) {  // sema requires every one; a guard for hand-built programs
      diags_.error(DiagKind::MissingAttribute, lib.name_range, fmt::format("library `{}` lacks `{}`", lib.name, name));
      return std::nullopt;
    }
    ValueId v = lower_expr(*a->value);
    const std::string what = fmt::format("`{}` of library `{}`", name, lib.name);
    // The channel bandwidth divides a ring's bandwidth into channels and the ring's plateau multiplies a latency
    // (NCCL's values: 20 to 45 GB/s, 1.4 and 1.9): zero would take the per-channel caps or that latency away.
    add_check(name == "channel_bw" || name == "ring_plateau" ? CheckKind::Positive : CheckKind::NonNegative, v,
              a->value->range, what);
    // An efficiency is a share of a link's (or a graph's) bandwidth; a channel count and a threshold in bytes are
    // whole numbers (NCCL_MAX_NVLS_ARITY, NCCL_P2P_LL_THRESHOLD).
    if (name.ends_with("_efficiency"))
      m_.checks.push_back({CheckKind::InRange, v, b_.constant(0, Dim(), a->value->range),
                           b_.constant(1, Dim(), a->value->range), a->value->range, what});
    if (name == "nvls_max_arity" || name == "p2p_ll_threshold")
      m_.checks.push_back({CheckKind::WholeNumber, v, kNoValue, kNoValue, a->value->range, what});
    call.inputs.push_back(v);
  }
  if (request.gpus_per_thread > layout.ranks_per_node) {
    diags_.error(DiagKind::InvalidMapping, find_attr(s.attrs, "gpus_per_thread")->value->range,
                 fmt::format("`gpus_per_thread = {}`: one thread launches on the GPUs of its own node, and `mpi {}` "
                             "places {} rank{} on a node",
                             request.gpus_per_thread, s.name, layout.ranks_per_node,
                             layout.ranks_per_node == 1 ? "" : "s"));
    return std::nullopt;
  }
  call.inputs.push_back(b_.constant(double(request.gpus_per_thread), Dim::count(), s.range));

  std::string error;
  // One probe: a round of messages built on the fabric; its inputs follow the call's so far.
  // `size`: the bytes input of the probe (the engine sets the probes' own, except the all-to-all's).
  // With `halo`, the probe is the halo exchange's messages (every rank's at once) and takes its three sizes.
  auto probe = [&](std::vector<mpi::Round> rounds, const mpi::FabricPlacement& where, const mpi::Layout& lay,
                   double bytes_per_rank, mpi::NcclEngine::Probe& out, ValueId size, const char* what,
                   const std::vector<mpi::HaloMessage>* halo = nullptr) -> bool {
    mpi::FabricCommEngine::Operation o = op;
    o.what = what;
    o.algorithm = "";
    o.ranks = lay.ranks;
    o.nodes = lay.nodes;
    o.halo = halo != nullptr;
    if (halo) o.grid = request.grid;
    // Every message is a flow, or with the fast path those of one period: the engine refuses what would not fit
    // in memory before building them (as the fabric model does).
    bool too_large = false;
    auto engine = mpi::FabricCommEngine::build(m_.topology, fabrics, link_costs(), o, where, rounds,
                                               halo ? *halo : std::vector<mpi::HaloMessage>{}, error,
                                               fabric_shared(&too_large));
    if (!engine) {
      DiagKind kind = too_large                                  ? DiagKind::ModelTooLarge
                      : error.find("no path") != std::string::npos ? DiagKind::NoPath
                                                                   : DiagKind::FabricError;
      diags_.error(kind, s.range, fmt::format("`mpi {}` on the nccl model: {}", request.name, error));
      return false;
    }
    out.engine = engine;
    out.bytes_per_rank = bytes_per_rank;
    out.input_at = int(call.inputs.size());
    if (engine->uses_tau()) call.inputs.push_back(tau);
    call.inputs.push_back(b_.constant(0, Dim::seconds(), s.range));  // no software overhead
    call.inputs.push_back(b_.constant(0, Dim::byte(), s.range));     // no host staging
    for (auto [link, dir] : engine->link_inputs()) {
      call.inputs.push_back(m_.topology.links[size_t(link)].bw[dir]);
      out.link_class.push_back(classes[size_t(link)]);
    }
    for (size_t i = 0; i < engine->link_inputs().size(); ++i) call.inputs.push_back(b_.constant(0, Dim::seconds(), s.range));
    if (halo) {
      for (int k = 0; k < mpi::kSizeKinds; ++k) call.inputs.push_back(request.sizes[size_t(k)]);
    } else {
      call.inputs.push_back(size);
      call.inputs.push_back(b_.constant(0, Dim::byte(), s.range));
    }
    out.input_count = int(call.inputs.size()) - out.input_at;
    return true;
  };
  const ValueId no_size = b_.constant(0, Dim::byte(), s.range);
  // The graphs' bandwidths (ring, node, network) price the collectives; point-to-point operations, the all-to-all,
  // a gather or scatter and a halo (NCCL's grouped sends and receives) have their own probe only, so a machine whose
  // rank order makes no ring still runs them.
  const bool p2p_only = !setup.p2p_op.empty() || request.collective == mpi::Collective::Alltoall;
  if (!p2p_only) {
    // The ring: one step of the all-gather ring, every rank sending to its successor on each channel (one channel
    // per rank of a node when the ring leaves the node, so the channels spread over the node's NICs as NCCL's do).
    int64_t channels = request.channels > 1 ? request.channels : layout.nodes > 1 ? ppn : 1;
    // A node's GPUs joined by direct links: NCCL's rings follow them (direct_link_rings), on one node for the ring
    // and, with more nodes, for the node's own ring.
    std::vector<std::vector<int>> node_rings;
    const int64_t first_node_ranks = std::min<int64_t>(ppn, layout.ranks);
    if (first_node_ranks >= 2) {
      std::vector<int> node_gpus(placement.gpu.begin(), placement.gpu.begin() + first_node_ranks);
      const int64_t want = layout.nodes == 1 && request.channels > 1 ? channels : 0;
      auto key = std::make_pair(node_gpus, want);  // the search is the same for every operation on these GPUs
      auto found = nccl_rings_.find(key);
      if (found == nccl_rings_.end())
        found = nccl_rings_.emplace(key, direct_link_rings(m_.topology, node_gpus, want, mpi::kNcclMaxChannels)).first;
      node_rings = found->second;
    }
    if (layout.nodes == 1 && !node_rings.empty()) {
      if (!probe({ring_round_of(node_rings, 0)}, placement, layout, 1, setup.ring, no_size, "ring probe"))
        return std::nullopt;
    } else {
      auto rounds = mpi::collective_rounds(layout, mpi::Collective::Allgather, mpi::Algorithm::Ring, true, channels);
      rounds.resize(1);
      rounds[0].repeat = 1;
      double per_rank = 0;
      for (const auto& m : rounds[0].messages) per_rank += m.first == 0 ? rounds[0].size_factor : 0;
      if (!probe(rounds, placement, layout, per_rank, setup.ring, no_size, "ring probe")) {
        if (layout.nodes == 1 && first_node_ranks >= 2)
          diags_.note(s.range, "the collective's ring follows the ranks in order: no ring over direct links between "
                               "the node's GPUs was found (NCCL's rings follow such links where they close a cycle)");
        return std::nullopt;
      }
    }
    if (layout.nodes > 1 && ppn >= 2) {
      // The node's own ring (the tree's and NVLS's intra-node bandwidth).
      mpi::Layout one = mpi::make_layout(ppn, ppn, ppn, mpi::Mapping{});
      mpi::FabricPlacement where;
      where.gpu.assign(placement.gpu.begin(), placement.gpu.begin() + ppn);
      std::vector<mpi::Round> rounds;
      if (!node_rings.empty()) {
        rounds.push_back(ring_round_of(node_rings, 0));
      } else {
        rounds = mpi::collective_rounds(one, mpi::Collective::Allgather, mpi::Algorithm::Ring, true, 1);
        rounds.resize(1);
        rounds[0].repeat = 1;
        rounds[0].size_factor = 1;
      }
      if (!probe(rounds, where, one, 1, setup.intra_probe, no_size, "intra-node probe")) return std::nullopt;
    }
    if (layout.nodes > 1) {
      // The network between two nodes: each rank of node 0 sends to its counterpart on node 1 (rail to rail); the
      // node's total is the rate the library's inter-node graph has.
      int64_t first_of_next = -1;
      for (int64_t r = 0; r < layout.ranks; ++r)
        if (layout.node[size_t(r)] != layout.node[0]) {
          first_of_next = r;
          break;
        }
      mpi::Round round;
      round.what = "node to node";
      int64_t pairs = 0;
      for (int64_t i = 0; i < ppn && first_of_next + i < layout.ranks; ++i) {
        if (layout.node[size_t(i)] != layout.node[0]) break;
        round.messages.emplace_back(int32_t(i), int32_t(first_of_next + i));
        ++pairs;
      }
      if (!probe({round}, placement, layout, double(pairs), setup.inter_probe, no_size, "inter-node probe"))
        return std::nullopt;
    }
  }
  if (request.collective == mpi::Collective::Alltoall) {
    // An alltoallv's probe is its own blocks' pairwise exchange (each message a flow of its size).
    setup.alltoallv = request.alltoallv;
    // Listed first, then made flows: refuse a list of p (p - 1) messages that would not fit in memory.
    if (std::string why; !request.alltoallv &&
                         !messages_fit(mpi::listed_messages(layout, mpi::Collective::Alltoall, mpi::Algorithm::Pairwise), why)) {
      diags_.error(DiagKind::ModelTooLarge, s.range, fmt::format("`mpi {}` on the nccl model: {}", request.name, why));
      return std::nullopt;
    }
    auto rounds = request.alltoallv
                      ? mpi::alltoallv_rounds(layout, request.matrix, mpi::Algorithm::Pairwise, true)
                      : mpi::collective_rounds(layout, mpi::Collective::Alltoall, mpi::Algorithm::Pairwise, true, 1);
    if (!probe(rounds, placement, layout, 0, setup.p2p, request.sizes[0], "alltoall")) return std::nullopt;
  }
  if (request.p2p) {  // ncclSend / ncclRecv of the window's messages in one group: all in flight at once
    auto rounds = mpi::p2p_rounds(layout, request.from, request.to, request.both, request.window, true);
    if (!probe(rounds, placement, layout, 0, setup.p2p, request.sizes[0], "point-to-point")) return std::nullopt;
  }
  if (gather_scatter) {  // the root's ncclRecv (ncclSend) of every other rank's block in one group
    if (!probe(root_round, placement, layout, 0, setup.p2p, request.sizes[0], s.name.c_str())) return std::nullopt;
  }
  if (request.halo)  // every rank's ncclSend / ncclRecv to its neighbours in one group
    if (!probe({}, placement, layout, 0, setup.p2p, no_size, "halo exchange", &halo_messages)) return std::nullopt;
  // An algorithm or protocol the library would not run here is an error, not a silent substitute.
  auto engine = std::make_shared<mpi::NcclEngine>(std::move(setup));
  if (request.nccl_algorithm >= 0 || request.nccl_protocol >= 0) {
    bool any = false;
    for (int a = 0; a < mpi::kNcclAlgos; ++a)
      for (int p = 0; p < mpi::kNcclProtos; ++p)
        if ((request.nccl_algorithm < 0 || a == request.nccl_algorithm) &&
            (request.nccl_protocol < 0 || p == request.nccl_protocol))
          any = any || engine->considers(mpi::NcclAlgo(a), mpi::NcclProto(p));
    if (!any) {
      std::vector<std::string> allowed;
      for (int a = 0; a < mpi::kNcclAlgos; ++a)
        for (int p = 0; p < mpi::kNcclProtos; ++p)
          if (engine->considers(mpi::NcclAlgo(a), mpi::NcclProto(p)))
            allowed.push_back(fmt::format("{}/{}", mpi::nccl_algo_name(mpi::NcclAlgo(a)),
                                          mpi::nccl_proto_name(mpi::NcclProto(p))));
      diags_.error(DiagKind::ConflictingAttributes, s.range,
                   fmt::format("NCCL does not run `mpi {}` {}{}{} on this machine and these ranks (NVLS needs a switch "
                               "with `nvls = 1` and NVLS trees more than one node; CollNet an all-reduce over nodes "
                               "whose network reduces, `sharp = 1`, and CollNet Direct an NVSwitch; LL128 needs "
                               "NVLink between the GPUs); it runs {}",
                               s.name,
                               request.nccl_algorithm >= 0 ? mpi::nccl_algo_name(mpi::NcclAlgo(request.nccl_algorithm)) : "",
                               request.nccl_algorithm >= 0 && request.nccl_protocol >= 0 ? " with " : "",
                               request.nccl_protocol >= 0 ? mpi::nccl_proto_name(mpi::NcclProto(request.nccl_protocol))
                                                          : "",
                               fmt::join(allowed, ", ")));
      return std::nullopt;
    }
  }
  call.engine = engine;
  return call;
}

}  // namespace gpm::lower
