// nccl_model_test.cpp: the nccl model through the whole pipeline: NCCL's tuner formulas (src/graph/tuning.cc)
// computed by hand for a DGX A100, a DGX H100 and two DGX H100 nodes whose network reduces (CollNet) against the
// engine's candidates, the tuner's choice, forced choices, and the library attribute lists of the schema and the
// engine kept equal.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <cstdio>
#include <functional>
#include <set>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/pipeline.h"
#include "engines/mpi/nccl_engine.h"
#include "frontend/schema.h"

using namespace gpm;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;

// The JSON detail of the one operation of `app` (written to a temporary file) on `machine`.
nlohmann::json detail_of(const std::string& machine, const std::string& app_text,
                         std::vector<driver::Setting> settings = {}) {
  // One file per process and text: ctest runs the test cases as processes side by side.
  std::string path = "nccl_model_test_" + std::to_string(::getpid()) + "_" +
                     std::to_string(std::hash<std::string>{}(app_text)) + ".gpm";
  std::ofstream(path) << app_text;
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  settings.push_back({"comm_model", "nccl"});
  // `machine` is a file of machines/, or the text of a machine (written beside the app).
  std::string machine_path = kRoot + "/machines/" + machine;
  if (machine.find('{') != std::string::npos) {
    machine_path = "m_" + path;
    std::ofstream(machine_path) << machine;
  }
  auto compiled = s.compile(machine_path, path, settings);
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  std::remove(path.c_str());
  if (machine_path != kRoot + "/machines/" + machine) std::remove(machine_path.c_str());
  auto doc = nlohmann::json::parse(backend::json_report(e));
  return doc["phases"][0]["operations"][0]["detail"];
}

// A candidate's time as the tuner prices it: the operation's time less the host's launch.
double candidate(const nlohmann::json& d, const std::string& algo, const std::string& proto) {
  for (const auto& c : d["candidates"])
    if (c["algorithm"] == algo && c["protocol"] == proto) return c["time_s"].get<double>() - d["launch_s"].get<double>();
  return NAN;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

TEST_CASE("nccl: the library type's attributes are the engine's inputs, in a known order") {
  std::set<std::string> schema, engine;
  for (const auto& spec : *frontend::attribute_schema("library")) schema.insert(spec.name);
  for (const auto& name : mpi::nccl_library_attributes()) engine.insert(name);
  CHECK(schema == engine);
  CHECK(int(mpi::nccl_library_attributes().size()) == mpi::nccl_in::kCount);
}

TEST_CASE("nccl: DGX A100 all-reduce of 4 MiB on 8 ranks, every candidate by hand") {
  auto d = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 4 MiB } }");
  const double n = 4.0 * 1024 * 1024, p = 8, steps = 2 * (p - 1);
  // The ring's bandwidth: 12 NVLink 3 links of 25 GB/s rated at 20 GB/s each (SM80_NVLINK_BW) = 240 GB/s, so 12
  // channels of channel_bw = 20 GB/s.
  const double ring = 240e9, ch = 12;
  CHECK(near(d["ring_bus_bw"].get<double>(), ring));
  // Ring: base + 2 (p - 1) NVLink latencies; bus bandwidth LL min(87.7, ring / 2), LL128 min(0.92 ring, 20 ch),
  // Simple the ring; algorithm bandwidth = bus x p / (2 (p - 1)).
  auto ring_time = [&](double base, double hw, double bus) { return (base + steps * hw) * 1e-6 + n / (bus * p / steps); };
  CHECK(near(candidate(d, "ring", "LL"), ring_time(6.6, 0.6, 87.7e9)));
  CHECK(near(candidate(d, "ring", "LL128"), ring_time(14.0, 1.9, std::min(0.92 * ring, 20e9 * ch))));
  CHECK(near(candidate(d, "ring", "Simple"), ring_time(8.4, 3.4, ring)));
  // Tree (one node): base + 2 (p - 1) intra latencies; bus min(0.92 ring, 24 ch) then LL / 3.8 (cap 87.7), LL128
  // x 7/9 (cap 20 ch), then NCCL's tree correction for an all-reduce of 4 MiB (2^16 units of 64 B: LL 0.7, LL128
  // 0.8, Simple 0.7); algorithm bandwidth = bus / 2.
  const double tree = std::min(0.92 * ring, 24e9 * ch);
  auto tree_time = [&](double base, double hw, double bus) { return (base + 2 * (p - 1) * hw) * 1e-6 + n / (bus / 2); };
  CHECK(near(candidate(d, "tree", "LL"), tree_time(6.8, 0.6, std::min(tree / 3.8, 87.7e9) * 0.7)));
  CHECK(near(candidate(d, "tree", "LL128"), tree_time(14.0, 1.25, std::min(tree * 7 / 9, 20e9 * ch) * 0.8)));
  CHECK(near(candidate(d, "tree", "Simple"), tree_time(8.4, 4.0, tree * 0.7)));
  // No NVLS on Ampere, and the tuner takes the least time.
  CHECK(std::isnan(candidate(d, "nvls", "Simple")));
  double best = INFINITY;
  for (const auto& c : d["candidates"]) best = std::min(best, c["time_s"].get<double>());
  CHECK(near(candidate(d, d["algorithm"].get<std::string>(), d["protocol"].get<std::string>()) + d["launch_s"].get<double>(), best));
  CHECK(d["algorithm"] == "ring");
  CHECK(d["protocol"] == "LL128");
}

