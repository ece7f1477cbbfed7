// par_offload_test.cpp: an explicit offload in a `par` whose branches share links is its stream's copies and kernel,
// flows of the par's engine: alone in time they end at the overlap engine's makespan, whatever the link latencies,
// bandwidths, copy engines and kernel; beside a copy on a shared link, they share it.
#include <doctest/doctest.h>

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

// Two GPUs behind one switch; the host link's latency and bandwidths, the switch's latency and the GPU's copy
// engines vary by case.
std::string machine(double lat_us, double bw_gbs, double gpu_bw_gbs, double switch_us, int engines) {
  return fmt::format(R"(
machine m {{
  node {{
    memory ddr {{ bw = 100 GB/s }}
    cpu c {{ cores = 8 }}
    switch sw {{ latency = {} us }}
    gpu g[2] {{ peak_fp64 = 7 Tflop/s; mem_bw = 900 GB/s; copy_engines = {}; implicit_sync = 0 }}
    link ddr <-> c {{ bw = 100 GB/s }}
    link c <-> sw {{ bw_fwd = {} GB/s; bw_rev = {} GB/s; latency_fwd = {} us; latency_rev = {} us }}
    link sw <-> g[*] {{ bw = {} GB/s; latency = 0.5 us }}
  }}
}}
)",
                     switch_us, engines, bw_gbs, 0.9 * bw_gbs, lat_us, 1.1 * lat_us, gpu_bw_gbs);
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
    double alone =
        evaluate(m + fmt::format("app a {{\n  offload o on g[0] {{ strategy = explicit; {} }}\n}}\n", c.offload)).total_s;
    REQUIRE(alone > 0);
    // A copy to g[1] crosses the host link with the offload's upload, but 100 s later, when the offload has ended:
    // the par is priced as flows, and the offload's download ends when the offload alone does.
    auto e = evaluate(m + fmt::format("app b {{\n  par {{\n    offload o on g[0] {{ strategy = explicit; {} }}\n"
                                      "    seq {{\n      overhead 100 s\n      copy h2d 1 MB pinned on g[1]\n    }}\n"
                                      "  }}\n}}\n",
                                      c.offload));
    const backend::Row& row = e.phases[0].rows[0];
    CHECK(row.name.find("(copies sharing links, as flows)") != std::string::npos);
    REQUIRE(row.detail.contains("flows"));
    double end = -1;
    for (const auto& f : row.detail["flows"])
      if (f["name"].get<std::string>().starts_with("copy d2h of offload o")) end = f["end_s"].get<double>();
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
