// par_offload_test.cpp: an offload in a `par` whose branches share links is its copies and kernels as flows of the
// par's engine (explicit, streams, hybrid), a run through device-mapped memory its kernel, reads and writes, and a
// pinned or pageable copy over streams its pieces: alone in time they end at the overlap engine's makespan (eq. 6's
// for a mapped run, LogGP's or eq. 9 per stream for a split copy), whatever the link latencies, bandwidths and gaps,
// copy engines, implicit synchronisation, waits and kernel; beside a copy on a shared link, they share it.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "backend/interp/interpreter.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

// Two GPUs behind one switch; the host link's latency, bandwidths (plain, duplex, beside mapped writes) and gaps,
// the switch's latency and the GPU's copy engines and implicit synchronisation vary by case.
std::string machine(double lat_us, double bw_gbs, double gpu_bw_gbs, double switch_us, int engines, int sync = 0,
                    double gap_us = 2.5) {
  return fmt::format(R"(
machine m {{
  node {{
    memory ddr {{ bw = 100 GB/s }}
    cpu c {{ cores = 8 }}
    switch sw {{ latency = {} us }}
    gpu g[2] {{ peak_fp64 = 7 Tflop/s; mem_bw = 900 GB/s; copy_engines = {}; implicit_sync = {} }}
    link ddr <-> c {{ bw = 100 GB/s }}
    link c <-> sw {{
      bw_fwd = {} GB/s; bw_rev = {} GB/s; latency_fwd = {} us; latency_rev = {} us; gap_fwd = {} us; gap_rev = {} us
      bw_duplex_fwd = {} GB/s; bw_duplex_rev = {} GB/s; bw_mapped_fwd = {} GB/s; bw_mapped_rev = {} GB/s
    }}
    link sw <-> g[*] {{ bw = {} GB/s; latency = 0.5 us; gap = 1 us }}
  }}
}}
)",
                     switch_us, engines, sync, bw_gbs, 0.9 * bw_gbs, lat_us, 1.1 * lat_us, gap_us, 1.3 * gap_us,
                     0.8 * bw_gbs, 0.75 * bw_gbs, 0.6 * bw_gbs, 0.55 * bw_gbs, gpu_bw_gbs);
}

backend::Evaluation evaluate(const std::string& source) {
  fs::path dir = fs::temp_directory_path() / ("gpm_par_offload_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "model.gpm";
  std::ofstream(file, std::ios::binary) << source;
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(file.string(), file.string(), {});
  fs::remove_all(dir);
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  REQUIRE(e.phases.size() == 1);
  REQUIRE(!e.phases[0].rows.empty());
  return e;
}

// A statement alone (an offload `o` with attributes `body`, or `stmt` as given), and its branch's end in a par beside
// a copy to g[1] that crosses the host link with its upload 100 s later, when the statement has ended: the par is
// priced as flows. The branch's end: its flows' last end, plus `tail` (eq. 6's L+o_dh after a mapped kernel's flows).
std::pair<double, double> alone_and_in_par(const std::string& m, const std::string& body, std::string stmt = "",
                                           const std::string& marker = "offload o", double tail = 0) {
  if (stmt.empty()) stmt = fmt::format("offload o on g[0] {{\n    {}\n    }}", body);
  double alone = evaluate(m + fmt::format("app a {{\n  kernel k {{ flops = 20 Gflop; bytes = 3 GB }}\n  {}\n}}\n",
                                          stmt)).total_s;
  auto e = evaluate(m + fmt::format("app b {{\n  kernel k {{ flops = 20 Gflop; bytes = 3 GB }}\n  par {{\n    {}\n"
                                    "    seq {{\n      overhead 100 s\n      copy h2d 1 MB pinned on g[1]\n    }}\n"
                                    "  }}\n}}\n",
                                    stmt));
  const backend::Row& row = e.phases[0].rows[0];
  CHECK(row.name.find("(copies sharing links, as flows)") != std::string::npos);
  REQUIRE(row.detail.contains("flows"));
  double end = -1;
  int ops = 0;
  for (const auto& f : row.detail["flows"])
    if (f["name"].get<std::string>().find(marker) != std::string::npos) {
      ++ops;
      end = std::max(end, f["end_s"].get<double>());
    }
  CHECK(ops > 0);
  return {alone, end + tail};
}

}  // namespace

TEST_CASE("par with an explicit offload: alone in time, its copies and kernel end at the overlap engine's time") {
  struct Case {
    double lat_us, bw_gbs, gpu_bw_gbs, switch_us;
    int engines;
    const char* offload;
  };
  const Case cases[] = {
      {9, 6, 6, 0, 2, "bytes_in = 1 GB; bytes_out = 1 GB; flops = 1 Gflop; bytes = 2 GB"},
      {3.5, 12, 8, 1.25, 1, "bytes_in = 256 MiB; bytes_out = 3 MB; flops = 40 Gflop; bytes = 1 GB"},
      {12, 25, 32, 0.3, 2, "bytes_in = 7 MB; bytes_out = 700 MB; time = 2.5 ms"},
      {1, 16, 16, 0, 1, "bytes_in = 0 B; bytes_out = 64 MiB; flops = 1 Tflop; bytes = 1 MB"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.offload);
    std::string m = machine(c.lat_us, c.bw_gbs, c.gpu_bw_gbs, c.switch_us, c.engines);
    auto [alone, end] = alone_and_in_par(m, fmt::format("strategy = explicit; {}", c.offload));
    REQUIRE(alone > 0);
    CHECK(std::abs(end - alone) <= 1e-12 * alone);
    // Issued together, the copy shares the host link with the offload's upload (when there is one): the offload
    // ends later, by at most the copy's bytes at the link's bandwidth.
    double copy_alone = evaluate(m + "app c {\n  copy h2d 1 MB pinned on g[1]\n}\n").total_s;
    double both = evaluate(m + fmt::format("app d {{\n  par {{\n    offload o on g[0] {{ strategy = explicit; {} }}\n"
                                           "    copy h2d 1 MB pinned on g[1]\n  }}\n}}\n",
                                           c.offload))
                      .total_s;
    CHECK(both >= std::max(alone, copy_alone) * (1 - 1e-12));
    CHECK(both <= alone + 1e6 / (std::min(c.bw_gbs, c.gpu_bw_gbs) * 1e9) * (1 + 1e-9));
  }
}

