// mpi_schema.cpp: the attribute tables of MPI sections and operations (one place to extend).
#include "frontend/mpi_schema.h"

#include <algorithm>

#include <map>
#include <string_view>

namespace gpm::frontend {
namespace {

using K = MpiAttrSpec::Kind;
const Dim kTime = Dim::seconds();
const Dim kBytes = Dim::byte();
const Dim kCount = Dim::count();

const char* kModels = "postal|maxrate|kmodel|fabric|nccl";
const char* kTransports = "host|staged|gpudirect|tcp";
const char* kStagingChunkDoc =
    "transport = staged: bytes of each piece a message is staged in, the pieces pipelined through the copies and the "
    "network (default 0: the whole message)";

std::vector<MpiAttrSpec> collective(const char* algorithms, bool has_bytes, bool has_segment = false) {
  std::vector<MpiAttrSpec> v = {
      {K::Quantity, "ranks", kCount, "", "ranks taking part (default: one node's ranks)"},
      {K::Keyword, "algorithm", {}, algorithms,
       "the algorithm, or auto: the model's default (docs/models.md lists them), an MPI library's choice where the run "
       "names one (`mpi_library`), NCCL's tuner's under the nccl model"},
      {K::Keyword, "model", {}, kModels, "the point-to-point model (default: the machine's)"},
      {K::Keyword, "transport", {}, kTransports, "where the buffers live (default: host)"},
  };
  if (has_bytes) v.push_back({K::Quantity, "bytes", kBytes, "", "bytes of the operation (per rank)"});
  if (has_bytes)
    v.push_back({K::Quantity, "element", kBytes, "",
                 "bytes of one element of the datatype, where an MPI library's choice counts elements (default 8 B)"});
  if (has_segment)
    v.push_back({K::Quantity, "segment", kBytes, "", "algorithm = pipeline or double_binary_tree: bytes per segment (default: the fastest)"});
  if (std::string_view(algorithms).find("ring") != std::string_view::npos)
    v.push_back({K::Quantity, "channels", kCount, "", "fabric model, algorithm = ring: rings side by side (default 1)"});
  if (has_bytes) {
    v.push_back({K::Keyword, "protocol", {}, "ll|ll128|simple", "nccl model: the protocol (default: the tuner's choice)"});
    v.push_back({K::Quantity, "gpus_per_thread", kCount, "",
                 "nccl model: GPUs one host thread launches the operation on, in one group (default 1)"});
    v.push_back({K::Keyword, "launch", {}, "serial|overlapped",
                 "nccl model: serial (default): the launch, then the operation; overlapped: one of a loop of the "
                 "same operation issued back to back, the next launch overlapping this run"});
  }
  return v;
}

// Point-to-point operations (OSU-style latency and bandwidth tests): two ranks of a job, a window of messages.
std::vector<MpiAttrSpec> point_to_point() {
  return {
      {K::Quantity, "ranks", kCount, "", "ranks of the job (default: one node's ranks); `from` and `to` are two of them"},
      {K::Quantity, "from", kCount, "", "the sending rank (default 0)"},
      {K::Quantity, "to", kCount, "", "the receiving rank (default 1)"},
      {K::Quantity, "bytes", kBytes, "", "bytes of each message"},
      {K::Quantity, "window", kCount, "", "messages sent back to back (default 1)"},
      {K::Keyword, "model", {}, kModels, "the point-to-point model (default: the machine's)"},
      {K::Keyword, "transport", {}, kTransports, "where the buffers live (default: host)"},
  };
}

// The nccl model's attributes of an operation of grouped sends and receives (send, recv, sendrecv, halo): its
// protocol (LL or Simple, as NCCL moves point-to-point messages), the launch's GPUs per thread and its overlap.
std::vector<MpiAttrSpec> with_nccl_p2p(std::vector<MpiAttrSpec> v, const char* protocol_doc) {
  v.push_back({K::Keyword, "protocol", {}, "ll|simple", protocol_doc});
  v.push_back({K::Quantity, "gpus_per_thread", kCount, "",
               "nccl model: GPUs one host thread launches the operation on, in one group (default 1)"});
  v.push_back({K::Keyword, "launch", {}, "serial|overlapped",
               "nccl model: serial (default) or overlapped with the previous operation's run"});
  return v;
}

const std::map<std::string, std::vector<MpiAttrSpec>, std::less<>>& schemas() {
  static const std::map<std::string, std::vector<MpiAttrSpec>, std::less<>> table = [] {
    std::map<std::string, std::vector<MpiAttrSpec>, std::less<>> t = {
      {"section",
       {{K::Quantity, "short_max", kBytes, "", "largest message sent with the short protocol"},
        {K::Quantity, "eager_max", kBytes, "", "largest message sent with the eager protocol"},
        {K::Quantity, "ranks_per_node", kCount, "", "MPI ranks per node (default: the node's GPUs)"},
        {K::Quantity, "ranks_per_socket", kCount, "", "MPI ranks per socket (default: the GPUs of a socket)"},
        {K::Keyword, "mapping", {}, "linear|cyclic|block|explicit", "rank-to-node mapping (default: linear)"},
        {K::Keyword, "model", {}, kModels, "the default point-to-point model (default: kmodel)"},
        {K::Quantity, "copy_latency", kTime, "", "host-staged MPI: latency of each device-host copy"},
        {K::Quantity, "copy_per_byte", kTime / kBytes, "", "host-staged MPI: time per byte of each copy"},
        {K::Quantity, "pin_delay", kTime, "", "GPUDirect: pinning delay of each message"},
        {K::Quantity, "overhead", kTime, "", "fabric model: software latency of each step's messages (default 0)"},
        {K::Quantity, "staging_chunk", kBytes, "", kStagingChunkDoc},
        {K::Quantity, "mtu", kBytes, "",
         "transport = tcp: the network's IP MTU, the largest packet of its Ethernet frames (default 1500 B)"},
        {K::Keyword, "library", {}, "", "nccl model: the `library` type of the library's constants (stdlib/nccl.gpm)"},
        {K::Keyword, "mpi_library", {}, "",
         "the MPI library whose choice of algorithm collectives that name none follow: an `mpi_library` type "
         "(stdlib/mpi.gpm)"}}},
      {"network",
       {{K::Keyword, "topology", {}, "fattree", "the topology between the nodes (a tapered fat tree)"},
        {K::Quantity, "nodes_per_leaf", kCount, "", "nodes under each leaf switch"},
        {K::Quantity, "leaf_switches", kCount, "", "leaf switches (optional: bounds the nodes an operation may use)"},
        {K::Quantity, "levels", kCount, "", "switch levels of the tree (2 or 3; default 3)"},
        {K::Quantity, "taper", kCount, "", "down-link to up-link ratio at a leaf (default 1: no taper)"},
        {K::Quantity, "link_bw", kBytes / kTime, "", "bandwidth of one node's link to its leaf switch"},
        {K::Quantity, "switch_latency", kTime, "", "latency of one switch traversal"}}},
      {"cluster",
       {{K::Quantity, "nodes", kCount, "", "copies of the machine's node: node[0], node[1], ..."},
        {K::Keyword, "topology", {}, "fat_tree|rail|dragonfly", "how the nodes' NICs reach the switches"},
        {K::Quantity, "nics_per_leaf", kCount, "", "NIC ports under each leaf switch"},
        {K::Quantity, "spines", kCount, "", "spine switches, each joined to every leaf (with cores: per pod)"},
        {K::Quantity, "link_bw", kBytes / kTime, "", "bandwidth of a NIC's link to its leaf, each direction"},
        {K::Quantity, "taper", kCount, "", "a leaf's down-link to up-link capacity (default 1: no taper)"},
        {K::Quantity, "link_latency", kTime, "", "latency of every cluster link (default 0)"},
        {K::Quantity, "sharp", kCount, "",
         "1 when the network's switches reduce in the network (InfiniBand SHARP: NCCL's CollNet), default 0"},
        {K::Quantity, "cores", kCount, "", "a third level: core switches above the pods' spines (a multiple of spines)"},
        {K::Quantity, "leaves_per_pod", kCount, "", "with cores: leaves per pod, each joined to its pod's spines"},
        {K::Quantity, "core_taper", kCount, "", "with cores: a spine's down-link to up-link capacity (default 1)"},
        {K::Quantity, "nics_per_router", kCount, "", "dragonfly: NIC ports on each router"},
        {K::Quantity, "routers_per_group", kCount, "", "dragonfly: routers of a group, all joined to each other"},
        {K::Quantity, "global_links", kCount, "", "dragonfly: links between each two groups (default 1)"},
        {K::Quantity, "local_bw", kBytes / kTime, "", "dragonfly: a link between two routers of a group (default link_bw)"},
        {K::Quantity, "global_bw", kBytes / kTime, "", "dragonfly: a link between two groups (default link_bw)"}}},
      {"halo",
       {{K::Quantity, "ranks", kCount, "", "ranks taking part (default: one node's ranks)"},
        {K::Quantity, "dims", kCount, "", "2 or 3 (default: 2, or 3 when pz is given)"},
        {K::Quantity, "px", kCount, "", "ranks along x, the fastest-varying dimension"},
        {K::Quantity, "py", kCount, "", "ranks along y"},
        {K::Quantity, "pz", kCount, "", "ranks along z"},
        {K::Truth, "periodic", {}, "", "whether the grid wraps around (default: true)"},
        {K::Quantity, "neighbours", kCount, "", "4 or 8 in 2D, 6 or 26 in 3D (default: 4 or 6)"},
        {K::Quantity, "face", kBytes, "", "bytes sent to a neighbour sharing a face"},
        {K::Quantity, "edge", kBytes, "", "bytes sent to a neighbour sharing an edge (3D, 26 neighbours)"},
        {K::Quantity, "corner", kBytes, "", "bytes sent to a neighbour sharing a corner (8 or 26 neighbours)"},
        {K::Keyword, "model", {}, kModels, "the point-to-point model (default: the machine's)"},
        {K::Keyword, "transport", {}, kTransports, "where the buffers live (default: host)"}}},
      {"send", point_to_point()},       // `from` sends to `to`
      {"recv", point_to_point()},       // `to` receives from `from`: the same messages, written at their receiver
      {"sendrecv", point_to_point()},   // and `to` to `from` at the same time
      {"allreduce", collective("auto|recursive_doubling|ring|rabenseifner|binomial_tree|hierarchical|double_binary_tree|"
                               "in_network|linear|allgather_reduce|tree|nvls|nvls_tree|collnet_direct|collnet_chain",
                               true, true)},
      {"reduce", collective("auto|binomial_tree|rabenseifner|pipeline|double_binary_tree|linear|chain|binary_tree|"
                            "in_order_binary_tree|knomial|ring",
                            true, true)},
      {"bcast", collective("auto|binomial_tree|scatter_allgather|scatter_doubling_allgather|pipeline|double_binary_tree|"
                           "linear|chain|binary_tree|split_binary_tree|knomial|ring",
                           true, true)},
      {"allgather", collective("auto|ring|recursive_doubling|bruck|neighbor_exchange|linear|sparbit|direct_messaging|nvls",
                                  true)},
      {"alltoall", collective("auto|pairwise|bruck|scattered|linear", true)},
      {"alltoallv",
       {{K::Quantity, "ranks", kCount, "", "ranks taking part (default: one node's ranks)"},
        {K::Quantity, "bytes", kBytes, "",
         "bytes rank `src` sends rank `dst`: an expression of the two ranks, evaluated for every pair"},
        {K::Keyword, "algorithm", {}, "auto|pairwise|scattered",
         "the algorithm, or auto: the model's default (pairwise), an MPI library's choice where the run names one"},
        {K::Keyword, "model", {}, kModels, "the point-to-point model (default: the machine's)"},
        {K::Keyword, "transport", {}, kTransports, "where the buffers live (default: host)"},
        {K::Keyword, "protocol", {}, "ll|ll128|simple", "nccl model: the protocol (default: the tuner's choice)"},
        {K::Quantity, "gpus_per_thread", kCount, "",
         "nccl model: GPUs one host thread launches the operation on, in one group (default 1)"},
        {K::Keyword, "launch", {}, "serial|overlapped",
         "nccl model: serial (default) or overlapped with the previous operation's run"}}},
      {"reduce_scatter", collective("auto|ring|recursive_halving|pairwise|butterfly|nvls", true)},
      {"barrier", collective("auto|dissemination|recursive_doubling|binomial_tree|linear|double_ring", false)},
      {"gather", collective("auto|binomial_tree|linear|linear_sync", true)},
      {"scatter", collective("auto|binomial_tree|linear", true)},
    };
    for (const char* name : {"send", "recv", "sendrecv"})
      t[name] = with_nccl_p2p(t[name], "nccl model: the protocol (default: the library's rule, LL up to `p2p_ll_threshold`)");
    t["halo"] = with_nccl_p2p(t["halo"], "nccl model: the protocol (default: the library's rule for the largest message)");
    // Every operation that names a transport may stage its messages in pieces (the section gives the default).
    for (auto& [name, specs] : t) {
      if (name == "section") continue;
      if (std::any_of(specs.begin(), specs.end(), [](const MpiAttrSpec& a) { return a.name == std::string_view("transport"); }))
        specs.push_back({K::Quantity, "staging_chunk", kBytes, "", kStagingChunkDoc});
    }
    return t;
  }();
  return table;
}

const std::vector<MpiAttrSpec>& settings() {
  static const std::vector<MpiAttrSpec> table = {
      {K::Keyword, "comm_model", {}, kModels, "the point-to-point model of every MPI operation"},
      {K::Keyword, "transport", {}, kTransports, "the transport of every MPI operation"},
      {K::Keyword, "mpi_library", {}, "none|mpich|openmpi",
       "the MPI library whose choice of algorithm collectives follow (none: the models' defaults)"},
  };
  return table;
}

}  // namespace

const std::vector<MpiAttrSpec>* mpi_schema(std::string_view owner) {
  auto it = schemas().find(owner);
  return it == schemas().end() ? nullptr : &it->second;
}

const MpiAttrSpec* find_mpi_attr(std::string_view owner, std::string_view name) {
  const auto* schema = mpi_schema(owner);
  if (!schema) return nullptr;
  for (const auto& spec : *schema)
    if (name == spec.name) return &spec;
  return nullptr;
}

std::vector<std::string> mpi_words(const MpiAttrSpec& spec) {
  std::vector<std::string> out;
  std::string_view s = spec.keywords;
  while (!s.empty()) {
    size_t bar = s.find('|');
    out.emplace_back(s.substr(0, bar));
    if (bar == std::string_view::npos) break;
    s.remove_prefix(bar + 1);
  }
  return out;
}

std::string mpi_operation_names() {
  std::string out;
  for (const auto& [name, _] : schemas())
    if (name != "section" && name != "network" && name != "cluster") out += (out.empty() ? "" : ", ") + name;
  return out;
}

const MpiAttrSpec* find_keyword_setting(std::string_view name) {
  for (const auto& spec : settings())
    if (name == spec.name) return &spec;
  return nullptr;
}

ClusterAttrCheck check_cluster_attrs(const std::vector<std::string>& present, std::string_view topology) {
  const bool dragonfly = topology == "dragonfly";
  static const std::vector<std::string> tree_needs = {"nodes", "topology", "nics_per_leaf", "spines", "link_bw"};
  static const std::vector<std::string> dragonfly_needs = {"nodes", "topology", "nics_per_router",
                                                           "routers_per_group", "link_bw"};
  static const std::vector<std::string> tree_only = {"nics_per_leaf", "spines", "taper", "cores", "leaves_per_pod",
                                                     "core_taper"};
  static const std::vector<std::string> dragonfly_only = {"nics_per_router", "routers_per_group", "global_links",
                                                          "local_bw", "global_bw"};
  auto has = [&](const std::string& name) { return std::find(present.begin(), present.end(), name) != present.end(); };
  ClusterAttrCheck out;
  for (const auto& name : dragonfly ? dragonfly_needs : tree_needs)
    if (!has(name)) out.missing.push_back(name);
  for (const auto& name : dragonfly ? tree_only : dragonfly_only)
    if (has(name)) out.foreign.push_back(name);
  return out;
}

}  // namespace gpm::frontend