TEST_CASE("nccl: a named algorithm and protocol are kept, and the link bandwidths drive the time") {
  auto d = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 1 GiB; algorithm = tree; protocol = ll } }");
  CHECK(d["algorithm"] == "tree");
  CHECK(d["protocol"] == "LL");
  CHECK(d["chosen_by"] == "the operation");
  auto fast = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 1 GiB } }");
  auto slow = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 1 GiB } }", {{"nvlink3_bw", "5 GB/s"}});
  CHECK(near(slow["ring_bus_bw"].get<double>(), fast["ring_bus_bw"].get<double>() / 5));
}

TEST_CASE("nccl: DGX H100 all-reduce on one node considers NVLS (NVSwitch 3) and prices it by hand") {
  auto d = detail_of("dgx_h100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 1 GiB } }");
  const double n = 1024.0 * 1024 * 1024, p = 8;
  // 18 NVLink 4 links of 25 GB/s rated at 20.6 GB/s: 370.8 GB/s; the NVLS graph: a channel per GPU (8), each
  // GPU's link carrying 9 channels' bandwidth (twice for the channel it heads), efficiency 0.85,
  // bus = 8 x (370.8 / 9 x 0.85 x 7 / 8 x 2); latency 25 us; algorithm bandwidth = bus x p / (2 (p - 1)).
  const double intra = 18 * 20.6e9;
  CHECK(near(d["ring_bus_bw"].get<double>(), intra));
  double bus = 8 * (intra / 9 * 0.85 * 7 / 8 * 2);
  CHECK(near(candidate(d, "nvls", "Simple"), 25e-6 + n / (bus * p / (2 * (p - 1)))));
  CHECK(d["algorithm"] == "nvls");
}

TEST_CASE("nccl: all-gather's bytes are one rank's part, NCCL's the gathered buffer") {
  auto d = detail_of("dgx_a100.gpm", "app a { mpi allgather { ranks = 8; bytes = 64 MiB; algorithm = ring; protocol = simple } }");
  const double n = 8 * 64.0 * 1024 * 1024, p = 8;
  CHECK(near(candidate(d, "ring", "Simple"), (8.4 + (p - 1) * 3.4) * 1e-6 + n / (240e9 * p / (p - 1))));
}

TEST_CASE("nccl: the host launches an operation on each GPU of its thread, one after another") {
  // stdlib/nccl.gpm: launch_overhead 6.06 us for the first GPU, launch_per_gpu 3.89 us for each further one.
  auto one = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 8 B } }");
  auto eight = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 8 B; gpus_per_thread = 8 } }");
  CHECK(near(one["launch_s"].get<double>(), 6.06e-6));
  CHECK(near(eight["launch_s"].get<double>(), 6.06e-6 + 7 * 3.89e-6));
  CHECK(eight["gpus_per_thread"].get<double>() == 8);
  // The tuner's choice and times do not depend on the launch; every candidate carries it.
  CHECK(one["algorithm"] == eight["algorithm"]);
  CHECK(one["protocol"] == eight["protocol"]);
  CHECK(near(candidate(one, "ring", "LL"), candidate(eight, "ring", "LL")));
  CHECK(near(candidate(one, "tree", "Simple"), candidate(eight, "tree", "Simple")));
}

