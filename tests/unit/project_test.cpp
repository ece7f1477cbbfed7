// project_test.cpp: gpmc project's trace readers (CSV, Nsight SQLite), copy pricing and projection.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <fstream>
#include <string>

#include "project/copy_pricer.h"
#include "project/projection.h"
#include "project/trace.h"
#include "test_support.h"

using namespace gpm;
using gpm::test::approx;

namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "gpmc_project_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// A database holding the given SQL, made with libsqlite3 (what Nsight Systems' exporter writes to).
std::string make_database(const std::string& name, const std::string& sql) {
  std::string path = temp_path(name);
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  return path;
}

std::string write_text(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

const char* kMemcpyTable =
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, "
    "bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);";

struct Reading {
  support::SourceManager sources;
  support::DiagnosticEngine diags{sources};
  project::Trace trace;
  bool ok = false;
  explicit Reading(const std::string& path) { ok = project::read_trace(path, "trace", sources, diags, trace); }
  std::string errors() {
    std::ostringstream out;
    diags.flush(out);
    return out.str();
  }
};

}  // namespace

TEST_CASE("project: size classes follow AHEAD section V (under 10 B, 10 B to 1 MB, over 1 MB)") {
  CHECK(std::string(project::size_class_name(0)) == "< 10 B");
  CHECK(std::string(project::size_class_name(9)) == "< 10 B");
  CHECK(std::string(project::size_class_name(10)) == "10 B - 1 MB");
  CHECK(std::string(project::size_class_name(1e6)) == "10 B - 1 MB");
  CHECK(std::string(project::size_class_name(1e6 + 1)) == "> 1 MB");
}

TEST_CASE("project: an Nsight export's copies, with memory kinds from srcKind/dstKind and start times from the first") {
  std::string path = make_database(
      "kinds.sqlite",
      std::string(kMemcpyTable) +
          "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, streamId INTEGER, shortName INTEGER);"
          "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
          "INSERT INTO StringIds VALUES (5, 'axpy');"
          // d2h to pageable (dstKind 1) starts later but is inserted first; h2d from pinned (srcKind 2); d2d; p2p
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (9000000000000002000, 9000000000000003000, 0, 3, 64, 2, 3, 1);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (9000000000000000500, 9000000000000001500, 0, 3, 16, 1, 2, 3);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (9000000000000004000, 9000000000000004100, 0, 4, 128, 8, 3, 3);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (9000000000000005000, 9000000000000005500, 0, 4, 256, 10, 3, 3);"
          "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (9000000000000000000, 9000000000000000400, 3, 5);");
  Reading r(path);
  REQUIRE_MESSAGE(r.ok, r.errors());
  CHECK(r.trace.format == "nsight-sqlite");
  REQUIRE(r.trace.copies.size() == 3);
  CHECK(r.trace.copies[0].kind == project::CopyKind::H2D);
  CHECK(r.trace.copies[0].memory == project::HostMemory::Pinned);
  CHECK(r.trace.copies[0].bytes == 16);
  // Relative to the kernel at ...000000000: exact, although the raw timestamps exceed a double's 53 bits.
  CHECK(r.trace.copies[0].start_s == approx(500e-9));
  CHECK(r.trace.copies[0].duration_s == approx(1000e-9));
  CHECK(r.trace.copies[1].kind == project::CopyKind::D2H);
  CHECK(r.trace.copies[1].memory == project::HostMemory::Pageable);
  CHECK(r.trace.copies[2].kind == project::CopyKind::D2D);
  CHECK(r.trace.copies[2].stream == 4);
  REQUIRE(r.trace.kernels.size() == 1);
  CHECK(r.trace.kernels[0].name == "axpy");
  CHECK(r.trace.kernels[0].start_s == 0);
  REQUIRE(r.trace.skipped.size() == 1);
  CHECK(r.trace.skipped[0].what == "p2p (the table has no srcDeviceId and dstDeviceId columns)");
  CHECK(r.trace.skipped[0].bytes == 256);
}

