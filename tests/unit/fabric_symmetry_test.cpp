// fabric_symmetry_test.cpp: the fabric model's fast path (one period of a cluster's nodes solved for every round)
// against the full flow schedule (GPMC_FABRIC_FAST_PATH=off) on the shipped clusters and a small test cluster, for
// the collectives of the fabric and nccl models; and the cases where no period holds, which build every flow.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/pipeline.h"

using namespace gpm;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;

// The node of every test cluster: 2 GPUs on a switch, one NIC per GPU (and the machine's closing brace).
const std::string kNode = R"(
  node {
    gpu g[2] { mem_bw = 1 TB/s }
    switch sw
    nic x[2] { bw = 25 GB/s }
    link sw <-> g[*] { bw = 100 GB/s; latency = 1 us }
    link g[0] <-> x[0], g[1] <-> x[1] { bw = 30 GB/s }
  }
}
)";

// A cluster small enough for the full schedule everywhere: 4 NICs per leaf, 2 spines; `fabric` and `taper` as in the
// shipped clusters.
const std::string kSmallCluster = R"(
machine small_cluster {
  param n = 8
  param fabric = fat_tree in {rail, fat_tree}
  param taper = 1 in 1 .. 16
  arbitration maxmin
  cluster {
    nodes = n
    topology = fabric
    nics_per_leaf = 4
    spines = 2
    link_bw = 25 GB/s
    taper = taper
    link_latency = 100 ns
  })" + kNode;

// A unique file per process and text: ctest runs the test cases as processes side by side.
std::string temp_file(const std::string& text, const char* what) {
  std::string path = std::string("fabric_symmetry_test_") + what + "_" + std::to_string(::getpid()) + "_" +
                     std::to_string(std::hash<std::string>{}(text)) + ".gpm";
  std::ofstream(path) << text;
  return path;
}

// The JSON operations of `app_text` on `machine` (a shipped file, or the test cluster when empty), with the fast
// path allowed or not.
nlohmann::json operations(const std::string& machine, const std::string& app_text,
                          std::vector<driver::Setting> settings, bool fast) {
  std::string app = temp_file(app_text, "app");
  // A shipped file by name, the test cluster when empty, or a machine's text.
  bool text = machine.rfind("machine ", 0) == 0;
  std::string mach = machine.empty() ? temp_file(kSmallCluster, "machine")
                     : text          ? temp_file(machine, "machine")
                                     : kRoot + "/machines/" + machine;
  if (fast) ::unsetenv("GPMC_FABRIC_FAST_PATH");
  else ::setenv("GPMC_FABRIC_FAST_PATH", "off", 1);
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(mach, app, settings);
  ::unsetenv("GPMC_FABRIC_FAST_PATH");
  std::remove(app.c_str());
  if (machine.empty() || text) std::remove(mach.c_str());
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  auto doc = nlohmann::json::parse(backend::json_report(e));
  nlohmann::json all = nlohmann::json::array();  // each `mpi` statement is a phase of its own
  for (const auto& phase : doc["phases"])
    for (const auto& op : phase["operations"]) all.push_back(op);
  return all;
}

// The agreement required (the two paths have given equal times to the last bit on every case here).
constexpr double kTolerance = 1e-12;

double relative(double a, double b) { return a == b ? 0 : std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }

// Every operation of the app: the fast path's time, steps and NCCL candidates equal the full schedule's to 1e-12
// relative; returns how many operations took the fast path.
int compare(const std::string& machine, const std::string& app_text, std::vector<driver::Setting> settings) {
  auto fast = operations(machine, app_text, settings, true);
  auto full = operations(machine, app_text, settings, false);
  REQUIRE(fast.size() == full.size());
  int symmetric = 0;
  for (size_t i = 0; i < fast.size(); ++i) {
    const auto& a = fast[i];
    const auto& b = full[i];
    CAPTURE(i);
    CAPTURE(a["detail"].dump());
    CHECK(relative(a["time_s"].get<double>(), b["time_s"].get<double>()) <= kTolerance);
    CHECK(!b["detail"].contains("symmetry"));
    CHECK(!b["detail"].contains("ring_probe_period_nodes"));
    if (a["detail"].contains("symmetry") || a["detail"].contains("ring_probe_period_nodes")) ++symmetric;
    if (a["detail"].contains("steps")) {
      const auto& sa = a["detail"]["steps"];
      const auto& sb = b["detail"]["steps"];
      REQUIRE(sa.size() == sb.size());
      for (size_t k = 0; k < sa.size(); ++k) {
        CHECK(sa[k]["messages"] == sb[k]["messages"]);
        CHECK(relative(sa[k]["time_s"].get<double>(), sb[k]["time_s"].get<double>()) <= kTolerance);
        CHECK(relative(sa[k]["latency_s"].get<double>(), sb[k]["latency_s"].get<double>()) <= kTolerance);
        CHECK(sa[k].contains("busiest_link_s") == sb[k].contains("busiest_link_s"));
        CHECK(relative(sa[k].value("busiest_link_s", 0.0), sb[k].value("busiest_link_s", 0.0)) <= kTolerance);
      }
    }
    if (a["detail"].contains("candidates")) {
      const auto& ca = a["detail"]["candidates"];
      const auto& cb = b["detail"]["candidates"];
      REQUIRE(ca.size() == cb.size());
      for (size_t k = 0; k < ca.size(); ++k)
        CHECK(relative(ca[k]["time_s"].get<double>(), cb[k]["time_s"].get<double>()) <= kTolerance);
      CHECK(a["detail"]["algorithm"] == b["detail"]["algorithm"]);
      CHECK(a["detail"]["protocol"] == b["detail"]["protocol"]);
    }
  }
  return symmetric;
}

