// loader_test.cpp: unit tests of file reading and import resolution (file's folder, stdlib, include dirs),
// missing imports, cycles, empty and oversized files. Files are written under a temporary folder.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

#include "support/diagnostics.h"
#include "frontend/loader.h"

using namespace gpm::frontend;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temporary directory, removed afterwards.
struct TempDir {
  fs::path root;
  TempDir() {
    static int counter = 0;
    root = fs::temp_directory_path() /
           ("gpm_loader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(root);
    fs::create_directories(root);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string write(const std::string& relative, const std::string& text) const {
    fs::path p = root / relative;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
    return p.string();
  }
  std::string path(const std::string& relative) const { return (root / relative).string(); }
};

struct Loading {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  std::unique_ptr<Loader> loader;
  explicit Loading(LoaderOptions options) { loader = std::make_unique<Loader>(sources, diags, std::move(options)); }
  bool has(DiagKind kind) const {
    for (const auto& d : diags.diagnostics())
      if (d.kind == kind) return true;
    return false;
  }
  const Diagnostic* find(DiagKind kind) const {
    for (const auto& d : diags.diagnostics())
      if (d.kind == kind) return &d;
    return nullptr;
  }
  std::string all_messages() const {
    std::string out;
    for (const auto& d : diags.diagnostics()) out += diags.render(d);
    return out;
  }
  // Whether some loaded module declares a top-level name.
  bool declares(const std::string& name) const {
    for (const auto& m : loader->modules())
      for (const auto& d : m->decls)
        if (d->name == name) return true;
    return false;
  }
};

LoaderOptions options_for(const TempDir& dir) {
  LoaderOptions o;
  o.stdlib_dir = dir.path("std");
  o.prelude.clear();
  return o;
}

}  // namespace

TEST_CASE("loader: a root file without imports loads as one module") {
  TempDir dir;
  std::string main = dir.write("main.gpm", "param x = 1\n");
  Loading l(options_for(dir));
  const Module* m = l.loader->load_root(main);
  INFO(l.all_messages());
  REQUIRE(m);
  CHECK_FALSE(l.diags.has_errors());
  CHECK(l.loader->modules().size() == 1);
  CHECK(m->path == main);
  CHECK(l.sources.path(m->file) == main);
}

TEST_CASE("loader: an import is resolved from the importing file's folder, with or without .gpm") {
  TempDir dir;
  dir.write("models/helper.gpm", "param from_helper = 1\n");
  dir.write("models/other.gpm", "param from_other = 2\n");
  std::string main = dir.write("models/main.gpm", "import \"helper\"\nimport \"other.gpm\"\nparam y = 3\n");
  Loading l(options_for(dir));
  const Module* m = l.loader->load_root(main);
  INFO(l.all_messages());
  REQUIRE(m);
  CHECK_FALSE(l.diags.has_errors());
  REQUIRE(l.loader->modules().size() == 3);
  // Imports come before their importer.
  CHECK(l.loader->modules().back() == m);
  CHECK(l.declares("from_helper"));
  CHECK(l.declares("from_other"));
}

TEST_CASE("loader: an import into a subfolder is found relative to the importer") {
  TempDir dir;
  dir.write("a/lib/deep.gpm", "param deep = 1\n");
  std::string main = dir.write("a/main.gpm", "import \"lib/deep\"\n");
  Loading l(options_for(dir));
  REQUIRE(l.loader->load_root(main));
  CHECK(l.declares("deep"));
}

TEST_CASE("loader: an import not next to the file is found in the standard library") {
  TempDir dir;
  dir.write("std/stdthing.gpm", "param from_std = 1\n");
  std::string main = dir.write("user/main.gpm", "import \"stdthing\"\n");
  Loading l(options_for(dir));
  REQUIRE(l.loader->load_root(main));
  INFO(l.all_messages());
  CHECK_FALSE(l.diags.has_errors());
  CHECK(l.declares("from_std"));
}

TEST_CASE("loader: an import is found in an include folder") {
  TempDir dir;
  dir.write("inc1/nothere.gpm", "param wrong_folder = 1\n");
  dir.write("inc2/extra.gpm", "param from_include = 1\n");
  std::string main = dir.write("user/main.gpm", "import \"extra\"\n");
  LoaderOptions o = options_for(dir);
  o.include_dirs = {dir.path("inc1"), dir.path("inc2")};
  Loading l(o);
  REQUIRE(l.loader->load_root(main));
  INFO(l.all_messages());
  CHECK_FALSE(l.diags.has_errors());
  CHECK(l.declares("from_include"));
  CHECK_FALSE(l.declares("wrong_folder"));
}

TEST_CASE("loader: the file's folder wins over the standard library, which wins over include folders") {
  TempDir dir;
  dir.write("user/same.gpm", "param local_copy = 1\n");
  dir.write("std/same.gpm", "param std_copy = 1\n");
  dir.write("std/second.gpm", "param std_second = 1\n");
  dir.write("inc/second.gpm", "param inc_second = 1\n");
  std::string main = dir.write("user/main.gpm", "import \"same\"\nimport \"second\"\n");
  LoaderOptions o = options_for(dir);
  o.include_dirs = {dir.path("inc")};
  Loading l(o);
  REQUIRE(l.loader->load_root(main));
  CHECK(l.declares("local_copy"));
  CHECK_FALSE(l.declares("std_copy"));
  CHECK(l.declares("std_second"));
  CHECK_FALSE(l.declares("inc_second"));
}

TEST_CASE("loader: a file imported twice (a diamond) is loaded once") {
  TempDir dir;
  dir.write("base.gpm", "param base = 1\n");
  dir.write("left.gpm", "import \"base\"\nparam left = 1\n");
  dir.write("right.gpm", "import \"base\"\nparam right = 1\n");
  std::string main = dir.write("main.gpm", "import \"left\"\nimport \"right\"\n");
  Loading l(options_for(dir));
  REQUIRE(l.loader->load_root(main));
  INFO(l.all_messages());
  CHECK_FALSE(l.diags.has_errors());
  CHECK(l.loader->modules().size() == 4);
  CHECK(l.sources.file_count() == 4);
}

TEST_CASE("loader: a missing import is ImportNotFound at the import's string") {
  TempDir dir;
  std::string main = dir.write("main.gpm", "param a = 1\nimport \"no_such_file\"\n");
  Loading l(options_for(dir));
  l.loader->load_root(main);
  const Diagnostic* d = l.find(DiagKind::ImportNotFound);
  REQUIRE(d);
  CHECK(d->message.find("no_such_file") != std::string::npos);
  LineColumn at = l.sources.line_column(d->range.file, d->range.begin);
  CHECK(at.line == 2);
  CHECK(at.column == 8);
}

TEST_CASE("loader: an import cycle is ImportCycle naming the chain") {
  TempDir dir;
  dir.write("a.gpm", "import \"b\"\nparam a = 1\n");
  dir.write("b.gpm", "import \"c\"\nparam b = 1\n");
  dir.write("c.gpm", "import \"a\"\nparam c = 1\n");
  Loading l(options_for(dir));
  l.loader->load_root(dir.path("a.gpm"));
  const Diagnostic* d = l.find(DiagKind::ImportCycle);
  REQUIRE(d);
  CHECK(d->message.find("a.gpm -> b.gpm -> c.gpm -> a.gpm") != std::string::npos);
  CHECK(d->range.valid());  // at the import in c.gpm
  CHECK(l.sources.path(d->range.file).find("c.gpm") != std::string::npos);
}

TEST_CASE("loader: a file importing itself is ImportCycle") {
  TempDir dir;
  std::string self = dir.write("self.gpm", "import \"self\"\nparam a = 1\n");
  Loading l(options_for(dir));
  l.loader->load_root(self);
  CHECK(l.has(DiagKind::ImportCycle));
}

TEST_CASE("loader: an empty file and a file of only comments are EmptyFile") {
  TempDir dir;
  for (const char* text : {"", "// just a comment\n/* and a block */\n", "\n\n   \n"}) {
    std::string path = dir.write("empty.gpm", text);
    Loading l(options_for(dir));
    CHECK_FALSE(l.loader->load_root(path));
    CHECK(l.has(DiagKind::EmptyFile));
  }
}

TEST_CASE("loader: a missing root file and a directory are FileNotFound") {
  TempDir dir;
  Loading l(options_for(dir));
  CHECK_FALSE(l.loader->load_root(dir.path("absent.gpm")));
  CHECK(l.has(DiagKind::FileNotFound));
  fs::create_directories(dir.path("folder.gpm"));
  Loading k(options_for(dir));
  CHECK_FALSE(k.loader->load_root(dir.path("folder.gpm")));
  const Diagnostic* d = k.find(DiagKind::FileNotFound);
  REQUIRE(d);
  CHECK(d->message.find("directory") != std::string::npos);
}

TEST_CASE("loader: a file just over kMaxSourceBytes is FileTooLarge") {
  TempDir dir;
  std::string text = "param x = 1\n";
  text.resize(kMaxSourceBytes + 1, ' ');
  std::string path = dir.write("big.gpm", text);
  REQUIRE(fs::file_size(path) == kMaxSourceBytes + 1);
  Loading l(options_for(dir));
  CHECK_FALSE(l.loader->load_root(path));
  CHECK(l.has(DiagKind::FileTooLarge));
  CHECK(l.sources.file_count() == 0);  // never added
}

TEST_CASE("loader: read_source_file accepts a file of exactly kMaxSourceBytes") {
  TempDir dir;
  std::string text(kMaxSourceBytes, ' ');
  std::string path = dir.write("limit.gpm", text);
  SourceManager sm;
  DiagnosticEngine diags(sm);
  std::string out;
  CHECK(read_source_file(path, out, diags, {}));
  CHECK(out.size() == kMaxSourceBytes);
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("loader: an import that is too large is reported at the import site") {
  TempDir dir;
  std::string text = "param x = 1\n";
  text.resize(kMaxSourceBytes + 1, ' ');
  dir.write("huge.gpm", text);
  std::string main = dir.write("main.gpm", "import \"huge\"\n");
  Loading l(options_for(dir));
  l.loader->load_root(main);
  const Diagnostic* d = l.find(DiagKind::FileTooLarge);
  REQUIRE(d);
  REQUIRE(d->range.valid());
  CHECK(l.sources.path(d->range.file) == main);
}

TEST_CASE("loader: load_prelude loads the named standard-library files") {
  Loading l(LoaderOptions{GPM_SOURCE_DIR "/stdlib", {}});
  CHECK(l.loader->load_prelude());
  INFO(l.all_messages());
  CHECK(l.loader->modules().size() == LoaderOptions{}.prelude.size());
  CHECK(l.declares("roofline_time"));
  CHECK(l.declares("ahead_pinned_copy_time"));
  CHECK(l.declares("pcie_link_bw"));
  CHECK(l.declares("nvlink_write_bytes"));
  CHECK(l.declares("loggp_copy_time"));
}

TEST_CASE("loader: a missing prelude file fails load_prelude with FileNotFound") {
  TempDir dir;
  LoaderOptions o;
  o.stdlib_dir = dir.path("nowhere");
  o.prelude = {"roofline"};
  Loading l(o);
  CHECK_FALSE(l.loader->load_prelude());
  CHECK(l.has(DiagKind::FileNotFound));
}

TEST_CASE("loader: a syntax error in an imported file fails that import but reports its location") {
  TempDir dir;
  dir.write("broken.gpm", "param = 1\n");
  std::string main = dir.write("main.gpm", "import \"broken\"\nparam ok = 1\n");
  Loading l(options_for(dir));
  l.loader->load_root(main);
  const Diagnostic* d = l.find(DiagKind::SyntaxError);
  REQUIRE(d);
  CHECK(l.sources.path(d->range.file).find("broken.gpm") != std::string::npos);
}

TEST_CASE("loader: a broken file imported from two places is reported once") {
  TempDir dir;
  dir.write("broken.gpm", "param = 1\n");
  dir.write("left.gpm", "import \"broken\"\nparam left = 1\n");
  dir.write("right.gpm", "import \"broken\"\nparam right = 1\n");
  std::string main = dir.write("main.gpm", "import \"left\"\nimport \"right\"\n");
  Loading l(options_for(dir));
  l.loader->load_root(main);
  size_t syntax = 0;
  for (const auto& d : l.diags.diagnostics()) syntax += d.kind == DiagKind::SyntaxError;
  CHECK(syntax == 1);
}