TEST_CASE("nccl: two DGX H100 nodes whose network reduces (SHARP) consider CollNet, priced by hand") {
  const std::string app = "app a { mpi allreduce { ranks = 16; bytes = 1 GiB } }";
  auto d = detail_of("dgx_h100_cluster.gpm", app, {{"sharp", "1"}});
  const double n = 1024.0 * 1024 * 1024, ppn = 8;
  // The intra-node graph: 18 NVLink 4 links of 25 GB/s rated at 20.6 GB/s. CollNet Direct: 8 GPUs over 8 NICs
  // (factor 1), x 0.85 on Hopper; Chain: the graph's bandwidth; both at half the bus bandwidth (not a ring).
  const double intra = 18 * 20.6e9;
  // Latencies (Simple, base 0): Direct 2 (min(1, ppn - 1) x 3.7 us + (ppn - 1) x 0.4 us) + 31 us; Chain
  // 2 (ppn - 1) x 2.8 us + 30 us.
  double direct = (2 * (3.7 + (ppn - 1) * 0.4) + 31) * 1e-6 + n / (intra * 0.85 / 2);
  double chain = (2 * (ppn - 1) * 2.8 + 30) * 1e-6 + n / (intra / 2);
  CHECK(near(candidate(d, "collnet_direct", "Simple"), direct));
  CHECK(near(candidate(d, "collnet_chain", "Simple"), chain));
  // Without SHARP neither is considered.
  auto plain = detail_of("dgx_h100_cluster.gpm", app);
  CHECK(std::isnan(candidate(plain, "collnet_direct", "Simple")));
  CHECK(std::isnan(candidate(plain, "collnet_chain", "Simple")));
}

TEST_CASE("nccl: two DGX H100 nodes price the NVLS tree by hand, its channels one per GPU of a node") {
  auto d = detail_of("dgx_h100_cluster.gpm", "app a { mpi allreduce { ranks = 16; bytes = 1 GiB } }",
                     {{"nodes_in_cluster", "2"}});
  const double n = 1024.0 * 1024 * 1024, p = 16;
  // Per channel (8 channels, one per GPU): the intra-node share 370.8 / 9 x 0.85 x 7 / 8 x 2 = 61.3 GB/s, the
  // network's 8 x 50 GB/s / 8 x 2 (two nodes) = 100 GB/s, and the library's cap for two nodes, 57.7 GB/s: the cap.
  // Latency 25 us + 2 log2(2) x 20.9 us; algorithm bandwidth = bus x p / (2 (p - 1)).
  const double bus = 8 * 57.7e9;
  CHECK(near(candidate(d, "nvls_tree", "Simple"), (25 + 2 * 20.9) * 1e-6 + n / (bus * p / (2 * (p - 1)))));
  // Four ranks of one node: an NVLS graph of four channels, each GPU's link carrying five channels' bandwidth.
  auto four = detail_of("dgx_h100.gpm", "app a { mpi allreduce { ranks = 4; bytes = 1 GiB } }");
  const double bus4 = 4 * (18 * 20.6e9 / 5 * 0.85 * 3 / 4 * 2);
  CHECK(near(candidate(four, "nvls", "Simple"), 25e-6 + n / (bus4 * 4 / 6)));
}

TEST_CASE("nccl: on GPUs joined by direct links the rings follow the links, several at once, as NCCL's search does") {
  // Four GPUs in a full mesh of NVLink 4 (6 links of 25 GB/s per pair, rated 20.6 GB/s each: 123.6 GB/s), no
  // switch. NCCL's rings use every link: the six directed rings over the mesh, each directed link on two of them,
  // give a GPU its three links' 370.8 GB/s. Rank order alone (0 1 2 3) would use one link of each GPU: 123.6 GB/s.
  const std::string mesh = R"(
machine mesh4 {
  mpi { model = fabric; library = nccl_hopper }
  node {
    cpu c
    gpu g[4] : G
    link c <-> g[*] { bw = 64 GB/s }
    link g[0] <-> g[1], g[0] <-> g[2], g[0] <-> g[3], g[1] <-> g[2], g[1] <-> g[3], g[2] <-> g[3] : NV { bw = 150 GB/s }
  }
}
type NV : link {}
type G : gpu { peak_fp64 = 1 Tflop/s; mem_bw = 1 TB/s; mem_size = 80 GB }
)";
  auto d = detail_of(mesh, "app a { mpi allreduce { ranks = 4; bytes = 1 GiB } }");
  CHECK(near(d["ring_bus_bw"].get<double>(), 3 * 6 * 20.6e9));
  // Named channels: exactly that many rings, the first two of them disjoint (a ring and its reverse): two links of
  // each GPU, 247.2 GB/s.
  auto two = detail_of(mesh, "app a { mpi allreduce { ranks = 4; bytes = 1 GiB; channels = 2 } }");
  CHECK(near(two["ring_bus_bw"].get<double>(), 2 * 6 * 20.6e9));
  // Three ranks of the four: the rings over their own links, two of each GPU's.
  auto three = detail_of(mesh, "app a { mpi allreduce { ranks = 3; bytes = 1 GiB } }");
  CHECK(near(three["ring_bus_bw"].get<double>(), 2 * 6 * 20.6e9));
}