// `mpi OP { ranks = R; bytes = ...; EXTRA }` for each operation.
std::string app_with(int64_t ranks, const std::vector<std::pair<std::string, std::string>>& ops) {
  std::string s = "app sym {\n";
  for (const auto& [op, extra] : ops)
    s += "  mpi " + op + " { ranks = " + std::to_string(ranks) + (op == "barrier" ? "" : "; bytes = 16 MiB") +
         (extra.empty() ? "" : "; ") + extra + " }\n";
  return s + "}\n";
}

const std::vector<std::pair<std::string, std::string>> kFabricOps = {
    {"allreduce", ""},
    {"allreduce", "algorithm = ring"},
    {"allreduce", "algorithm = ring; channels = 2"},
    {"allreduce", "algorithm = rabenseifner"},
    {"allgather", ""},
    {"allgather", "algorithm = recursive_doubling"},
    {"reduce_scatter", ""},
    {"reduce_scatter", "algorithm = recursive_halving"},
    {"barrier", ""},
    {"alltoall", ""},
    {"bcast", ""},
    {"bcast", "algorithm = pipeline"},
};

}  // namespace

TEST_CASE("fabric fast path: the small fat tree gives the full schedule's times for every collective") {
  // 8 nodes of 2 GPUs, 2 nodes per leaf: a period of 2 nodes (4 ranks) where the rounds are shifts or exchanges.
  int symmetric = compare("", app_with(16, kFabricOps), {});
  // The ring, its channels, the ring all-gather and reduce-scatter, the barrier and the all-to-all's shifts repeat
  // every period, and so do the exchanges r xor 2^i of recursive doubling and halving and of Rabenseifner on a power
  // of two ranks (a period of half the ranks at most); the binomial bcast and the chain, rooted at rank 0, do not,
  // and build every flow.
  CHECK(symmetric == int(kFabricOps.size()) - 2);
}

TEST_CASE("fabric fast path: rail, tapered and latency-bearing small clusters") {
  for (std::string fabric : {"rail", "fat_tree"})
    for (std::string taper : {"1", "3"}) {
      CAPTURE(fabric);
      CAPTURE(taper);
      int symmetric = compare("", app_with(32, kFabricOps), {{"fabric", fabric}, {"taper", taper}, {"n", "16"}});
      CHECK(symmetric == int(kFabricOps.size()) - 2);
    }
}

TEST_CASE("fabric fast path: a three-level tree of eight pods and a dragonfly of eight groups build the same times") {
  // 16 nodes of 2 GPUs and 2 NICs. The tree: 2 NICs per leaf, 2 leaves per pod (8 pods), 2 spines per pod, 4 cores.
  // The dragonfly: 2 NICs per router, 2 routers per group (8 groups), 2 global links between every two groups.
  const std::string tree = "machine pods {\n  arbitration maxmin\n  cluster { nodes = 16; topology = fat_tree; "
                           "nics_per_leaf = 2; spines = 2; cores = 4; leaves_per_pod = 2; link_bw = 25 GB/s; "
                           "core_taper = 2; link_latency = 100 ns }" + kNode;
  const std::string fly = "machine fly {\n  arbitration maxmin\n  cluster { nodes = 16; topology = dragonfly; "
                          "nics_per_router = 2; routers_per_group = 2; global_links = 2; link_bw = 25 GB/s; "
                          "global_bw = 12.5 GB/s; link_latency = 100 ns }" + kNode;
  for (const std::string& machine : {tree, fly}) {
    CAPTURE(machine);
    compare(machine, app_with(32, kFabricOps), {});
  }
}

