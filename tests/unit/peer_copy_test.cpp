// peer_copy_test.cpp: `copy p2p` (AHEAD section IV-C, eq. 10 between two GPUs) through the whole pipeline: routes on
// the shipped DGX-1 and Summit, L+O and bandwidth of a route, both backends, and the diagnostics.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

#include "test_support.h"
#include "backend/interp/interpreter.h"
#include "backend/jit/jit.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

using gpm::test::approx;
const std::string kRoot = GPM_SOURCE_DIR;

// An app in a temporary file, removed afterwards.
struct AppFile {
  fs::path path;
  explicit AppFile(const std::string& text) {
    fs::path dir = fs::temp_directory_path() / ("gpm_peer_copy_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = dir / "app.gpm";
    std::ofstream(path, std::ios::binary) << text;
  }
  ~AppFile() {
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(path.parent_path(), ec);
  }
};

struct Result {
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  backend::Evaluation evaluation;
  bool ok = false;
};

std::unique_ptr<Result> evaluate(const std::string& machine, const std::string& app_text) {
  auto r = std::make_unique<Result>();
  AppFile app(app_text);
  auto compiled = r->session.compile(machine, app.path.string(), {});
  if (compiled) r->ok = r->session.evaluate(*compiled, r->evaluation);
  return r;
}

const backend::Row& only_row(const backend::Evaluation& e, size_t phase = 0) {
  REQUIRE(e.phases.size() > phase);
  REQUIRE(e.phases[phase].rows.size() == 1);
  return e.phases[phase].rows[0];
}

}  // namespace

TEST_CASE("copy p2p: a direct NVLink on the DGX-1 at its write efficiency (AHEAD eq. 2, 7, 10)") {
  auto r = evaluate(kRoot + "/machines/dgx1.gpm", "app a { copy p2p 1 GiB from g[2] to g[3] }\n");
  REQUIRE(r->ok);
  const backend::Row& row = only_row(r->evaluation);
  CHECK(row.name == "copy p2p 1 GiB from g[2] to g[3] (g[2] -> g[3])");
  CHECK(row.model == "AHEAD eq. 10, GPU to GPU (section IV-C)");
  CHECK(row.part == "communication");
  double bw = 20e9 * 256.0 / 272;  // NVLink 1.0 link, eq. 7 at 1 GiB
  CHECK(row.each_s == approx(1073741824.0 / bw));
  REQUIRE(row.terms.size() == 2);
  CHECK(row.terms[0].name == "L+O");
  CHECK(row.terms[0].value.value == 0);
  CHECK(row.terms[1].value.value == approx(bw));
}

TEST_CASE("copy p2p: without an NVLink the DGX-1 copy crosses PCIe, both sockets and QPI, not another GPU") {
  auto r = evaluate(kRoot + "/machines/dgx1.gpm", "app a { copy p2p 64 MiB from g[1] to g[6] }\n");
  REQUIRE(r->ok);
  const backend::Row& row = only_row(r->evaluation);
  CHECK(row.name == "copy p2p 64 MiB from g[1] to g[6] (g[1] -> s[0].plx[0] -> s[0].xeon -> s[1].xeon -> "
                    "s[1].plx[1] -> g[6])");
  double pcie = 16 * 8e9 / 8 * 128.0 / 130 * 256.0 / 268;  // Gen3 x16 at the write efficiency of eq. 5
  CHECK(row.each_s == approx(64 * 1048576.0 / pcie));
}

TEST_CASE("copy p2p: Summit's GPUs of one socket share NVLinks; across sockets the X-Bus and the host links") {
  auto r = evaluate(kRoot + "/machines/summit.gpm",
                    "app a {\n data w : device (16 MiB)\n copy p2p w from s[0].g[0] to s[0].g[2]\n"
                    " copy p2p w from s[0].g[1] to s[1].g[0]\n}\n");
  REQUIRE(r->ok);
  const backend::Row& near = only_row(r->evaluation, 0);
  const backend::Row& far = only_row(r->evaluation, 1);
  CHECK(near.name == "copy p2p w from s[0].g[0] to s[0].g[2] (s[0].g[0] -> s[0].g[2])");
  CHECK(far.name == "copy p2p w from s[0].g[1] to s[1].g[0] (s[0].g[1] -> s[0].p9 -> s[1].p9 -> s[1].g[0])");
  double n = 16 * 1048576.0, gib = 1073741824.0;
  double write = 50e9 * gib / (gib / 256 * 16 + gib), read = 50e9 * gib / (16 + gib / 256 * 16 + gib);
  // L+O: the GPU-GPU link's (a device-to-host one-byte copy, machines/summit.gpm); across sockets the host links'
  // device-to-host and host-to-device latencies.
  CHECK(near.each_s == approx(1.42 * 9.023e-6 + n / write));
  CHECK(far.each_s == approx(1.42 * 9.023e-6 + 1.42 * 9.420e-6 + n / std::min(write, read)));
}

TEST_CASE("copy p2p: the JIT computes the same times as the interpreter") {
  AppFile app("app a {\n param n = 300 MB\n iterate 3 { copy p2p n from g[0] to g[5]; copy p2p n from g[5] to g[4] }\n}\n");
  driver::Session s{driver::Options{{}, GPM_SOURCE_DIR "/stdlib"}};
  auto compiled = s.compile(kRoot + "/machines/cs_storm_t2.gpm", app.path.string(), {});
  REQUIRE(compiled);
  backend::Evaluation interp;
  REQUIRE(s.evaluate(*compiled, interp));
  backend::Evaluation jit;
  REQUIRE(backend::jit::evaluate(compiled->module, compiled->bound, s.diags(), jit));
  double b = 300e6 / 25.2829e-3;  // every CS-Storm link, no latencies
  CHECK(interp.total_s == approx(6 * 300e6 / b));
  CHECK(jit.total_s == interp.total_s);
  REQUIRE(jit.phases.size() == 1);
  REQUIRE(jit.phases[0].rows.size() == interp.phases[0].rows.size());
  for (size_t i = 0; i < jit.phases[0].rows.size(); ++i) {
    CHECK(jit.phases[0].rows[i].name == interp.phases[0].rows[i].name);
    CHECK(jit.phases[0].rows[i].each_s == interp.phases[0].rows[i].each_s);
  }
}

TEST_CASE("copy p2p: same GPU, no path, a component that is not one GPU") {
  std::string machine = kRoot + "/tests/golden/copies/inputs/pcie_tree.gpm";
  auto same = evaluate(machine, "app a { copy p2p 1 MB from g[0] to g[0] }\n");
  CHECK_FALSE(same->ok);
  CHECK(test::DiagnosticsView{same->session.diags()}.has(support::DiagKind::InvalidKeyword));
  auto none = evaluate(machine, "app a { copy p2p 1 MB from g[0] to alone }\n");
  CHECK_FALSE(none->ok);
  CHECK(test::DiagnosticsView{none->session.diags()}.has(support::DiagKind::NoPath));
  auto cpu = evaluate(machine, "app a { copy p2p 1 MB from host to g[0] }\n");
  CHECK_FALSE(cpu->ok);
  CHECK(test::DiagnosticsView{cpu->session.diags()}.has(support::DiagKind::UnknownComponent));
}
