// jit_test.cpp: unit tests of the JIT backend: each opcode, fault and check against the interpreter, at many
// points (valid and invalid), the eval report from compiled values, and the LLVM module as text.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "backend/interp/point.h"
#include "backend/jit/jit.h"
#include "test_support.h"

using namespace gpm;

namespace {

const char* kMachine = R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s; d2d_latency = 2 us }
machine m {
  param lat = 5 us
  node {
    memory ram { bw = 50 GB/s }
    cpu host { cores = 8 }
    gpu g[2] : G
    link ram <-> host { bw = 50 GB/s }
    link host <-> g[*] { bw = 16 GB/s; latency = lat }
  }
}
)";

// Relative agreement; both NaN (an invalid point) counts as agreement.
void agree(double jit, double interp, const std::string& where) {
  INFO(where);
  if (std::isnan(interp)) {
    CHECK(std::isnan(jit));
    return;
  }
  if (jit != interp) CHECK(jit == doctest::Approx(interp).epsilon(1e-12).scale(0));
}

// Compiles `app` with `inputs` (parameter names) as JIT inputs and compares, at each point, the JIT's total and
// phases with the interpreter's values-only path and with the full evaluation (valid exactly when it succeeds).
void compare(const std::string& app, const std::vector<std::string>& inputs, const std::vector<std::vector<double>>& points) {
  test::Pipeline p;
  p.lower(std::string(kMachine) + app, {});
  REQUIRE_MESSAGE(!p.diags.has_errors(), p.all_messages());
  backend::jit::Options options;
  std::vector<int32_t> slots;
  for (const auto& name : inputs) {
    int slot = p.ir.find_param(name);
    REQUIRE(slot >= 0);
    slots.push_back(slot);
  }
  options.inputs = slots;
  auto compiled = backend::jit::CompiledModel::compile(p.ir, p.bound, options);
  size_t phases = p.ir.root.children.size();
  backend::PointScratch scratch;
  for (const auto& point : points) {
    std::string where = app + " at";
    backend::SlotValues bound = p.bound;
    for (size_t k = 0; k < point.size(); ++k) {
      bound[size_t(slots[k])] = point[k];
      where += " " + inputs[k] + "=" + std::to_string(point[k]);
    }
    std::vector<double> jit_phases(phases + 1), interp_phases(phases + 1);
    double jit = compiled->point()(point.data(), jit_phases.data());
    double interp = backend::evaluate_point(p.ir, bound, scratch, interp_phases.data());
    agree(jit, interp, where);
    support::DiagnosticEngine diags(p.sources);
    backend::Evaluation full;
    bool ok = backend::evaluate(p.ir, bound, diags, full);
    INFO(where);
    CHECK(ok == !std::isnan(jit));
    if (!ok) continue;
    agree(jit, full.total_s, where);
    for (size_t k = 0; k < phases; ++k) agree(jit_phases[k], full.phases[k].time_s, where);
  }
}

}  // namespace

TEST_CASE("jit: arithmetic and built-ins match the interpreter at many points") {
  compare(R"(app a {
    param x = 3 in -100 .. 100
    param y = 2 in -100 .. 100
    let t = 1 us
    overhead abs(x * y - x / (abs(y) + 1) + 2 ^ min(x, 4)) * t
    overhead (max(x, y, 1) + ceil(x / 3) + floor(y / 3) + sqrt(abs(x)) + log2(abs(y) + 1)) * t
    overhead abs(-x + y ^ 2) * t
  })",
          {"x", "y"}, {{3, 2}, {-7.5, 0.25}, {0, 0}, {100, -100}, {1e-3, 3.14159}, {-1, 1}});
}

TEST_CASE("jit: comparisons, logic and if follow the interpreter, taken branch only") {
  compare(R"(app a {
    param q = 1 in -10 .. 10
    param r = 2 in -10 .. 10
    overhead if q > 0 then 1 s / q else 1 s
    overhead if q < r and not (q == r) then 2 us else (if q >= r or q != 0 then 3 us else 4 us)
    overhead if q <= 0 then 1 us else 2 us
  })",
          {"q", "r"}, {{1, 2}, {0, 2}, {-3, -3}, {2, 1}, {5, 5}, {0, 0}});
}

TEST_CASE("jit: faults in needed values make the point invalid; the interpreter explains it") {
  compare(R"(app a {
    param d = 1 in -10 .. 10
    let inv = 1 s / d
    overhead sqrt(d) * 1 us
    overhead log2(d + 5) * 1 us
  })",
          {"d"}, {{1}, {0}, {-1}, {-5}, {4}});
  compare(R"(app a {
    param e = 2 in -2000 .. 2000
    overhead 2 ^ e * 1 us
  })",
          {"e"}, {{2}, {1500}, {-1500}, {-2000}});
}