TEST_CASE("nccl: a tree over two nodes runs at its intra-node bandwidth up to twice the network's, over more the least") {
  const std::string app = "app a { mpi allreduce { ranks = 16; bytes = 1 GiB; algorithm = tree; protocol = simple } }";
  const double n = 1024.0 * 1024 * 1024;
  // NCCL's Hopper caps per channel: 41.4 GB/s (two nodes), 36.0 GB/s (more); channels across nodes: one per NIC
  // (eight), not duplicated at 25 GB/s a NIC (ncclTopoDupChannels: only above 25 GB/s).
  auto tree_bus = [&](const nlohmann::json& d, double inter_factor, double per_channel) {
    const double intra = d["intra_bus_bw"].get<double>(), inter = d["inter_bus_bw"].get<double>();
    CHECK(d["ring_bus_bw"].get<double>() / 8 <= 25e9);
    return std::min(std::min(intra, inter_factor * inter) * 0.92, 8 * per_channel);
  };
  // Two DGX H100 nodes on 200 Gb/s NICs: the node-to-node rate (8 x 25 GB/s) is under the NVLink's 370.8 GB/s, and
  // twice it is not; tuning.cc's tree over two nodes takes the intra-node graph, which the search holds under twice
  // the inter-node one. Latency 92.4 us (8.4 us base, 2 x (7 x 4 us NVLink + 14 us network)); half the bus bandwidth.
  auto two = detail_of("dgx_h100_cluster.gpm", app, {{"nodes_in_cluster", "2"}, {"net_bw", "200Gb/s"}});
  CHECK(two["inter_bus_bw"].get<double>() < two["intra_bus_bw"].get<double>());
  CHECK(near(candidate(two, "tree", "Simple"), 92.4e-6 + n / (tree_bus(two, 2, 41.4e9) / 2)));
  CHECK(tree_bus(two, 2, 41.4e9) > two["inter_bus_bw"].get<double>());
  // Four nodes: the inter-node bandwidth bounds the tree; latency 8.4 us + 2 x (7 x 4 us + 2 x 14 us).
  auto four = detail_of("dgx_h100_cluster.gpm",
                        "app a { mpi allreduce { ranks = 32; bytes = 1 GiB; algorithm = tree; protocol = simple } }",
                        {{"nodes_in_cluster", "4"}, {"net_bw", "200Gb/s"}});
  CHECK(near(candidate(four, "tree", "Simple"), 120.4e-6 + n / (tree_bus(four, 1, 36.0e9) / 2)));
}

TEST_CASE("nccl: across nodes a channel per NIC, duplicated only above the library's rates") {
  // Two quad-GH200 nodes: four 200 Gb/s NICs (25 GB/s: not above dup_min_bw), four channels; the tree's cap
  // 4 x 41.4 GB/s binds (its bandwidth, the mesh's 370.8 GB/s up to twice the nodes' 100 GB/s, x 0.92, is more).
  auto gh = detail_of("gh200_quad_cluster.gpm", "app a { mpi allreduce { ranks = 8; bytes = 8 GiB } }");
  CHECK(near(gh["ring_bus_bw"].get<double>(), 100e9));
  CHECK(near(candidate(gh, "tree", "Simple"), (8.4 + 2 * (3 * 4.0 + 14.0)) * 1e-6 + 8.0 * (1 << 30) / (4 * 41.4e9 / 2)));
  CHECK(gh["algorithm"] == "tree");
  // Two DGX H100 nodes: eight NICs above 25 GB/s but not above 50 (Hopper, more than four): eight channels; the
  // LL128 ring's cap 8 x 36.7 GB/s binds under 0.92 x the ring's bandwidth.
  auto dgx = detail_of("dgx_h100_cluster.gpm", "app a { mpi allreduce { ranks = 16; bytes = 1 GiB } }",
                       {{"nodes_in_cluster", "2"}});
  const double ring = dgx["ring_bus_bw"].get<double>();
  CHECK(ring / 8 > 25e9);
  CHECK(ring / 8 <= 50e9);
  CHECK(0.92 * ring > 8 * 36.7e9);
  bool seen = false;
  for (const auto& c : dgx["candidates"])
    if (c["algorithm"] == "ring" && c["protocol"] == "LL128") {
      CHECK(near(c["bus_bw"].get<double>(), 8 * 36.7e9));
      seen = true;
    }
  CHECK(seen);
}

