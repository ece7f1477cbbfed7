// qroofline_test.cpp: unit tests of the quantitative roofline (E2E paper section 3.3): L2 and shared-memory terms,
// the bound they set, and --set what-ifs on flop/s and bandwidth (section 6.2, Figure 15).
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "lower/lower.h"
#include "test_support.h"

using namespace gpm;

namespace {

using test::approx;

struct QEvaluated : test::Pipeline {
  backend::Evaluation result;
  bool ok = false;
  const backend::Row* row(const std::string& name) const {
    for (const auto& phase : result.phases)
      for (const auto& r : phase.rows)
        if (r.name == name) return &r;
    return nullptr;
  }
};

// A GPU whose rates are params, so that --set can change them; a kernel with every count.
const char* kModel = R"(
param peak = 10 Tflop/s
param dram = 1000 GB/s
param l2 = 2000 GB/s
param shared = 10 TB/s
machine m { node { gpu g { peak_fp64 = peak; mem_bw = dram; l2_bw = l2; shared_bw = shared } } }
app a {
  kernel k { flops = 10 Gflop; bytes = 2 GB; l2_bytes = 6 GB; shared_bytes = 20 GB }
  run k
}
)";

std::unique_ptr<QEvaluated> evaluate(const std::string& text, const std::map<std::string, double>& bindings = {}) {
  auto e = std::make_unique<QEvaluated>();
  e->lower(text, bindings);
  REQUIRE_MESSAGE(!e->diags.has_errors(), e->all_messages());
  e->ok = backend::evaluate(e->ir, e->bound, e->diags, e->result);
  return e;
}

}  // namespace

TEST_CASE("qroofline: every term is reported and the largest bounds the kernel") {
  auto e = evaluate(kModel);
  REQUIRE(e->ok);
  const backend::Row* r = e->row("run k on g");
  REQUIRE(r);
  REQUIRE(r->terms.size() == 4);
  CHECK(r->terms[0].name == "compute time");
  CHECK(r->terms[0].value.value == approx(10e9 / 10e12));  // 1 ms
  CHECK(r->terms[1].name == "memory time");
  CHECK(r->terms[1].value.value == approx(2e9 / 1000e9));  // 2 ms
  CHECK(r->terms[2].name == "L2 time");
  CHECK(r->terms[2].value.value == approx(6e9 / 2000e9));  // 3 ms
  CHECK(r->terms[3].name == "shared memory time");
  CHECK(r->terms[3].value.value == approx(20e9 / 10e12));  // 2 ms
  CHECK(r->each_s == approx(3e-3));
  CHECK(r->bound == "L2 time");
  CHECK(r->model == "quantitative roofline");
}

TEST_CASE("qroofline: what-ifs move the time only through the bounding term") {
  // Twice the flop/s: compute time halves, the L2 bound holds.
  auto fast = evaluate(kModel, {{"peak", 20e12}});
  REQUIRE(fast->ok);
  CHECK(fast->row("run k on g")->each_s == approx(3e-3));
  // Half the DRAM bandwidth: memory time 4 ms becomes the bound.
  auto slow_dram = evaluate(kModel, {{"dram", 500e9}});
  REQUIRE(slow_dram->ok);
  CHECK(slow_dram->row("run k on g")->each_s == approx(4e-3));
  CHECK(slow_dram->row("run k on g")->bound == "memory time");
  // Half the L2 bandwidth doubles the L2-bound time.
  auto slow_l2 = evaluate(kModel, {{"l2", 1000e9}});
  REQUIRE(slow_l2->ok);
  CHECK(slow_l2->row("run k on g")->each_s == approx(6e-3));
  // Half the shared-memory bandwidth: 4 ms, now the largest term.
  auto slow_shared = evaluate(kModel, {{"shared", 5e12}});
  REQUIRE(slow_shared->ok);
  CHECK(slow_shared->row("run k on g")->each_s == approx(4e-3));
  CHECK(slow_shared->row("run k on g")->bound == "shared memory time");
}

TEST_CASE("qroofline: a kernel without the new counts keeps the plain roofline") {
  auto e = evaluate(R"(
machine m { node { gpu g { peak_fp64 = 10 Tflop/s; mem_bw = 1000 GB/s } } }
app a { kernel k { flops = 10 Gflop; bytes = 2 GB } run k }
)");
  REQUIRE(e->ok);
  const backend::Row* r = e->row("run k on g");
  REQUIRE(r);
  CHECK(r->terms.size() == 2);
  CHECK(r->model == "roofline");
  CHECK(r->each_s == approx(2e-3));
}

TEST_CASE("qroofline: l2_bytes on a gpu without l2_bw is MissingAttribute") {
  QEvaluated e;
  std::string text = R"(
machine m { node { gpu g { peak_fp64 = 10 Tflop/s; mem_bw = 1000 GB/s } } }
app a { kernel k { flops = 1 Gflop; l2_bytes = 1 GB } run k }
)";
  // lower() requires sema to pass; the missing attribute is found while lowering.
  e.lower(text, {});
  CHECK(e.has(support::DiagKind::MissingAttribute));
}