TEST_CASE("jit: checks: ranges, positive bandwidths, whole iteration counts") {
  compare(R"(app a {
    param n = 4 in 1 .. 64
    param bw = 10 GB/s
    param k = 3
    iterate k {
      overhead n * 1 us
      copy h2d n * 1 MB pinned
    }
  })",
          {"n", "bw", "k"},
          {{4, 1e10, 3}, {0, 1e10, 3}, {65, 1e10, 3}, {64, 1e10, 2.5}, {8, 1e10, -1}, {8, 1e10, 0}, {8, 1e9, 100}});
  compare(R"(app a { param lat2 = 1 us
    copy h2d 1 MB pinned
  })",
          {"lat"}, {{5e-6}, {0}, {-1e-6}});
}

TEST_CASE("jit: seq, par, iterate and kernels fold like the interpreter") {
  compare(R"(app a {
    param n = 1024 in 1 .. 65536
    param it = 10
    kernel k { flops = n ^ 2 * 1 flop; bytes = n * 8 B }
    iterate it {
      par { run k on g[0]  seq { run k on g[1]  copy d2h n * 8 B pinned } }
      overhead 1 us
    }
    run k
  })",
          {"n", "it"}, {{1024, 10}, {1, 0}, {65536, 3}, {100, 1e6}});
}

TEST_CASE("jit: eval from compiled values reproduces the interpreter's evaluation") {
  test::Pipeline p;
  p.lower(std::string(kMachine) + R"(app a {
    param n = 1000
    kernel k { flops = n * 1 flop; bytes = n * 8 B }
    iterate 4 { run k  copy h2d n * 1 KB pinned }
  })",
          {});
  REQUIRE(!p.diags.has_errors());
  backend::Evaluation a, b;
  support::DiagnosticEngine da(p.sources), db(p.sources);
  REQUIRE(backend::evaluate(p.ir, p.bound, da, a));
  REQUIRE(backend::jit::evaluate(p.ir, p.bound, db, b));
  CHECK(a.total_s == b.total_s);
  REQUIRE(a.phases.size() == b.phases.size());
  for (size_t k = 0; k < a.phases.size(); ++k) {
    REQUIRE(a.phases[k].rows.size() == b.phases[k].rows.size());
    for (size_t r = 0; r < a.phases[k].rows.size(); ++r) CHECK(a.phases[k].rows[r].each_s == b.phases[k].rows[r].each_s);
  }
}

TEST_CASE("jit: an invalid point under --backend jit reports the interpreter's diagnostics") {
  test::Pipeline p;
  p.lower(std::string(kMachine) + "app a { param z = 0\n overhead 1 s * 1 s / (z * 1 s) }", {});
  REQUIRE(!p.diags.has_errors());
  support::DiagnosticEngine diags(p.sources);
  backend::Evaluation out;
  CHECK_FALSE(backend::jit::evaluate(p.ir, p.bound, diags, out));
  CHECK(test::DiagnosticsView{diags}.has(support::DiagKind::DivisionByZero));
}

TEST_CASE("jit: the printed module names its functions, inputs and runtime calls") {
  test::Pipeline p;
  p.lower(std::string(kMachine) + "app a { param e = 2\n overhead 2 ^ e * 1 us }", {});
  REQUIRE(!p.diags.has_errors());
  backend::jit::Options options;
  options.inputs = {p.ir.find_param("e")};
  options.optimize = false;
  std::string text = backend::jit::print_llvm(p.ir, p.bound, options);
  CHECK(text.find("define double @gpmc_point(double* noalias readonly %inputs, double* noalias %phases_out)") !=
        std::string::npos);
  CHECK(text.find("@gpmc_rt_pow") != std::string::npos);
  CHECK(text.find("verify") == std::string::npos);
}

namespace {

// A toy engine: the time is the sum of its inputs; a negative input is an error (NaN from `time`).
class SumEngine : public ir::Engine {
 public:
  std::string name() const override { return "sum"; }
  double time(std::span<const double> inputs) const override {
    double t = 0;
    for (double x : inputs) t = x < 0 || std::isnan(t) ? NAN : t + x;
    return t;
  }
  ir::EngineResult run(std::span<const double> inputs) const override {
    ir::EngineResult r;
    r.time_s = time(inputs);
    if (std::isnan(r.time_s)) r.error = "a negative input";
    return r;
  }
};

}  // namespace

TEST_CASE("jit: engine tasks call the engine through the runtime with their inputs") {
  ir::Module m;
  ir::Builder builder(m);
  ir::ValueId def = builder.constant(1, support::Dim::seconds());
  ir::ValueId x = builder.param(0, def, {});
  m.params.push_back({"x", "", support::Dim::seconds(), x});
  ir::ValueId two = builder.constant(2, support::Dim::seconds());
  m.engine_calls.push_back({std::make_shared<SumEngine>(), {x, two, x}});
  ir::Task task = ir::Task::make(ir::TaskKind::Engine, "sum");
  task.engine_call = 0;
  ir::Task phase = ir::Task::make(ir::TaskKind::Iterate, "iterate 3");
  phase.value = builder.constant(3, support::Dim());
  phase.children.push_back(task);
  m.root = ir::Task::make(ir::TaskKind::Seq, "app");
  m.root.children.push_back(phase);
  backend::jit::Options options;
  options.inputs = {0};
  auto compiled = backend::jit::CompiledModel::compile(m, {}, options);
  double phases[1];
  double in = 4;
  CHECK(compiled->point()(&in, phases) == 30);  // (4 + 2 + 4) * 3
  CHECK(phases[0] == 30);
  in = -1;
  CHECK(std::isnan(compiled->point()(&in, phases)));
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  backend::Evaluation a, b;
  REQUIRE(backend::evaluate(m, {5.0}, diags, a));
  REQUIRE(backend::jit::evaluate(m, {5.0}, diags, b));
  CHECK(a.total_s == b.total_s);
  CHECK_FALSE(backend::jit::evaluate(m, {-5.0}, diags, b));
  CHECK(test::DiagnosticsView{diags}.has(support::DiagKind::EngineError));
}

