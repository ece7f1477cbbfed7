// mpi_e2e_test.cpp: end-to-end tests of communication through the whole pipeline: Jacobi2D on Summit at the
// paper's 1,536 ranks reports its parts, and the three models order its communication as the E2E paper does.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/pipeline.h"

using namespace gpm;

namespace {

const std::string kRoot = GPM_SOURCE_DIR;

nlohmann::json jacobi_json(const std::string& model) {
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(kRoot + "/machines/summit.gpm", kRoot + "/apps/jacobi2d.gpm",
                            {{"ranks", "1536"}, {"comm_model", model}});
  REQUIRE(compiled);
  backend::Evaluation e;
  REQUIRE(s.evaluate(*compiled, e));
  return nlohmann::json::parse(backend::json_report(e));
}

}  // namespace

TEST_CASE("E2E section 5.1: Jacobi2D on 1,536 Summit ranks: parts, and postal < K-model < max-rate") {
  auto postal = jacobi_json("postal"), kmodel = jacobi_json("kmodel"), maxrate = jacobi_json("maxrate");
  for (const auto* doc : {&postal, &kmodel, &maxrate}) {
    CHECK((*doc)["iterations"] == 100);
    const auto& parts = (*doc)["parts"];
    double sum = parts["communication_s"].get<double>() + parts["kernels_s"].get<double>() +
                 parts["overhead_s"].get<double>();
    // E2E section 3.4: total = iterations x (communication + kernels + overhead).
    CHECK((*doc)["total_s"].get<double>() == doctest::Approx(100 * sum).epsilon(1e-12));
    CHECK(parts["overhead_s"].get<double>() > 200e-6);  // the 200 us overhead plus the copies
  }
  double p = postal["parts"]["communication_s"], k = kmodel["parts"]["communication_s"],
         m = maxrate["parts"]["communication_s"];
  CHECK(p < k);
  CHECK(k < m);
  CHECK(postal["parts"]["kernels_s"] == kmodel["parts"]["kernels_s"]);
  // The halo's K values come from the balanced 48 x 32 grid with 6 ranks per node: E2E Table 5, 14/24 (k = 3.5).
  const auto& halo = kmodel["phases"][0]["operations"][2];
  REQUIRE(halo["name"].get<std::string>().rfind("mpi halo (48 x 32 ranks", 0) == 0);
  CHECK(halo["detail"]["rounds"][0]["K_inter"] == 14);
  CHECK(halo["detail"]["rounds"][0]["K_total"] == 24);
  CHECK(halo["detail"]["rounds"][0]["k"]["inter_node"].get<double>() == doctest::Approx(3.5));
  CHECK(maxrate["phases"][0]["operations"][2]["detail"]["rounds"][0]["k"]["inter_node"] == 6);
}
