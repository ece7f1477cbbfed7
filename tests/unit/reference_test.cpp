// reference_test.cpp: tests that tie gpmc to the published models (the numbers printed in the papers), through
// the whole pipeline (driver::Session::compile + evaluate) on the shipped machines and apps.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support.h"
#include "backend/interp/interpreter.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

using gpm::test::approx;

const std::string kRoot = GPM_SOURCE_DIR;
const std::string kTitan = kRoot + "/machines/titan.gpm";
const std::string kSummit = kRoot + "/machines/summit.gpm";

// A session that compiled and evaluated one machine and app; `ok` says whether both steps succeeded.
struct Run {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  backend::Evaluation result;
  bool ok = false;

  std::string all_messages() {
    std::string out;
    for (const auto& d : session.diags().diagnostics()) out += session.diags().render(d);
    return out;
  }
  double param(const std::string& name) const {
    for (const auto& p : result.params)
      if (p.name == name) return p.value.value;
    FAIL("no param " << name);
    return 0;
  }
  const backend::ParamValue* param_info(const std::string& name) const {
    for (const auto& p : result.params)
      if (p.name == name) return &p;
    return nullptr;
  }
  const backend::Row* row_starting(const std::string& prefix) const {
    for (const auto& phase : result.phases)
      for (const auto& r : phase.rows)
        if (r.name.rfind(prefix, 0) == 0) return &r;
    return nullptr;
  }
};

std::unique_ptr<Run> run(const std::string& machine, const std::string& app,
                         const std::vector<driver::Setting>& settings = {}) {
  auto r = std::make_unique<Run>();
  auto compiled = r->session.compile(machine, app, settings);
  REQUIRE_MESSAGE(compiled, r->all_messages());
  r->ok = r->session.evaluate(*compiled, r->result);
  REQUIRE_MESSAGE(r->ok, r->all_messages());
  return r;
}


constexpr double kGiB = 1073741824.0;

// Titan's link: PCIe Gen2 x16 at 8 GB/s (AHEAD section VI-B) times the protocol efficiency of eq. 2 at 1 GiB:
// a host-to-device copy is a read (eq. 4: MRRS 512 B, RCB 64 B, 12-byte headers), device to host a write (eq. 5:
// MPS 256 B). Summit's: NVLink 2.0, two links of 25 GB/s, with eq. 6 (read) and 7 (write) for 16-byte flits and
// 256-byte payloads.
constexpr double kTitanH2D = 8e9 * kGiB / (12 + 512 + (kGiB / 64) * 12 + kGiB);
constexpr double kTitanD2H = 8e9 * kGiB / ((kGiB / 256) * 12 + kGiB);
constexpr double kSummitH2D = 50e9 * kGiB / (16 + (kGiB / 256) * 16 + kGiB);
constexpr double kSummitD2H = 50e9 * kGiB / ((kGiB / 256) * 16 + kGiB);

}  // namespace

TEST_CASE("reference: AHEAD eq. 10 on Titan: a pinned 1 GiB h2d copy takes L+O + n / (8 GB/s x read efficiency)") {
  auto r = run(kTitan, kRoot + "/apps/bandwidth.gpm", {{"bytes", "1GiB"}});
  // L+O = 9.420 us (van Werkhoven Table I), PCIe Gen2 x16 = 8 GB/s (AHEAD section VI-B) at 84.21% (eq. 4).
  CHECK(kTitanH2D / 8e9 == approx(64.0 / 76).epsilon(1e-6));
  double expected = 9.420e-6 + kGiB / kTitanH2D;
  CHECK(r->result.total_s == approx(expected).epsilon(1e-12));
  CHECK(r->result.machine == "titan");
  CHECK(r->result.app == "bandwidth");
  REQUIRE(r->result.phases.size() == 1);
  REQUIRE(r->result.phases[0].rows.size() == 1);
  const backend::Row& copy = r->result.phases[0].rows[0];
  CHECK(copy.model.find("eq. 10") != std::string::npos);
  CHECK(copy.name.find("(ddr3 -> opteron -> k20x)") != std::string::npos);
  const backend::ParamValue* bytes = r->param_info("bytes");
  REQUIRE(bytes);
  CHECK(bytes->overridden);
  CHECK(bytes->value.value == kGiB);
}

TEST_CASE("reference: AHEAD eq. 10 on Titan with the default 64 MiB and with a d2h copy") {
  auto r = run(kTitan, kRoot + "/apps/bandwidth.gpm");
  CHECK(r->result.total_s == approx(9.420e-6 + 64 * 1048576.0 / kTitanH2D).epsilon(1e-12));
  test::TempFile app("reference_test", "d2h.gpm", "app back { param n = 1 GiB\n copy d2h n pinned }\n");
  auto d = run(kTitan, app.path.string());
  // Device to host uses the reverse direction: L+O = 9.023 us (van Werkhoven Table I), write efficiency 256/268.
  CHECK(kTitanD2H / 8e9 == approx(256.0 / 268).epsilon(1e-12));
  CHECK(d->result.total_s == approx(9.023e-6 + kGiB / kTitanD2H).epsilon(1e-12));
}

