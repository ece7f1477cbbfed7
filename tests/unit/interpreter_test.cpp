// interpreter_test.cpp: unit tests of the reference interpreter: faults with their locations, checks
// (positive values, parameter ranges, whole counts) and the folding of seq, par, iterate into rows.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "frontend/parse.h"
#include "frontend/sema.h"
#include "lower/lower.h"
#include "test_support.h"

using namespace gpm;
using support::DiagKind;

namespace {

using test::approx;

// The standard library and one user text, lowered and evaluated with the interpreter.
struct Evaluated : test::Pipeline {
  backend::Evaluation result;
  bool ok = false;

  support::LineColumn at(const support::SourceRange& r) const { return sources.line_column(r.file, r.begin); }
  std::string text_of(const support::SourceRange& r) const {
    return sources.text(r.file).substr(r.begin, r.end - r.begin);
  }
  double param(const std::string& name) const {
    for (const auto& p : result.params)
      if (p.name == name) return p.value.value;
    FAIL("no param " << name);
    return 0;
  }
  const backend::Row* row(const std::string& name) const {
    for (const auto& phase : result.phases)
      for (const auto& r : phase.rows)
        if (r.name == name) return &r;
    return nullptr;
  }
};

std::unique_ptr<Evaluated> evaluate(const std::string& text, const std::map<std::string, double>& bindings = {}) {
  auto e = std::make_unique<Evaluated>();
  e->lower(text, bindings);
  REQUIRE_MESSAGE(!e->diags.has_errors(), e->all_messages());
  e->ok = backend::evaluate(e->ir, e->bound, e->diags, e->result);
  return e;
}

// A minimal machine for apps that run kernels and copies.
const char* kMachine = R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s; d2d_latency = 2 us }
machine m {
  node {
    memory mem { bw = 20 GB/s }
    cpu c
    gpu g : G
    link mem <-> c { bw = 20 GB/s }
    link c <-> g { bw = 10 GB/s; latency = 5 us }
  }
}
)";

}  // namespace

TEST_CASE("interpreter: a division by zero in a param is DivisionByZero at the division") {
  auto e = evaluate("param zero = 0\nparam x = 2 + 1 / zero\n");
  CHECK_FALSE(e->ok);
  REQUIRE(e->count(DiagKind::DivisionByZero) == 1);
  const auto* d = e->find(DiagKind::DivisionByZero);
  CHECK(e->at(d->range).line == 2);
  CHECK(e->at(d->range).column == 15);
  CHECK(e->text_of(d->range) == "1 / zero");
  CHECK(d->message.find("`x`") != std::string::npos);
}

TEST_CASE("interpreter: a division by zero is reported once even when several values use it") {
  auto e = evaluate("param x = 1 s / 0\nparam y = x * 2\nlet z = x + y\n");
  CHECK_FALSE(e->ok);
  CHECK(e->count(DiagKind::DivisionByZero) == 1);
}

TEST_CASE("interpreter: a division by zero in the untaken branch of `if` is not an error") {
  auto e = evaluate("param d = 0\nparam x = if d == 0 then 1 s else 1 s / d\n");
  INFO(e->all_messages());
  CHECK(e->ok);
  CHECK_FALSE(e->diags.has_errors());
  CHECK(e->param("x") == 1.0);
}

TEST_CASE("interpreter: a division by zero in the taken branch of `if` is an error") {
  auto e = evaluate("param d = 0\nparam x = if d != 0 then 1 else 1 / d\n");
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::DivisionByZero));
}

TEST_CASE("interpreter: binding a param changes which branch faults") {
  auto e = evaluate("param d = 2\nparam x = if d == 0 then 0 else 4 / d\n");
  CHECK(e->ok);
  CHECK(e->param("x") == 2.0);
  auto z = evaluate("param d = 2\nparam x = if d == 0 then 0 else 4 / d\n", {{"d", 0}});
  CHECK(z->ok);
  CHECK(z->param("x") == 0.0);
}

TEST_CASE("interpreter: a square root of a negative number is DomainError") {
  auto e = evaluate("param x = sqrt(0 - 4)\n");
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::DomainError));
  auto l = evaluate("param x = log2(0)\n");
  CHECK(l->has(DiagKind::DomainError));
}

