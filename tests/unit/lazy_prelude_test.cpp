// lazy_prelude_test.cpp: the standard library parsed only as far as a model uses it (frontend/prelude_index.h,
// Loader::complete_prelude, driver::Options::lazy_prelude) gives what the whole prelude gives: the same IR for every
// shipped machine and app, the same diagnostics for models in error.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support.h"
#include "driver/pipeline.h"
#include "frontend/prelude_index.h"
#include "ir/printer.h"

using namespace gpm;
namespace fs = std::filesystem;

namespace {

driver::Options options(bool lazy, std::vector<std::string> words = {}) {
  driver::Options o;
  o.stdlib_dir = GPM_SOURCE_DIR "/stdlib";
  o.lazy_prelude = lazy;
  o.referenced_names = std::move(words);
  return o;
}

// The IR of MACHINE and APP as `gpmc dump-ir` prints it, or the diagnostics when they do not compile.
std::string compile_text(const std::string& machine, const std::string& app, bool lazy,
                         const std::vector<driver::Setting>& settings = {}) {
  std::vector<std::string> words;
  for (const auto& s : settings) words.push_back(s.value);
  driver::Session session(options(lazy, words));
  auto compiled = session.compile(machine, app, settings);
  std::string out;
  for (const auto& d : session.diags().diagnostics()) out += session.diags().render(d) + "\n";
  if (compiled) out += ir::print_module(compiled->module, &compiled->bound);
  return out;
}


std::vector<std::string> models(const char* folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(GPM_SOURCE_DIR) / folder))
    if (e.path().extension() == ".gpm") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("lazy prelude: the declarations of a file and the identifiers they mention") {
  auto decls = frontend::index_declarations(
      "// a comment\nfn a(x: time) -> time = b(x) + c\n"
      "type t : library { k = f(1) }\nlet c = 2 s\nparam p = 1\nmachine m { }\n");
  REQUIRE(decls);
  REQUIRE(decls->size() == 5);
  CHECK((*decls)[0].name == "a");
  CHECK((*decls)[0].optional);
  CHECK((*decls)[0].refs == std::set<std::string>{"x", "time", "b", "c"});
  CHECK((*decls)[0].span.line == 3);  // resumes at `type`, on line 3
  CHECK((*decls)[1].name == "t");
  CHECK((*decls)[1].refs == std::set<std::string>{"library", "k", "f"});
  CHECK((*decls)[2].name == "c");
  CHECK_FALSE((*decls)[3].optional);  // a param is always parsed
  CHECK_FALSE((*decls)[4].optional);
  // Not a plain sequence of declarations: parsed whole.
  CHECK_FALSE(frontend::index_declarations("fn a() -> time = (1 s\n"));
  CHECK_FALSE(frontend::index_declarations("x fn a() -> time = 1 s\n"));
  CHECK_FALSE(frontend::index_declarations("fn a() -> time = 1 s $\n"));
  std::set<std::string> ids;
  frontend::collect_identifiers("fn a(x: time) -> time = x // b\n/* c */", ids);
  CHECK(ids == std::set<std::string>{"a", "x", "time"});
}

TEST_CASE("lazy prelude: every shipped machine and app lowers to the same IR as with the whole prelude") {
  int compared = 0;
  for (const auto& machine : models("machines"))
    for (const auto& app : models("apps")) {
      CAPTURE(machine);
      CAPTURE(app);
      CHECK(compile_text(machine, app, true) == compile_text(machine, app, false));
      ++compared;
    }
  CHECK(compared > 100);
}

TEST_CASE("lazy prelude: what the model does not use is not parsed") {
  auto fns = [](bool lazy) {
    driver::Session session(options(lazy));
    REQUIRE(session.compile(GPM_SOURCE_DIR "/machines/summit.gpm", GPM_SOURCE_DIR "/apps/jacobi2d.gpm", {}));
    std::set<std::string> names;
    for (const auto* fn : session.program().fns) names.insert(fn->name);
    return names;
  };
  std::set<std::string> lazy = fns(true), whole = fns(false);
  CHECK(whole.count("pcie_link_bw") == 1);
  CHECK(lazy.count("pcie_link_bw") == 0);  // Summit's links are NVLink (stdlib/nvlink.gpm)
  CHECK(lazy.count("nvlink_link_bw") == 1);
  CHECK(lazy.count("roofline_time") == 1);  // called by the lowering
  CHECK(lazy.size() < whole.size());
}

TEST_CASE("lazy prelude: a model in error gets the diagnostics of the whole prelude") {
  const std::string machine = GPM_SOURCE_DIR "/machines/summit.gpm";
  SUBCASE("a misspelt stdlib function: the suggestion comes from a file the model does not otherwise use") {
    test::TempFile app("lazy_prelude_test", "app.gpm", "app a {\n  param bw = pcie_link_bww(3, 16)\n}\n");
    std::string lazy = compile_text(machine, app.path.string(), true);
    CHECK(lazy.find("did you mean") != std::string::npos);
    CHECK(lazy == compile_text(machine, app.path.string(), false));
  }
  SUBCASE("an unknown library type") {
    test::TempFile app("lazy_prelude_test", "app.gpm", "app a {\n  mpi allreduce { ranks = 2; bytes = 1 MB; library = nccl_hoper }\n}\n");
    CHECK(compile_text(machine, app.path.string(), true) == compile_text(machine, app.path.string(), false));
  }
  SUBCASE("a --set value that calls a stdlib function no file mentions") {
    test::TempFile app("lazy_prelude_test", "app.gpm", "app a {\n  param t = 1 s\n  overhead t\n}\n");
    std::vector<driver::Setting> settings = {{"t", "1 GB / pcie_link_bw(3, 16)"}};
    CHECK(compile_text(machine, app.path.string(), true, settings) ==
          compile_text(machine, app.path.string(), false, settings));
  }
  SUBCASE("a user file that imports a stdlib file gets all of it") {
    test::TempFile app("lazy_prelude_test", "app.gpm", "import \"pcie\"\napp a {\n  param t = 1 s\n  overhead t\n}\n");
    CHECK(compile_text(machine, app.path.string(), true) == compile_text(machine, app.path.string(), false));
  }
}