TEST_CASE("reference: AHEAD eq. 9 on Titan: a pageable copy adds 2n / host memory bandwidth") {
  test::TempFile app("reference_test", "pageable.gpm", "app pageable { param n = 1 GiB\n copy h2d n pageable }\n");
  auto r = run(kTitan, app.path.string());
  double host_mem_bw = r->param("host_mem_bw");
  CHECK(host_mem_bw == approx(51.2e9).epsilon(1e-12));  // DDR3-1600, four channels
  double expected = 9.420e-6 + 2 * kGiB / host_mem_bw + kGiB / kTitanH2D;
  CHECK(r->result.total_s == approx(expected).epsilon(1e-12));
  const backend::Row* copy = r->row_starting("copy h2d n pageable");
  REQUIRE(copy);
  CHECK(copy->model.find("eq. 9") != std::string::npos);
}

TEST_CASE("reference: a pageable copy from a data buffer follows eq. 9 too") {
  test::TempFile app("reference_test", "buffer.gpm", "app buffered { data h : host pageable (256 MiB)\n copy h2d h }\n");
  auto r = run(kTitan, app.path.string());
  double n = 256 * 1048576.0;
  CHECK(r->result.total_s == approx(9.420e-6 + 2 * n / 51.2e9 + n / kTitanH2D).epsilon(1e-12));
}

TEST_CASE("reference: PCIe Gen2 x16 in titan.gpm is 8.0 GB/s") {
  auto r = run(kTitan, kRoot + "/apps/bandwidth.gpm");
  const backend::ParamValue* bw = r->param_info("link_bw");
  REQUIRE(bw);
  CHECK(bw->value.value == approx(8.0e9).epsilon(1e-15));
  CHECK(bw->value.dim == support::Dim::byte() / support::Dim::seconds());
  CHECK(r->param("lo_h2d") == approx(9.420e-6).epsilon(1e-15));
  CHECK(r->param("lo_d2h") == approx(9.023e-6).epsilon(1e-15));
  CHECK(r->param("bw_h2d") == approx(kTitanH2D).epsilon(1e-12));
  CHECK(r->param("bw_d2h") == approx(kTitanD2H).epsilon(1e-12));
}

TEST_CASE("reference: PCIe Gen3 x16 `16 * 8 GT/s * 1 b * 128 / 130` is 15.754 GB/s") {
  test::TempFile app("reference_test", "gen3.gpm", "app links { param gen3 = 16 * 8 GT/s * 1 b * 128 / 130\n"
                           "param gen4 = 16 * 16 GT/s * 1 b * 128 / 130\n overhead 1 us }\n");
  auto r = run(kTitan, app.path.string());
  const backend::ParamValue* gen3 = r->param_info("gen3");
  REQUIRE(gen3);
  CHECK(gen3->value.dim == support::Dim::byte() / support::Dim::seconds());
  // AHEAD eq. 3: 16 lanes x 8 GT/s x 128/130 / 8 bits = 15.754 GB/s (Gen4: 31.508 GB/s), to 5 figures.
  CHECK(std::round(gen3->value.value / 1e9 * 1000) / 1000 == approx(15.754));
  CHECK(gen3->value.value == approx(15.754e9).epsilon(1e-4));
  CHECK(r->param("gen4") == approx(31.508e9).epsilon(1e-4));
  CHECK(gen3->value.value == approx(16 * 8e9 / 8 * 128.0 / 130).epsilon(1e-14));
}

TEST_CASE("reference: the Jacobi2D stencil on Summit is memory-bound: 2 * 16384^2 * 8 B / 900 GB/s") {
  auto r = run(kSummit, kRoot + "/apps/jacobi2d.gpm");
  const backend::Row* stencil = r->row_starting("run stencil");
  REQUIRE(stencil);
  double n = 16384;
  double memory = 2 * n * n * 8 / 900e9;
  double compute = 6 * n * n / 7.8e12;
  CHECK(stencil->each_s == approx(memory).epsilon(1e-12));
  CHECK(stencil->model == "roofline");
  REQUIRE(stencil->terms.size() == 2);
  CHECK(stencil->terms[0].name == "compute time");
  CHECK(stencil->terms[0].value.value == approx(compute).epsilon(1e-12));
  CHECK(stencil->terms[1].name == "memory time");
  CHECK(stencil->terms[1].value.value == approx(memory).epsilon(1e-12));
  CHECK(stencil->terms[1].value.value > stencil->terms[0].value.value);  // memory-bound
  CHECK(stencil->count == 100);  // 100 iterations (Choi et al. section 4.2)
  CHECK(stencil->total_s == approx(100 * memory).epsilon(1e-12));
  CHECK(stencil->name == "run stencil on s[0].g[0]");
}