TEST_CASE("nccl: eight GPUs in a full mesh of direct links: the rings use all seven links of each GPU") {
  // The search adds the ring whose busiest link carries the fewest rings so far; eight GPUs in a full mesh have 56
  // directed links, and seven rings that use each once give each GPU its seven links at once (7 x 123.6 GB/s).
  std::string links;
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j) links += (links.empty() ? "" : ", ") + fmt::format("g[{}] <-> g[{}]", i, j);
  const std::string mesh = "machine mesh8 {\n  mpi { model = fabric; library = nccl_hopper }\n  node {\n    cpu c\n"
                           "    gpu g[8] : G\n    link c <-> g[*] { bw = 64 GB/s }\n    link " + links +
                           " : NV { bw = 150 GB/s }\n  }\n}\ntype NV : link {}\n"
                           "type G : gpu { peak_fp64 = 1 Tflop/s; mem_bw = 1 TB/s; mem_size = 80 GB }\n";
  auto d = detail_of(mesh, "app a { mpi allreduce { ranks = 8; bytes = 1 GiB } }");
  CHECK(near(d["ring_bus_bw"].get<double>(), 7 * 6 * 20.6e9));
}

TEST_CASE("nccl: a send is LL up to the library's threshold, Simple above, one step's latency of its route's class") {
  // DGX A100: one NVLink 3 route of 12 links rated at 20 GB/s (240 GB/s) between any two GPUs. LL carries half its
  // lines in data, so its message takes the links for twice its bytes; latencies: ring LL 6.6 + NVLink 0.6 us,
  // ring Simple 8.4 + 3.4 us (stdlib/nccl.gpm, nccl_ampere).
  const double bw = 240e9;
  auto ll = detail_of("dgx_a100.gpm", "app a { mpi send { ranks = 8; from = 0; to = 3; bytes = 16 KiB } }");
  CHECK(ll["operation"] == "send");
  CHECK(ll["algorithm"] == "p2p");
  CHECK(ll["protocol"] == "LL");
  CHECK(ll["chosen_by"] == "the library's rule (p2p_ll_threshold)");
  CHECK(near(candidate(ll, "p2p", "LL"), 7.2e-6 + 2 * 16384 / bw));
  CHECK(ll["candidates"].size() == 1);
  auto simple = detail_of("dgx_a100.gpm", "app a { mpi send { ranks = 8; from = 0; to = 3; bytes = 16385 B } }");
  CHECK(simple["protocol"] == "Simple");
  CHECK(near(candidate(simple, "p2p", "Simple"), 11.8e-6 + 16385 / bw));
  // A window of 4 messages in one group, both ways at once (full-duplex links): one latency, four messages' bytes.
  auto window = detail_of("dgx_a100.gpm",
                          "app a { mpi sendrecv { ranks = 8; from = 0; to = 3; bytes = 1 MiB; window = 4 } }");
  CHECK(near(candidate(window, "p2p", "Simple"), 11.8e-6 + 4 * 1048576 / bw));
  // A named protocol replaces the rule, and the other is listed beside it.
  auto forced = detail_of("dgx_a100.gpm",
                          "app a { mpi recv { ranks = 8; from = 0; to = 3; bytes = 1 MiB; protocol = ll } }");
  CHECK(forced["protocol"] == "LL");
  CHECK(forced["chosen_by"] == "the operation");
  CHECK(near(candidate(forced, "p2p", "LL"), 7.2e-6 + 2 * 1048576 / bw));
  CHECK(forced["candidates"].size() == 2);
}

