// sweep_shapes_test.cpp: sweeps over shape parameters: one compiled model per distinct combination of their
// values (a cache by value), points mapped to their model in point order, and values equal to eval.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_support.h"
#include "driver/pipeline.h"
#include "driver/sweep.h"

using namespace gpm;

namespace {

using gpm::test::approx;
const std::string kRoot = GPM_SOURCE_DIR;

struct Planned {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib", ""}};
  std::unique_ptr<driver::Compiled> compiled;
  std::vector<driver::SweepAxis> axes;
  std::vector<std::unique_ptr<driver::Compiled>> owned;
  std::vector<driver::SweepVariant> variants;
  std::vector<uint32_t> variant_of_group;
  explicit Planned(const std::vector<std::string>& varies) {
    compiled = session.compile(kRoot + "/machines/titan.gpm", kRoot + "/apps/bandwidth.gpm", {});
    REQUIRE(compiled);
    std::vector<driver::VarySpec> specs(varies.size());
    for (size_t k = 0; k < varies.size(); ++k) REQUIRE(driver::parse_vary(varies[k], specs[k], session.diags()));
    REQUIRE(driver::plan_axes(session, *compiled, specs, driver::kDefaultMaxPoints, axes));
    REQUIRE(driver::compile_shape_variants(session, *compiled, axes, owned, variants, variant_of_group));
  }
  // gpmc eval at one point, through the interpreter.
  double eval(const std::vector<driver::Setting>& settings) {
    driver::Session s(driver::Options{{}, GPM_SOURCE_DIR "/stdlib", ""});
    auto c = s.compile(kRoot + "/machines/titan.gpm", kRoot + "/apps/bandwidth.gpm", settings);
    REQUIRE(c);
    backend::Evaluation e;
    REQUIRE(s.evaluate(*c, e));
    return e.total_s;
  }
};

}  // namespace

TEST_CASE("sweep shapes: one model per distinct combination of shape values, a value listed twice reused") {
  Planned p({"memory=pinned,pageable,pinned", "bytes=1MiB,1GiB", "direction=d2h,h2d"});
  REQUIRE(p.axes.size() == 3);
  CHECK(p.axes[0].shape);
  CHECK_FALSE(p.axes[1].shape);
  CHECK(p.axes[2].shape);
  CHECK(p.axes[0].words == std::vector<std::string>{"pinned", "pageable"});
  CHECK(p.axes[0].values == std::vector<double>{0, 1, 0});
  // Groups in point order: (pinned, d2h), (pinned, h2d), (pageable, d2h), (pageable, h2d), (pinned, d2h) again...
  CHECK(p.variants.size() == 4);
  CHECK(p.variant_of_group == std::vector<uint32_t>{0, 1, 2, 3, 0, 1});
}

TEST_CASE("sweep shapes: each point's total equals eval, for either backend and any thread count") {
  // On Titan the pinned path has its gap, so `streams` stays an input; `memory` shapes the model.
  Planned p({"streams=1,8", "memory=pinned,pageable", "bytes=1MiB,1GiB"});
  CHECK_FALSE(p.axes[0].shape);
  CHECK(p.variants.size() == 2);
  for (auto backend : {driver::Sweep::Backend::Jit, driver::Sweep::Backend::Interp}) {
    driver::Sweep sweep(p.variants, p.variant_of_group, p.axes, backend);
    REQUIRE(sweep.size() == 8);
    std::vector<double> one(8), two(8), phases(8 * sweep.phase_count()), phases2(8 * sweep.phase_count());
    CHECK(sweep.run(0, 8, 1, one.data(), phases.data()) == -1);
    CHECK(sweep.run(0, 8, 3, two.data(), phases2.data()) == -1);
    CHECK(one == two);
    // Point 5: streams=8 (index 1), memory=pinned (0), bytes=1 GiB (1).
    CHECK(one[5] == approx(p.eval({{"streams", "8"}, {"memory", "pinned"}, {"bytes", "1GiB"}})).epsilon(1e-12));
    // Point 2: streams=1, memory=pageable, bytes=1 MiB.
    CHECK(one[2] == approx(p.eval({{"streams", "1"}, {"memory", "pageable"}, {"bytes", "1MiB"}})).epsilon(1e-12));
    CHECK(&sweep.module_at(5) == p.variants[p.variant_of_group[0]].module);  // memory=pinned: group 0
  }
}