TEST_CASE("project: malformed Nsight exports are MalformedTrace errors, never a crash") {
  struct Case {
    const char* name;
    std::string sql;
    const char* expect;
  };
  const Case cases[] = {
      {"no_tables.sqlite", "CREATE TABLE other (x INTEGER);", "neither table"},
      {"no_column.sqlite",
       "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, streamId INTEGER, bytes INTEGER);",
       "has no column `copyKind`"},
      {"null_end.sqlite", std::string(kMemcpyTable) + "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, NULL, 0, 0, 8, 1, 2, 3);",
       "column end is NULL"},
      {"real_bytes.sqlite", std::string(kMemcpyTable) + "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 9, 0, 0, 8.5, 1, 2, 3);",
       "column bytes is a real number"},
      {"same_start_end.sqlite",
       std::string(kMemcpyTable) + "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (7, 7, 0, 0, 8, 1, 2, 3);",
       "a duration of 0 ns"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    Reading r(make_database(c.name, c.sql));
    CHECK_FALSE(r.ok);
    std::string errors = r.errors();
    CHECK(errors.find(c.expect) != std::string::npos);
    CHECK(errors.find("[MalformedTrace]") != std::string::npos);
  }
}

TEST_CASE("project: a damaged SQLite file (header kept, the rest cut or overwritten) is an error") {
  std::string good = make_database("good.sqlite", std::string(kMemcpyTable) +
                                                      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 9, 0, 0, 8, 1, 2, 3);");
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() > 200);
  for (size_t keep : {size_t(16), size_t(100), size_t(1000)}) {
    CAPTURE(keep);
    std::string path = temp_path("cut.sqlite");
    std::ofstream(path, std::ios::binary) << bytes.substr(0, keep);
    Reading r(path);
    CHECK_FALSE(r.ok);
    CHECK(r.errors().find("[MalformedTrace]") != std::string::npos);
  }
  std::string garbage = bytes.substr(0, 100) + std::string(bytes.size() - 100, '\x5a');
  std::string path = temp_path("garbage.sqlite");
  std::ofstream(path, std::ios::binary) << garbage;
  Reading r(path);
  CHECK_FALSE(r.ok);
  CHECK(r.errors().find("[MalformedTrace]") != std::string::npos);
}

TEST_CASE("project: a CSV trace is kept in start order, file order among equal starts") {
  Reading r(write_text("order.csv",
                       "kind,bytes,memory,stream,start_s,duration_s\n"
                       "d2h,2,pinned,1,0.5,1e-6\n"
                       "h2d,1,pageable,1,0.1,1e-6\n"
                       "h2d,3,pinned,2,0.5,1e-6\n"
                       "kernel,,,1,0.2,1e-3\n"));
  REQUIRE_MESSAGE(r.ok, r.errors());
  CHECK(r.trace.format == "csv");
  REQUIRE(r.trace.copies.size() == 3);
  CHECK(r.trace.copies[0].bytes == 1);
  CHECK(r.trace.copies[1].bytes == 2);
  CHECK(r.trace.copies[2].bytes == 3);
  CHECK(r.trace.kernels.size() == 1);
}

TEST_CASE("project: each copy costs exactly what `gpmc eval` gives for the same copy on the same machine") {
  driver::Options options;
  std::string machine = std::string(GPM_SOURCE_DIR) + "/machines/v100_pcie.gpm";
  project::CopyPricer pricer(options, machine);
  struct Case {
    project::CopyKind kind;
    project::HostMemory memory;
    const char* direction;
    const char* word;
  };
  for (const Case& c : {Case{project::CopyKind::H2D, project::HostMemory::Pinned, "h2d", "pinned"},
                        Case{project::CopyKind::D2H, project::HostMemory::Pageable, "d2h", "pageable"}}) {
    for (double bytes : {1.0, 4096.0, 64.0 * 1048576}) {
      CAPTURE(c.direction);
      CAPTURE(bytes);
      driver::Session session(options);
      auto compiled = session.compile(machine, std::string(GPM_SOURCE_DIR) + "/apps/bandwidth.gpm",
                                      {{"bytes", fmt::format("{}B", bytes)}, {"direction", std::string(c.direction)},
                                       {"memory", std::string(c.word)}});
      REQUIRE(compiled);
      backend::Evaluation evaluation;
      REQUIRE(session.evaluate(*compiled, evaluation));
      double priced = 0;
      REQUIRE(pricer.price({c.kind, c.memory}, bytes, priced));
      CHECK(priced == evaluation.total_s);
    }
  }
  driver::Session session(options);
  auto compiled = session.compile(machine, std::string(GPM_SOURCE_DIR) + "/validation/v100_pcie/d2d.gpm",
                                  {{"bytes", "1MiB"}});
  REQUIRE(compiled);
  backend::Evaluation evaluation;
  REQUIRE(session.evaluate(*compiled, evaluation));
  double priced = 0;
  REQUIRE(pricer.price({project::CopyKind::D2D, project::HostMemory::None}, 1048576, priced));
  CHECK(priced == evaluation.total_s);
  CHECK(pricer.machine_name() == "v100_pcie");
}