TEST_CASE("nccl: a send across nodes pays the network's step latency; on a PCIe node LL goes to two channels' worth") {
  // Two DGX H100 nodes, rank 0 to rank 8 (the first GPU of node 1): ring LL 6.6 + network 2.7 us (nccl_hopper).
  auto net = detail_of("dgx_h100_cluster.gpm", "app a { mpi send { ranks = 16; from = 0; to = 8; bytes = 8 B } }",
                       {{"nodes_in_cluster", "2"}});
  CHECK(net["protocol"] == "LL");
  CHECK(std::abs(candidate(net, "p2p", "LL") - 9.3e-6) < 1e-9);
  // The RTX 4090 node (PCIe between its GPUs): NCCL's PCI chunk gives a PCI peer two channels of 16 KiB at the LL
  // threshold, so 32 KiB still goes LL and 32 KiB + 1 B Simple.
  auto at = detail_of("rtx4090_8x.gpm", "app a { mpi send { ranks = 8; from = 0; to = 1; bytes = 32 KiB } }");
  auto over = detail_of("rtx4090_8x.gpm", "app a { mpi send { ranks = 8; from = 0; to = 1; bytes = 32769 B } }");
  CHECK(at["protocol"] == "LL");
  CHECK(over["protocol"] == "Simple");
}

TEST_CASE("nccl: a halo is one group of its ranks' sends; its largest message decides the protocol") {
  // One DGX A100, 8 ranks on a 4 x 2 periodic grid: every neighbour over NVLink (ring LL 6.6 + 0.6 us, Simple
  // 8.4 + 3.4 us). Faces of 8 KiB go LL, 1 MiB faces Simple; 8 KiB corners beside them do not make it LL.
  auto small = detail_of("dgx_a100.gpm", "app a { mpi halo { ranks = 8; face = 8 KiB } }");
  CHECK(small["operation"] == "halo");
  CHECK(small["protocol"] == "LL");
  CHECK(std::abs(candidate(small, "p2p", "LL") - 7.2e-6) < 1e-6);
  auto mixed = detail_of("dgx_a100.gpm",
                         "app a { mpi halo { ranks = 8; neighbours = 8; face = 1 MiB; corner = 8 KiB } }");
  CHECK(mixed["protocol"] == "Simple");
  CHECK(candidate(mixed, "p2p", "Simple") > 11.8e-6);
  // LL doubles every message's bytes on the links: the same halo forced to LL moves its data twice as long.
  auto ll = detail_of("dgx_a100.gpm", "app a { mpi halo { ranks = 8; face = 1 MiB; protocol = ll } }");
  auto simple = detail_of("dgx_a100.gpm", "app a { mpi halo { ranks = 8; face = 1 MiB } }");
  CHECK(near(candidate(ll, "p2p", "LL") - 7.2e-6, 2 * (candidate(simple, "p2p", "Simple") - 11.8e-6)));
}

TEST_CASE("nccl: a gather is the root's grouped receives; a barrier an all-reduce of one element") {
  // DGX A100: seven 1 MiB blocks into rank 0's GPU, whose NVLink (240 GB/s rated) carries them all, Simple.
  auto gather = detail_of("dgx_a100.gpm", "app a { mpi gather { ranks = 8; bytes = 1 MiB } }");
  CHECK(gather["operation"] == "gather");
  CHECK(gather["protocol"] == "Simple");
  CHECK(near(candidate(gather, "p2p", "Simple"), 11.8e-6 + 7 * 1048576 / 240e9));
  // A scatter's 8 KiB blocks go LL (twice their bytes out of rank 0's links).
  auto scatter = detail_of("dgx_a100.gpm", "app a { mpi scatter { ranks = 8; bytes = 8 KiB } }");
  CHECK(scatter["protocol"] == "LL");
  CHECK(near(candidate(scatter, "p2p", "LL"), 7.2e-6 + 2 * 7 * 8192 / 240e9));
  // The barrier is priced as the all-reduce of 4 bytes.
  auto barrier = detail_of("dgx_a100.gpm", "app a { mpi barrier { ranks = 8 } }");
  auto allreduce = detail_of("dgx_a100.gpm", "app a { mpi allreduce { ranks = 8; bytes = 4 B } }");
  CHECK(barrier["operation"] == "barrier");
  CHECK(barrier["algorithm"] == allreduce["algorithm"]);
  CHECK(near(candidate(barrier, barrier["algorithm"], barrier["protocol"]),
             candidate(allreduce, allreduce["algorithm"], allreduce["protocol"])));
}