namespace {

// SumEngine that counts its calls (from any thread).
class CountingEngine : public SumEngine {
 public:
  mutable std::atomic<int> calls{0};
  double time(std::span<const double> inputs) const override {
    ++calls;
    return SumEngine::time(inputs);
  }
};

// app: iterate 2 { engine(x, y) }, x and y parameters; `inputs` are the JIT's input slots.
struct EngineModule {
  ir::Module m;
  std::shared_ptr<CountingEngine> engine = std::make_shared<CountingEngine>();
  EngineModule() {
    ir::Builder builder(m);
    ir::ValueId one = builder.constant(1, support::Dim::seconds());
    ir::ValueId x = builder.param(0, one, {});
    ir::ValueId y = builder.param(1, one, {});
    m.params.push_back({"x", "", support::Dim::seconds(), x});
    m.params.push_back({"y", "", support::Dim::seconds(), y});
    m.engine_calls.push_back({engine, {x, y}});
    ir::Task task = ir::Task::make(ir::TaskKind::Engine, "sum");
    task.engine_call = 0;
    ir::Task phase = ir::Task::make(ir::TaskKind::Iterate, "iterate 2");
    phase.value = builder.constant(2, support::Dim());
    phase.children.push_back(task);
    m.root = ir::Task::make(ir::TaskKind::Seq, "app");
    m.root.children.push_back(phase);
  }
};

}  // namespace

TEST_CASE("jit: an engine call with unchanged inputs returns its last result without calling the engine") {
  EngineModule e;
  backend::jit::Options options;
  options.inputs = {0};
  auto compiled = backend::jit::CompiledModel::compile(e.m, {std::nullopt, 3.0}, options);
  double phases[1];
  double in = 4;
  CHECK(compiled->point()(&in, phases) == 14);  // (4 + 3) * 2
  int after_first = e.engine->calls;
  CHECK(compiled->point()(&in, phases) == 14);
  CHECK(e.engine->calls == after_first);  // the same inputs: remembered
  in = 5;
  CHECK(compiled->point()(&in, phases) == 16);
  CHECK(e.engine->calls == after_first + 1);
  in = -1;  // an error is remembered as NaN too, and stays an invalid point
  CHECK(std::isnan(compiled->point()(&in, phases)));
  CHECK(std::isnan(compiled->point()(&in, phases)));
  CHECK(e.engine->calls == after_first + 2);
  // Another engine (a new key) with the same inputs is called, never answered from this one's memo.
  EngineModule other;
  auto compiled_other = backend::jit::CompiledModel::compile(other.m, {std::nullopt, 3.0}, options);
  in = 5;
  CHECK(compiled_other->point()(&in, phases) == 16);
  CHECK(other.engine->calls == 1);
  CHECK(other.engine->memo_key() != e.engine->memo_key());
}

TEST_CASE("jit: an engine call whose inputs are all fixed is evaluated once, when the model is compiled") {
  EngineModule e;
  backend::jit::Options options;  // no inputs: x and y are their defaults, or bound
  auto compiled = backend::jit::CompiledModel::compile(e.m, {2.0, std::nullopt}, options);
  CHECK(e.engine->calls == 1);
  double phases[1];
  for (int k = 0; k < 3; ++k) CHECK(compiled->point()(nullptr, phases) == 6);  // (2 + 1) * 2
  CHECK(e.engine->calls == 1);
  // An error at compile time is left to the call at run time, which makes the point invalid.
  EngineModule bad;
  auto compiled_bad = backend::jit::CompiledModel::compile(bad.m, {-2.0, std::nullopt}, options);
  CHECK(std::isnan(compiled_bad->point()(nullptr, phases)));
}

TEST_CASE("jit: a large module (constant table, many blocks, no O2) agrees with the interpreter") {
  std::string sum;
  for (int i = 0; i < 1500; ++i) sum += (i ? " + " : "") + std::to_string(i) + " us * max(x, " + std::to_string(i % 7) + ")";
  std::string app = "app big {\n  param x = 1 in 0 .. 10\n  overhead (" + sum + ") / x\n}";
  test::Pipeline p;
  p.lower(std::string(kMachine) + app, {});
  REQUIRE(!p.diags.has_errors());
  REQUIRE(p.ir.instrs.size() > backend::jit::CompiledModel::kOptimizeLimit);
  compare(app, {"x"}, {{1}, {2.5}, {0}, {10}});
}