TEST_CASE("project: a peer copy between devices i and j costs what `copy p2p` between the i-th and j-th GPUs does") {
  driver::Options options;
  std::string machine = std::string(GPM_SOURCE_DIR) + "/machines/rtx4090_8x.gpm";
  project::CopyPricer pricer(options, machine);
  for (auto pair : {std::pair<int, int>{0, 1}, {0, 5}, {6, 2}}) {
    int src = pair.first, dst = pair.second;  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    CAPTURE(src);
    CAPTURE(dst);
    driver::Session session(options);
    auto compiled = session.compile(machine, std::string(GPM_SOURCE_DIR) + "/validation/rtx4090_8x/p2p.gpm",
                                    {{"src", std::to_string(src)}, {"dst", std::to_string(dst)}, {"bytes", "40MB"}});
    REQUIRE(compiled);
    backend::Evaluation evaluation;
    REQUIRE(session.evaluate(*compiled, evaluation));
    double priced = 0;
    REQUIRE(pricer.price({project::CopyKind::P2P, project::HostMemory::None, src, dst}, 40e6, priced));
    CHECK(priced == evaluation.total_s);
  }
}

TEST_CASE("project: a copy on device i costs what the same copy `on` the machine's i-th GPU does") {
  driver::Options options;
  std::string machine = std::string(GPM_SOURCE_DIR) + "/tests/golden/project/inputs/two_gpus_nvlink.gpm";
  std::string app = write_text("on_g1.gpm", "app on_g1 {\n  copy d2h 1 MiB pageable on g[1]\n}\n");
  driver::Session session(options);
  auto compiled = session.compile(machine, app, {});
  REQUIRE(compiled);
  backend::Evaluation evaluation;
  REQUIRE(session.evaluate(*compiled, evaluation));
  project::CopyPricer pricer(options, machine);
  double on_g1 = 0, first = 0;
  REQUIRE(pricer.price({project::CopyKind::D2H, project::HostMemory::Pageable, -1, -1, 1}, 1048576, on_g1));
  REQUIRE(pricer.price({project::CopyKind::D2H, project::HostMemory::Pageable}, 1048576, first));
  CHECK(on_g1 == evaluation.total_s);
  CHECK(on_g1 > first);  // g[1]'s host link is half as wide
}

TEST_CASE("project: the bandwidth ratio scales measured times by BW_A / BW_B; matching pairs copies by kind and size") {
  driver::Options options;
  std::string a = std::string(GPM_SOURCE_DIR) + "/tests/golden/eval/inputs/one_gpu.gpm";
  std::string b = std::string(GPM_SOURCE_DIR) + "/tests/golden/eval/inputs/two_sockets.gpm";
  project::CopyPricer model_a(options, a), model_b(options, b);
  Reading from_a(write_text("a.csv",
                            "kind,bytes,memory,stream,start_s,duration_s\n"
                            "h2d,1000000000,pinned,1,0,0.2\n"
                            "h2d,8,pinned,2,0.3,1e-5\n"));
  Reading on_b(write_text("b.csv",
                          "kind,bytes,memory,stream,start_s,duration_s\n"
                          "h2d,8,pinned,2,0,2e-5\n"
                          "h2d,1000000000,pinned,1,0.1,0.05\n"));
  REQUIRE(from_a.ok);
  REQUIRE(on_b.ok);
  project::Projection projection;
  project::CopyPricer* failed = nullptr;
  REQUIRE(project::project_trace(from_a.trace, model_a, model_b, &on_b.trace, from_a.diags, projection, failed));
  REQUIRE(projection.copies.size() == 2);
  // one_gpu's host link is 10 GB/s, two_sockets' 20 GB/s: half the measured time.
  CHECK(projection.copies[0].ratio_b_s == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(projection.copies[0].measured_b_s == 0.05);
  CHECK(projection.copies[1].measured_b_s == 2e-5);
  CHECK(projection.total.count == 2);
  CHECK(projection.size_classes[0].count == 1);
  CHECK(projection.size_classes[2].count == 1);
  CHECK(projection.total.projected_errors.count == 2);
}