TEST_CASE("par with a streams or hybrid offload: alone in time, its flows end at the overlap engine's time") {
  struct Case {
    double lat_us, bw_gbs, gpu_bw_gbs, switch_us;
    int engines, sync;
    double gap_us;
    const char* offload;
  };
  const Case cases[] = {
      {9, 6, 6, 0, 2, 0, 2.5, "strategy = streams; streams = 4; bytes_in = 1 GB; bytes_out = 1 GB; flops = 1 Gflop; "
                              "bytes = 2 GB"},
      {9, 6, 6, 0, 1, 1, 2.5, "strategy = streams; streams = 4; bytes_in = 1 GB; bytes_out = 1 GB; flops = 1 Gflop; "
                              "bytes = 2 GB"},
      {3, 12, 16, 0.4, 1, 0, 7, "strategy = streams; streams = 7; bytes_in = 300 MB; bytes_out = 20 MB; time = 90 ms"},
      {3, 12, 10, 0.4, 2, 1, 0.5, "strategy = streams; streams = 3; bytes_in = 30 MB; bytes_out = 200 MB; "
                                  "time = 4 ms"},
      {5, 16, 16, 0, 2, 0, 1, "strategy = streams; streams = 5; bytes_in = 500 MB; bytes_out = 500 MB; "
                              "time = 20 ms\n    kernel after h2d(next), h2d(first)"},
      {5, 16, 16, 0, 1, 0, 1, "strategy = streams; streams = 5; bytes_in = 500 MB; bytes_out = 500 MB; "
                              "time = 20 ms\n    kernel after h2d(next), h2d(first)"},
      {2, 8, 8, 0, 2, 1, 3, "strategy = hybrid; streams = 4; bytes_in = 400 MB; bytes_out = 100 MB; time = 30 ms"},
      {2, 8, 8, 0, 1, 0, 3, "strategy = hybrid; streams = 6; bytes_in = 40 MB; bytes_out = 600 MB; time = 3 ms"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.offload);
    CAPTURE(c.engines);
    CAPTURE(c.sync);
    std::string m = machine(c.lat_us, c.bw_gbs, c.gpu_bw_gbs, c.switch_us, c.engines, c.sync, c.gap_us);
    auto [alone, end] = alone_and_in_par(m, c.offload);
    REQUIRE(alone > 0);
    CHECK(std::abs(end - alone) <= 1e-12 * alone);
  }
}

TEST_CASE("par with a mapped run: alone in time, eq. 6 as flows ends at eq. 6's time") {
  // What dominates eq. 6: the reads, the kernel, the writes.
  const char* runs[] = {"mapped_in = 2 GB; mapped_out = 1 MB", "mapped_in = 1 MB; mapped_out = 1 MB",
                        "mapped_in = 10 MB; mapped_out = 3 GB"};
  for (const char* run : runs) {
    CAPTURE(run);
    std::string m = machine(4, 10, 12, 0.25, 1);
    double lo_dh = (1.1 * 4 + 0.25 + 0.5) * 1e-6;
    auto [alone, end] = alone_and_in_par(m, "", fmt::format("run k on g[0] {{ {} }}", run), "run k", lo_dh);
    REQUIRE(alone > 0);
    CHECK(std::abs(end - alone) <= 1e-12 * alone);
  }
}

TEST_CASE("par with a pinned copy over streams: alone in time, its pieces end at LogGP's time") {
  // Van Werkhoven et al. section V: L+o + kG + g (n - 1), each piece after the one before it plus the gap.
  const char* copies[] = {"copy h2d 1 GB pinned on g[0] { streams = 4 }", "copy d2h 300 MB pinned on g[0] { streams = 7 }",
                          "copy h2d 1 MB pinned on g[0] { streams = 2 }"};
  for (int engines : {1, 2})
    for (const char* copy : copies) {
      CAPTURE(copy);
      CAPTURE(engines);
      std::string m = machine(6, 12, 10, 0.5, engines, 0, 4);
      auto [alone, end] = alone_and_in_par(m, "", copy, "pinned on g[0]");
      REQUIRE(alone > 0);
      CHECK(std::abs(end - alone) <= 1e-12 * alone);
    }
}

TEST_CASE("par with a pageable copy over streams: alone in time, its copies end at eq. 9 per stream") {
  // Section 3.6: n synchronous copies of k / n bytes, one after another, each AHEAD eq. 9:
  // n (L+O) + 2k / B_mem + k / BW.
  const char* copies[] = {"copy h2d 1 GB pageable on g[0] { streams = 4 }",
                          "copy d2h 300 MB pageable on g[0] { streams = 7 }",
                          "copy h2d 1 MB pageable on g[0] { streams = 1 }"};
  for (int engines : {1, 2})
    for (const char* copy : copies) {
      CAPTURE(copy);
      CAPTURE(engines);
      std::string m = machine(6, 12, 10, 0.5, engines, 0, 4);
      auto [alone, end] = alone_and_in_par(m, "", copy, "pageable on g[0]");
      REQUIRE(alone > 0);
      CHECK(std::abs(end - alone) <= 1e-12 * alone);
    }
}
