// par_mpi_test.cpp: an MPI operation of the fabric model in a `par` becomes flows of the par's engine: alone in time
// it ends when the fabric model says it does (also where the model solves one period of a cluster), the timeline
// draws its messages, and beside a copy on a shared link both share it, as computed by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include "backend/interp/interpreter.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

// Two PCIe-like switches of two GPUs each under a root, links with latencies, and a software overhead per step.
const char* kMachine = R"(
machine two_switches {
  mpi {
    model = fabric
    overhead = 3 us
  }
  node {
    memory ddr { bw = 1 TB/s }
    switch rc
    switch sw[2]
    gpu g[4] { peak_fp64 = 1 Tflop/s; mem_bw = 1 TB/s }
    link ddr <-> rc { bw = 1 TB/s; latency = 1 us }
    link rc <-> sw[*] { bw = 40 GB/s; latency = 2 us }
    link sw[0] <-> g[0] { bw = 10 GB/s; latency = 1 us }
    link sw[0] <-> g[1] { bw = 12 GB/s; latency = 1.5 us }
    link sw[1] <-> g[2] { bw = 10 GB/s; latency = 1 us }
    link sw[1] <-> g[3] { bw = 16 GB/s; latency = 0.5 us }
  }
}
)";

// Evaluates `app` on the machine above, or on a shipped machine file.
backend::Evaluation evaluate(const std::string& app, const std::string& machine = "",
                             const std::vector<driver::Setting>& set = {}) {
  fs::path dir = fs::temp_directory_path() / ("gpm_par_mpi_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "model.gpm";
  std::ofstream(file, std::ios::binary) << (machine.empty() ? kMachine : "") << app;
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(machine.empty() ? file.string() : machine, file.string(), set);
  fs::remove_all(dir);
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  return e;
}

const backend::Row& only_row(const backend::Evaluation& e) {
  REQUIRE(e.phases.size() == 1);
  REQUIRE(!e.phases[0].rows.empty());
  return e.phases[0].rows[0];
}

}  // namespace

TEST_CASE("par with MPI: an operation's messages, alone in time, end when the fabric model says") {
  const char* ops[] = {
      "mpi allreduce { ranks = 4; bytes = 1 MiB; algorithm = ring }",
      "mpi allreduce { ranks = 4; bytes = 1 MiB; algorithm = recursive_doubling }",
      "mpi allreduce { ranks = 4; bytes = 3 MiB; algorithm = recursive_doubling; transport = staged }",
      "mpi allgather { ranks = 4; bytes = 256 KiB }",
      "mpi alltoall { ranks = 4; bytes = 512 KiB }",
      "mpi halo { ranks = 4; dims = 2; neighbours = 8; periodic = false; face = 1 MiB; edge = 4 KiB; corner = 8 B }",
  };
  for (const char* op : ops) {
    CAPTURE(op);
    double alone = evaluate(fmt::format("app a {{\n  {}\n}}\n", op)).total_s;
    // The copy shares g[0]'s link with the messages but starts a second later, when they have all ended.
    auto e = evaluate(fmt::format("app b {{\n  par {{\n    {}\n    seq {{\n      overhead 1 s\n      copy h2d 64 MiB "
                                  "pinned on g[0]\n    }}\n  }}\n}}\n",
                                  op));
    const backend::Row& row = only_row(e);
    CHECK(row.name.find("MPI messages sharing links") != std::string::npos);
    REQUIRE(row.detail.contains("flows"));
    double last = 0;
    int messages = 0;
    for (const auto& f : row.detail["flows"]) {
      std::string name = f["name"].get<std::string>();
      if (name.starts_with("copy ")) {
        CHECK(f["start_s"].get<double>() >= 1.0);
        continue;
      }
      ++messages;
      last = std::max(last, f["end_s"].get<double>());
    }
    CHECK(messages > 0);
    CHECK(std::abs(last - alone) <= 1e-12 * alone);
    // The timeline draws the messages on the mpi engine of their branch, each from its issue to its end.
    REQUIRE(row.detail.contains("timeline"));
    int drawn = 0;
    for (const auto& item : row.detail["timeline"])
      if (item["kind"] == "mpi") {
        ++drawn;
        CHECK(item["engine"] == "mpi");
        CHECK(item["stream"] == 0);
        CHECK(item["end_s"].get<double>() <= last);
      }
    CHECK(drawn == messages);
  }
}