TEST_CASE("interpreter: builtins and operators compute the expected values") {
  auto e = evaluate(
      "param a = min(3 s, 1 s, 2 s)\nparam b = max(1 B, 5 B)\nparam c = ceil(2.1)\nparam d = floor(2.9)\n"
      "param e = abs(0 us - 3 us)\nparam f = log2(1024)\nparam g = sqrt(16 B * 4 B)\nparam h = 2 ^ 10\n"
      "param i = if 1 < 2 and not (2 < 1) or false then 7 else 8\nparam j = 10 - 4 - 3\nparam k = 12 / 3 / 2\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  CHECK(e->param("a") == 1.0);
  CHECK(e->param("b") == 5.0);
  CHECK(e->param("c") == 3.0);
  CHECK(e->param("d") == 2.0);
  CHECK(e->param("e") == approx(3e-6));
  CHECK(e->param("f") == 10.0);
  CHECK(e->param("g") == 8.0);
  CHECK(e->param("h") == 1024.0);
  CHECK(e->param("i") == 7.0);
  CHECK(e->param("j") == 3.0);  // left to right
  CHECK(e->param("k") == 2.0);
}

TEST_CASE("interpreter: user functions are inlined with named arguments") {
  auto e = evaluate("fn f(lo: time, n: bytes, bw: bytes/time) -> time = lo + n / bw\n"
                    "param t = f(bw = 8 GB/s, lo = 1 us, n = 8 GB)\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  CHECK(e->param("t") == approx(1.000001));
}

TEST_CASE("interpreter: zero and negative bandwidths are NonPositiveValue") {
  auto e = evaluate(R"(
machine m {
  node {
    cpu c
    memory mem { bw = 10 GB/s }
    gpu g { mem_bw = 0 GB/s }
    link mem <-> c { bw = -1 GB/s }
  }
}
)");
  CHECK_FALSE(e->ok);
  CHECK(e->count(DiagKind::NonPositiveValue) == 2);
  bool gpu_reported = false, link_reported = false;
  for (const auto& d : e->diags.diagnostics()) {
    if (d.kind != DiagKind::NonPositiveValue) continue;
    gpu_reported = gpu_reported || d.message.find("mem_bw") != std::string::npos;
    link_reported = link_reported || d.message.find("bandwidth of link mem <-> c") != std::string::npos;
  }
  CHECK(gpu_reported);
  CHECK(link_reported);
}

TEST_CASE("interpreter: a bandwidth param bound to zero fails its positivity check") {
  const std::string text = "machine m { param bw = 10 GB/s\n node { cpu a\n gpu b\n link a <-> b { bw = bw } } }\n";
  CHECK(evaluate(text)->ok);
  auto e = evaluate(text, {{"bw", 0}});
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::NonPositiveValue));
}

TEST_CASE("interpreter: a param outside its range is ParamOutOfRange at the param") {
  const std::string text = "param n = 5 in 1 .. 4\n";
  auto e = evaluate(text);
  CHECK_FALSE(e->ok);
  const auto* d = e->find(DiagKind::ParamOutOfRange);
  REQUIRE(d);
  CHECK(e->text_of(d->range) == "n");
  auto inside = evaluate("param n = 5 in 1 .. 8\n");
  CHECK(inside->ok);
  auto bound_low = evaluate("param n = 5 B in 1 B .. 8 B\n", {{"n", 0}});
  CHECK(bound_low->has(DiagKind::ParamOutOfRange));
  auto edges = evaluate("param n = 1 in 1 .. 4\nparam m = 4 in 1 .. 4\n");
  CHECK(edges->ok);
}

TEST_CASE("interpreter: iteration counts must be whole numbers") {
  auto e = evaluate("app a { iterate 2.5 { overhead 1 us } }\n");
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::NotAnInteger));
  auto negative = evaluate("app a { param k = 3\n iterate k { overhead 1 us } }\n", {{"k", -1}});
  CHECK(negative->has(DiagKind::NotAnInteger));
  auto zero = evaluate("app a { iterate 0 { overhead 1 us } }\n");
  CHECK(zero->ok);
  CHECK(zero->result.total_s == 0.0);
}