TEST_CASE("reference: Summit's L+O is 1.42 times Titan's (AHEAD section VIII)") {
  auto summit = run(kSummit, kRoot + "/apps/bandwidth.gpm", {{"bytes", "1 B"}});
  auto titan = run(kTitan, kRoot + "/apps/bandwidth.gpm", {{"bytes", "1 B"}});
  CHECK(summit->param("lo_h2d") == approx(1.42 * 9.420e-6).epsilon(1e-12));
  // A one-byte transfer: L+O dominates; Summit over NVLink 2.0 at 50 GB/s, Titan over PCIe at 8 GB/s, each times
  // its large-copy protocol efficiency.
  CHECK(summit->result.total_s == approx(1.42 * 9.420e-6 + 1 / kSummitH2D).epsilon(1e-12));
  CHECK(titan->result.total_s == approx(9.420e-6 + 1 / kTitanH2D).epsilon(1e-12));
  CHECK(kSummitD2H / 50e9 == approx(256.0 / 272).epsilon(1e-12));  // AHEAD: 94.12%
  CHECK(summit->param("bw_d2h") == approx(kSummitD2H).epsilon(1e-12));
  CHECK(summit->result.total_s / titan->result.total_s == approx(1.42).epsilon(1e-3));
}

TEST_CASE("reference: the Jacobi2D iteration on Summit sums its kernels, copies and overhead") {
  auto r = run(kSummit, kRoot + "/apps/jacobi2d.gpm");
  double n = 16384, halo = 4 * n * 8;
  double lo_h2d = 1.42 * 9.420e-6, lo_d2h = 1.42 * 9.023e-6, hbm = 900e9;
  double pack = 2 * halo / hbm, unpack = pack;
  double stencil = 2 * n * n * 8 / hbm, reduce = n * n * 8 / hbm;
  double copies = (lo_d2h + halo / kSummitD2H) + (lo_h2d + halo / kSummitH2D) + (lo_d2h + 8 / kSummitD2H);
  // Communication, K-model (E2E eq. 2-5) with the Summit fits of Tables 3 and 4: 6 ranks on one node in a periodic
  // 3 x 2 grid (x fastest), 3 ranks per socket. Each rank sends 2 faces (128 KiB, rendezvous) within its socket
  // (k = 3 ranks of the socket) and 2 to the other socket (k = 6 ranks of the node).
  double face = n * 8;
  double intra = 3.59e-6 + 3 * face / (1.80e10 + 2 * 1.53e10), inter = 4.04e-6 + 6 * face / (8.28e9 + 5 * 7.08e9);
  double halo_exchange = 2 * intra + 2 * inter;
  // Allreduce of 8 B by recursive doubling over 6 ranks: fold in, 2 steps, fold out; each step's slowest message
  // is short and inter-socket with k = 2 (Table 3: alpha 1.02e-6 s, beta 1.45e-9 s/B).
  double allreduce = 4 * (1.02e-6 + 2 * 8 * 1.45e-9);
  double iteration = pack + unpack + stencil + reduce + copies + 200e-6 + halo_exchange + allreduce;
  REQUIRE(r->result.phases.size() == 1);
  CHECK(r->result.phases[0].model == "100 iterations");
  CHECK(r->result.total_s == approx(100 * iteration).epsilon(1e-12));
}

TEST_CASE("reference: --set values are checked against the parameter's dimension and range") {
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  CHECK_FALSE(s.compile(kTitan, kRoot + "/apps/bandwidth.gpm", {{"bytes", "1 s"}}));
  bool invalid = false;
  for (const auto& d : s.diags().diagnostics()) invalid = invalid || d.kind == support::DiagKind::InvalidSetValue;
  CHECK(invalid);

  driver::Session u{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  CHECK_FALSE(u.compile(kTitan, kRoot + "/apps/bandwidth.gpm", {{"nope", "1"}}));
  bool unknown = false;
  for (const auto& d : u.diags().diagnostics()) unknown = unknown || d.kind == support::DiagKind::UnknownParameter;
  CHECK(unknown);

  driver::Session big{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  // A value outside its range is refused when the model is compiled, before it shapes anything.
  CHECK_FALSE(big.compile(kTitan, kRoot + "/apps/bandwidth.gpm", {{"bytes", "128 GiB"}}));
  bool range = false;
  for (const auto& d : big.diags().diagnostics()) range = range || d.kind == support::DiagKind::ParamOutOfRange;
  CHECK(range);
}

TEST_CASE("reference: giving an app where the machine belongs is WrongModelKind") {
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  CHECK_FALSE(s.compile(kRoot + "/apps/bandwidth.gpm", kTitan, {}));
  bool wrong = false;
  for (const auto& d : s.diags().diagnostics()) wrong = wrong || d.kind == support::DiagKind::WrongModelKind;
  CHECK(wrong);
}

TEST_CASE("reference: Session::check accepts each shipped machine with the shipped apps") {
  for (const std::string& machine : {kTitan, kSummit}) {
    driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
    bool ok = s.check({machine, kRoot + "/apps/bandwidth.gpm", kRoot + "/apps/jacobi2d.gpm"});
    std::string messages;
    for (const auto& d : s.diags().diagnostics()) messages += s.diags().render(d);
    INFO(machine, messages);
    CHECK(ok);
  }
}