TEST_CASE("par with MPI: an operation the fabric model solves on one period is written out whole in a par") {
  // A ring all-reduce over the 144 ranks of 36 nodes of fattree_edr_cluster (two leaves of 18): the ring repeats
  // with a period of 18 nodes (the fast path); in a par its 2 x 143 steps of 144 messages are built one by one,
  // each step's after the step before (one wait each, through the step's group), and alone in time they end when
  // the fast path says.
  const std::string machine = GPM_SOURCE_DIR "/machines/fattree_edr_cluster.gpm";
  const char* op = "mpi allreduce { ranks = 144; bytes = 64 MB; algorithm = ring }";
  auto alone = evaluate(fmt::format("app a {{\n  {}\n}}\n", op), machine, {{"cluster_nodes", "36"}});
  REQUIRE(alone.phases.size() == 1);
  REQUIRE(alone.phases[0].rows[0].detail.contains("symmetry"));
  auto e = evaluate(fmt::format("app b {{\n  par {{\n    {}\n    seq {{\n      overhead 1 s\n      copy h2d 1 GB pinned "
                                "on node[20].s[0].g[0]\n    }}\n  }}\n}}\n",
                                op),
                    machine, {{"cluster_nodes", "36"}});
  const backend::Row& row = only_row(e);
  CHECK(row.name.find("MPI messages sharing links") != std::string::npos);
  // The report lists the first 10,000 flows; the branches' ends are under `streams`.
  REQUIRE(row.detail.contains("streams"));
  const auto& mpi_branch = row.detail["streams"][0];
  CHECK(mpi_branch["copies"].get<int>() == 2 * 143 * 144);
  double last = mpi_branch["end_s"].get<double>();
  CHECK(std::abs(last - alone.total_s) <= 1e-12 * alone.total_s);
}

TEST_CASE("par with MPI: messages and a copy share the link they both cross, as computed by hand") {
  // One step of recursive doubling between g[0] and g[1] (1 GB each way) beside an upload of 1 GB to g[1]. The copy
  // starts at its route's L+O; the messages after the step's overhead and its slowest route's latency (3 us + 2.5
  // us). sw[0] -> g[1] (12 GB/s) carries the copy and g[0]'s message: 6 GB/s each while both move.
  auto e = evaluate(R"(
app shared {
  par {
    mpi allreduce { ranks = 2; bytes = 1 GB; algorithm = recursive_doubling }
    copy h2d 1 GB pinned on g[1]
  }
}
)");
  const backend::Row& row = only_row(e);
  double copy_start = -1, to_g1_end = -1, to_g0_end = -1, copy_end = -1;
  for (const auto& f : row.detail["flows"]) {
    std::string name = f["name"].get<std::string>();
    if (name.starts_with("copy ")) {
      copy_start = f["start_s"].get<double>();
      copy_end = f["end_s"].get<double>();
    } else if (name.ends_with("g[0] -> g[1]")) {
      CHECK(f["start_s"].get<double>() == doctest::Approx(5.5e-6).epsilon(1e-12));
      to_g1_end = f["end_s"].get<double>();
    } else {
      to_g0_end = f["end_s"].get<double>();
    }
  }
  REQUIRE(copy_start >= 0);
  const double msg_start = 5.5e-6, n = 1e9;
  // g[1] -> g[0] runs alone on its links (10 GB/s into g[0]).
  CHECK(to_g0_end == doctest::Approx(msg_start + n / 10e9).epsilon(1e-12));
  // Alone, the copy moves at 12 GB/s and g[0]'s message at 10 (its own link g[0] -> sw[0]); together 6 each. The one
  // that starts first has its path alone until the other starts, so it has less left and ends first.
  double copy_expected, msg_expected;
  if (copy_start <= msg_start) {
    double left = n - 12e9 * (msg_start - copy_start);
    copy_expected = msg_start + left / 6e9;
    msg_expected = copy_expected + (n - left) / 10e9;
  } else {
    double left = n - 10e9 * (copy_start - msg_start);
    msg_expected = copy_start + left / 6e9;
    copy_expected = msg_expected + (n - left) / 12e9;
  }
  CHECK(copy_end == doctest::Approx(copy_expected).epsilon(1e-12));
  CHECK(to_g1_end == doctest::Approx(msg_expected).epsilon(1e-12));
  CHECK(e.total_s == doctest::Approx(std::max(copy_end, std::max(to_g1_end, to_g0_end))).epsilon(1e-15));
}