TEST_CASE("interpreter: copy sizes must be whole numbers of bytes") {
  auto e = evaluate(std::string(kMachine) + "app a { copy h2d 1.5 B pinned }\n");
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::NotAnInteger));
}

TEST_CASE("interpreter: seq sums, par takes the max, iterate multiplies") {
  auto e = evaluate(R"(
app a {
  phase s { seq { overhead 1 us; overhead 2 us; overhead 4 us } }
  phase p { par { overhead 1 us; overhead 5 us; overhead 3 us } }
  phase i { iterate 3 { overhead 2 us } }
  phase mixed { par { seq { overhead 1 us; overhead 1 us } iterate 4 { overhead 1 us } } }
}
)");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  REQUIRE(e->result.phases.size() == 4);
  CHECK(e->result.phases[0].name == "s");
  CHECK(e->result.phases[0].time_s == approx(7e-6));
  CHECK(e->result.phases[1].time_s == approx(5e-6));
  CHECK(e->result.phases[2].time_s == approx(6e-6));
  CHECK(e->result.phases[3].time_s == approx(4e-6));
  CHECK(e->result.total_s == approx(22e-6));
}

TEST_CASE("interpreter: rows count executions through nested iterates") {
  auto e = evaluate("app a { iterate 3 { overhead 5 us\n iterate 4 { overhead 1 us } } }\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  REQUIRE(e->result.phases.size() == 1);
  const auto& phase = e->result.phases[0];
  CHECK(phase.model == "3 iterations");
  CHECK(phase.time_s == approx(3 * (5e-6 + 4e-6)));
  const backend::Row* outer = e->row("overhead 5 us");
  REQUIRE(outer);
  CHECK(outer->count == 3);
  CHECK(outer->each_s == approx(5e-6));
  CHECK(outer->total_s == approx(15e-6));
  CHECK(outer->depth == 0);
  const backend::Row* inner_block = e->row("iterate 4");
  REQUIRE(inner_block);
  CHECK(inner_block->is_block);
  CHECK(inner_block->count == 3);
  CHECK(inner_block->each_s == approx(4e-6));
  CHECK(inner_block->total_s == approx(12e-6));
  CHECK(inner_block->model == "4 iterations");
  const backend::Row* inner = e->row("overhead 1 us");
  REQUIRE(inner);
  CHECK(inner->count == 12);
  CHECK(inner->depth == 1);
  CHECK(inner->total_s == approx(12e-6));
}

TEST_CASE("interpreter: a top-level operation is a phase of its own") {
  auto e = evaluate("app a { overhead 3 us\n phase named { overhead 1 us } }\n");
  REQUIRE(e->ok);
  REQUIRE(e->result.phases.size() == 2);
  CHECK(e->result.phases[0].name == "overhead 3 us");
  CHECK(e->result.phases[0].rows.size() == 1);
  CHECK(e->result.phases[1].name == "named");
}

TEST_CASE("interpreter: a roofline kernel takes the larger of compute and memory time") {
  auto e = evaluate(std::string(kMachine) +
                    "app a { kernel mem_bound { flops = 1 Gflop; bytes = 1 GB }\n"
                    "kernel compute_bound { flops = 1 Tflop; bytes = 1 GB }\n"
                    "kernel fixed { time = 3 ms }\n"
                    "run mem_bound\n run compute_bound\n run fixed }\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  const backend::Row* m = e->row("run mem_bound on g");
  REQUIRE(m);
  CHECK(m->each_s == approx(1e9 / 100e9));
  REQUIRE(m->terms.size() == 2);
  CHECK(m->terms[0].name == "compute time");
  CHECK(m->terms[0].value.value == approx(1e-3));
  CHECK(m->terms[1].name == "memory time");
  CHECK(m->terms[1].value.value == approx(1e-2));
  const backend::Row* c = e->row("run compute_bound on g");
  REQUIRE(c);
  CHECK(c->each_s == approx(1.0));
  const backend::Row* f = e->row("run fixed");
  REQUIRE(f);
  CHECK(f->each_s == approx(3e-3));
  CHECK(f->model == "explicit time");
}

TEST_CASE("interpreter: a d2d copy is L+O plus its bytes read and written over gpu memory bandwidth") {
  auto e = evaluate(std::string(kMachine) + "app a { copy d2d 1 GB }\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  CHECK(e->result.total_s == approx(2e-6 + 2 * 1e9 / 100e9).epsilon(1e-12));
}

TEST_CASE("interpreter: param values report defaults and overrides") {
  auto e = evaluate("param a = 1 GB\nparam b = 2 s\n", {{"b", 5}});
  REQUIRE(e->ok);
  REQUIRE(e->result.params.size() == 2);
  CHECK(e->result.params[0].name == "a");
  CHECK_FALSE(e->result.params[0].overridden);
  CHECK(e->result.params[0].value.dim == support::Dim::byte());
  CHECK(e->result.params[1].overridden);
  CHECK(e->result.params[1].value.value == 5.0);
}

TEST_CASE("interpreter: compute_values marks faulted values as NaN") {
  auto e = evaluate("param a = 4\nlet b = a / 0\nlet c = b + 1\nlet d = a * 2\n");
  auto values = backend::compute_values(e->ir, backend::SlotValues(e->ir.params.size()));
  size_t nan = 0;
  for (double v : values) nan += std::isnan(v);
  CHECK(nan >= 2);  // the division and everything computed from it
  // a let is a named value like a param: its fault is reported, at the division
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::DivisionByZero));
}

TEST_CASE("interpreter: a faulty default is not reported when the param is bound") {
  auto e = evaluate("param k = 1 / 0\nparam m = k * 2\n", {{"k", 3}});
  INFO(e->all_messages());
  CHECK(e->ok);
  CHECK(e->param("m") == 6.0);
}

TEST_CASE("interpreter: unary minus binds looser than ^") {
  auto e = evaluate("param a = -2^2\nparam b = 2^-2\nparam c = (-2)^2\n");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  CHECK(e->param("a") == -4.0);
  CHECK(e->param("b") == 0.25);
  CHECK(e->param("c") == 4.0);
}

TEST_CASE("interpreter: an overflowing product is DomainError") {
  auto e = evaluate("param x = 1e300 s * 1e300\n");
  CHECK_FALSE(e->ok);
  CHECK(e->has(DiagKind::DomainError));
}

TEST_CASE("interpreter: the machine's node count must be a positive whole number") {
  auto zero = evaluate("machine m { nodes = 0\n node { cpu c } }\n");
  CHECK_FALSE(zero->ok);
  CHECK(zero->has(DiagKind::NonPositiveValue));
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  // A fractional count may be caught while lowering or while evaluating; either way it is NotAnInteger.
  auto file = sources.add("m.gpm", "machine m { nodes = 2.5\n node { cpu c } }\n");
  std::vector<std::unique_ptr<frontend::Module>> modules;
  modules.push_back(frontend::parse_module(sources, file, diags));
  REQUIRE(modules.back());
  frontend::Sema sema(diags);
  REQUIRE(sema.check(modules));
  ir::Module ir;
  lower::ParamBindings none;
  lower::Lowerer lowerer(sema.program(), sources, diags, ir, none);
  lowerer.lower_params({sema.program().machines.at(0)});
  lowerer.lower_machine(*sema.program().machines.at(0));
  backend::Evaluation result;
  if (!diags.has_errors()) CHECK_FALSE(backend::evaluate(ir, {}, diags, result));
  bool not_integer = false;
  for (const auto& d : diags.diagnostics()) not_integer = not_integer || d.kind == DiagKind::NotAnInteger;
  CHECK(not_integer);
}

TEST_CASE("interpreter: a kernel's precision selects the gpu peak the roofline uses") {
  auto e = evaluate(R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s; peak_fp32 = 4 Tflop/s }
machine m { node { gpu g : G } }
app a {
  kernel k64 { flops = 4 Tflop }
  kernel k32 { flops = 4 Tflop; precision = 32 }
  run k64
  run k32
}
)");
  INFO(e->all_messages());
  REQUIRE(e->ok);
  const backend::Row* k64 = e->row("run k64 on g");
  const backend::Row* k32 = e->row("run k32 on g");
  REQUIRE(k64);
  REQUIRE(k32);
  CHECK(k64->each_s == approx(4.0));
  CHECK(k32->each_s == approx(1.0));
  CHECK(k32->model == "roofline (compute only)");
}
