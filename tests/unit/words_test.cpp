// words_test.cpp: word parameters: sema's index for the default, --set by word, the lowering's choice of
// model and route, the shape slot they occupy, and the diagnostics of misuse.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support.h"
#include "driver/pipeline.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

using gpm::test::approx;

const char* kMachine = R"(machine m {
  node {
    memory ram { bw = 100 GB/s }
    cpu host { cores = 1 }
    gpu g { mem_bw = 1000 GB/s; d2d_latency = 2 us }
    link ram <-> host { bw = 100 GB/s }
    link host <-> g { bw = 10 GB/s; latency_fwd = 10 us; latency_rev = 20 us }
  }
}
)";

const char* kApp = R"(app a {
  param direction = h2d in {h2d, d2h}
  param memory = pinned in {pinned, pageable}
  copy direction 10 MB memory
}
)";

struct Run {
  fs::path dir = fs::temp_directory_path() / ("gpm_words_test_" + std::to_string(::getpid()));
  driver::Session session{driver::Options{{}, GPM_SOURCE_DIR "/stdlib", ""}};
  std::unique_ptr<driver::Compiled> compiled;
  backend::Evaluation result;
  Run(const std::string& app, const std::vector<driver::Setting>& settings) {
    fs::create_directories(dir);
    std::ofstream(dir / "m.gpm") << kMachine;
    std::ofstream(dir / "a.gpm") << app;
    compiled = session.compile((dir / "m.gpm").string(), (dir / "a.gpm").string(), settings);
    if (compiled) session.evaluate(*compiled, result);
  }
  ~Run() { fs::remove_all(dir); }
  bool has(support::DiagKind kind) {
    for (const auto& d : session.diags().diagnostics())
      if (d.kind == kind) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("words: the default word is the parameter's value; --set picks another word and another model") {
  Run defaults(kApp, {});
  REQUIRE(defaults.compiled);
  CHECK(defaults.result.total_s == approx(10e-6 + 10e6 / 10e9));  // AHEAD eq. 10, h2d: 1.01 ms
  REQUIRE(defaults.result.params.size() == 2);
  CHECK(defaults.result.params[0].word == "h2d");
  CHECK(defaults.result.params[0].value.value == 0);
  CHECK(defaults.result.params[1].word == "pinned");
  // d2h (the other latency) from pageable memory: AHEAD eq. 9, 20 us + 2 x 10 MB / 100 GB/s + 10 MB / 10 GB/s.
  Run set(kApp, {{"direction", "d2h"}, {"memory", "pageable"}});
  REQUIRE(set.compiled);
  CHECK(set.result.total_s == approx(20e-6 + 2 * 10e6 / 100e9 + 10e6 / 10e9));
  CHECK(set.result.params[0].word == "d2h");
  CHECK(set.result.params[0].overridden);
  CHECK(set.result.phases[0].name.find("copy d2h 10 MB pageable") == 0);
}

TEST_CASE("words: a word parameter used by the lowering is a shape slot (one compiled model per word)") {
  Run run(kApp, {});
  REQUIRE(run.compiled);
  const auto& m = run.compiled->module;
  REQUIRE(m.params.size() == 2);
  CHECK(m.params[0].words == std::vector<std::string>{"h2d", "d2h"});
  CHECK(m.shape_slots.count(0) == 1);
  CHECK(m.shape_slots.count(1) == 1);
}

TEST_CASE("words: misuse is a diagnostic of its own kind") {
  CHECK(Run(kApp, {{"direction", "up"}}).has(support::DiagKind::InvalidSetValue));
  CHECK(Run(kApp, {{"direction", "2"}}).has(support::DiagKind::WordParamMisuse));
  CHECK(Run("app a {\n  param n = 1 MB\n  copy h2d n pinned\n}\n", {{"n", "pinned"}})
            .has(support::DiagKind::WordParamMisuse));
  CHECK(Run("app a {\n  param memory = pinned in {pinned, pageable}\n  copy h2d 1 MB * memory pinned\n}\n", {})
            .has(support::DiagKind::WordParamMisuse));
  CHECK(Run("app a {\n  param n = 3\n  copy h2d 1 MB n\n}\n", {}).has(support::DiagKind::WordParamMisuse));
  CHECK(Run("app a {\n  param d = h2d in {h2d, sideways}\n  copy d 1 MB pinned\n}\n", {})
            .has(support::DiagKind::InvalidKeyword));
  CHECK(Run("app a {\n  param d = d2x in {h2d, d2h}\n  copy d 1 MB pinned\n}\n", {})
            .has(support::DiagKind::InvalidKeyword));
}