TEST_CASE("fabric fast path: DGX H100 cluster of 64 nodes, rail and fat tree") {
  // 64 nodes: the rail fabric's leaves of 32 nodes repeat every 32 nodes (256 ranks).
  std::vector<std::pair<std::string, std::string>> ops = {{"allreduce", "algorithm = ring"},
                                                          {"allreduce", "algorithm = ring; channels = 8"},
                                                          {"allreduce", ""},
                                                          {"allgather", ""},
                                                          {"reduce_scatter", ""},
                                                          {"barrier", ""}};
  for (std::string fabric : {"rail", "fat_tree"}) {
    CAPTURE(fabric);
    int symmetric = compare("dgx_h100_cluster.gpm", app_with(512, ops),
                            {{"nodes_in_cluster", "64"}, {"fabric", fabric}, {"taper", "2"}});
    CHECK(symmetric == int(ops.size()));
  }
}

TEST_CASE("fabric fast path: the nccl model's probes on the DGX H100 and EDR clusters") {
  std::vector<std::pair<std::string, std::string>> ops = {
      {"allreduce", ""}, {"allgather", ""}, {"reduce_scatter", ""}, {"bcast", ""}, {"alltoall", ""}};
  // The all-to-all's p - 1 rounds of the full schedule: 8 nodes of the fat tree keep it small. Every collective's
  // ring probe repeats every 4 nodes (a leaf's 32 NICs); the all-to-all (grouped sends and receives) has none, its
  // own probe only, the same either way.
  CHECK(compare("dgx_h100_cluster.gpm", app_with(64, ops),
                {{"nodes_in_cluster", "8"}, {"fabric", "fat_tree"}, {"comm_model", "nccl"}}) == int(ops.size()) - 1);
  CHECK(compare("dgx_h100_cluster.gpm", app_with(512, {{"allreduce", ""}, {"allgather", ""}}),
                {{"nodes_in_cluster", "64"}, {"comm_model", "nccl"}}) == 2);
  // 32 nodes on the rail fabric: one period of leaves, so every flow is built.
  CHECK(compare("dgx_h100_cluster.gpm", app_with(256, {{"allreduce", ""}}), {{"comm_model", "nccl"}}) == 0);
  // The fabric model's pairwise all-to-all over 64 rail-fabric nodes: its messages between nodes go through the
  // GPUs' own NICs (fabric_routes.h), whose routes repeat with the period; a fewest-links route alone did not
  // (entering the receiver's node on the sender's rail, by a d-mod-k choice that does not repeat), and every flow
  // was built.
  CHECK(compare("dgx_h100_cluster.gpm", app_with(512, {{"alltoall", ""}}), {{"nodes_in_cluster", "64"}}) == 1);
}

TEST_CASE("fabric fast path: the EDR fat tree of 36 nodes (two leaves) and its fallbacks") {
  std::vector<std::pair<std::string, std::string>> ops = {
      {"allreduce", "algorithm = ring"}, {"allgather", ""}, {"alltoall", ""}, {"barrier", ""}};
  // 18 nodes per leaf, 12 spines: a period of 18 nodes (72 ranks) holds.
  CHECK(compare("fattree_edr_cluster.gpm", app_with(144, ops), {{"cluster_nodes", "36"}}) == int(ops.size()));
  // 40 nodes: the last leaf is partly filled, no period holds; every flow is built, with the same times.
  CHECK(compare("fattree_edr_cluster.gpm", app_with(160, ops), {{"cluster_nodes", "40"}}) == 0);
  // Ranks on part of the cluster only: the placement does not repeat.
  CHECK(compare("fattree_edr_cluster.gpm", app_with(100, ops), {{"cluster_nodes", "36"}}) == 0);
}

TEST_CASE("fabric fast path: the detail says which path was taken") {
  auto ops = operations("", app_with(16, {{"allreduce", "algorithm = ring"}, {"bcast", ""}}), {}, true);
  const auto& sym = ops[0]["detail"]["symmetry"];
  CHECK(sym["period_nodes"] == 2);
  CHECK(sym["periods"] == 4);
  CHECK(sym["flows_solved"] == 4);
  CHECK(!ops[1]["detail"].contains("symmetry"));
  CHECK(ops[0]["detail"]["steps"][0]["messages"] == 16);
}
