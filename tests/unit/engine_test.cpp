// engine_test.cpp: unit tests of the run-time engine interface: the interpreter folds an Engine task from its
// input values, reports its terms, bound and detail, and turns an engine's error into an EngineError diagnostic.
#include <doctest/doctest.h>

#include <cmath>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "support/source_manager.h"
#include "ir/printer.h"
#include "ir/verifier.h"

using namespace gpm;

namespace {

// A toy engine: the time is the sum of its inputs; a negative input is an error.
class SumEngine : public ir::Engine {
 public:
  std::string name() const override { return "sum"; }
  double time(std::span<const double> inputs) const override { return run(inputs).error.empty() ? total(inputs) : NAN; }
  ir::EngineResult run(std::span<const double> inputs) const override {
    ir::EngineResult r;
    for (double x : inputs)
      if (x < 0) r.error = "a negative input";
    r.time_s = total(inputs);
    r.terms.push_back({"first", inputs[0], support::Dim::seconds(), true});
    r.terms.push_back({"second", inputs[1], support::Dim::seconds(), true});
    r.detail["inputs"] = inputs.size();
    return r;
  }
  std::string describe() const override { return "adds its inputs\nline two"; }

 private:
  static double total(std::span<const double> inputs) {
    double t = 0;
    for (double x : inputs) t += x;
    return t;
  }
};

struct EngineModule {
  ir::Module m;
  EngineModule(double a, double b) {
    ir::Builder builder(m);
    ir::ValueId va = builder.constant(a, support::Dim::seconds());
    ir::ValueId vb = builder.constant(b, support::Dim::seconds());
    m.engine_calls.push_back({std::make_shared<SumEngine>(), {va, vb}});
    ir::Task task = ir::Task::make(ir::TaskKind::Engine, "both");
    task.engine_call = 0;
    task.model = "toy sum";
    ir::Task phase = ir::Task::make(ir::TaskKind::Phase, "p");
    phase.children.push_back(task);
    ir::Task iterate = ir::Task::make(ir::TaskKind::Iterate, "iterate 3");
    iterate.value = builder.constant(3, support::Dim());
    iterate.children.push_back(phase);
    m.root = ir::Task::make(ir::TaskKind::Seq, "app");
    m.root.children.push_back(iterate);
  }
};

}  // namespace

TEST_CASE("an engine task is folded from its inputs, with terms, bound and detail") {
  EngineModule e(2, 5);
  CHECK(ir::verify(e.m).empty());
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  backend::Evaluation out;
  REQUIRE(backend::evaluate(e.m, {}, diags, out));
  CHECK(out.total_s == doctest::Approx(21));
  const backend::Row& row = out.phases[0].rows[1];
  CHECK(row.name == "both");
  CHECK(row.model == "toy sum");
  CHECK(row.each_s == 7);
  CHECK(row.count == 3);
  CHECK(row.total_s == 21);
  CHECK(row.bound == "second");
  REQUIRE(row.terms.size() == 2);
  CHECK(row.detail["inputs"] == 2);
  std::string dump = ir::print_module(e.m, nullptr);
  CHECK(dump.find("engine \"both\" = sum#0(%0, %1)") != std::string::npos);
  CHECK(dump.find("engines:\n  sum#0\n    adds its inputs\n    line two\n") != std::string::npos);
}

TEST_CASE("an engine's error becomes an EngineError diagnostic and the evaluation fails") {
  EngineModule e(2, -1);
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  backend::Evaluation out;
  CHECK_FALSE(backend::evaluate(e.m, {}, diags, out));
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.diagnostics()[0].kind == support::DiagKind::EngineError);
  CHECK(diags.diagnostics()[0].message == "`both`: a negative input");
}

TEST_CASE("the verifier rejects an engine task without a valid call") {
  EngineModule e(1, 1);
  e.m.root.children[0].children[0].children[0].engine_call = 4;
  CHECK_FALSE(ir::verify(e.m).empty());
}
