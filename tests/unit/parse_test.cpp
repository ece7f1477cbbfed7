// parse_test.cpp: unit tests of parse_module and parse_expression: declarations, lexical and syntax errors,
// nesting limits, flat chains and literal conversion to base units.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "test_support.h"
#include "frontend/ast.h"
#include "support/diagnostics.h"
#include "frontend/parse.h"

using namespace gpm::frontend;

namespace {

using gpm::test::approx;

// One file parsed in its own source manager and diagnostic engine.
struct Parsed {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  FileId file = kNoFile;
  std::unique_ptr<Module> module;
  ExprPtr expr;

  bool has(DiagKind kind) const {
    for (const auto& d : diags.diagnostics())
      if (d.kind == kind) return true;
    return false;
  }
  const Diagnostic& first() const { return diags.diagnostics().at(0); }
  LineColumn first_at() const { return sources.line_column(first().range.file, first().range.begin); }
  std::string all_messages() const {
    std::string out;
    for (const auto& d : diags.diagnostics()) out += diags.render(d);
    return out;
  }
};

std::unique_ptr<Parsed> parse(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->file = p->sources.add("test.gpm", text);
  p->module = parse_module(p->sources, p->file, p->diags);
  return p;
}

std::unique_ptr<Parsed> parse_expr(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->file = p->sources.add("expr", text);
  p->expr = parse_expression(p->sources, p->file, p->diags);
  return p;
}

// The value expression of the first top-level param.
const Expr& first_param_value(const Module& m) {
  for (const auto& d : m.decls)
    if (d->kind == DeclKind::Param) return *static_cast<const ParamDecl&>(*d).value;
  FAIL("no param");
  throw 0;
}

}  // namespace

TEST_CASE("parse: every kind of top-level declaration is recognised in source order") {
  auto p = parse(R"(
import "roofline"
param n = 4 KiB in 1 B .. 1 GiB, m = 2
let half = n / 2
fn twice(t: time) -> time = 2 * t
type V : gpu { mem_bw = 900 GB/s; peak_fp64 = 7.8 Tflop/s }
machine box {
  nodes = 2
  node {
    cpu c
    memory mem { bw = 10 GB/s }
    gpu g[2] : V
    link mem <-> c { bw = 10 GB/s }
    link c <-> g[*] { bw = 16 GB/s; latency = 1 us }
  }
}
app a {
  data buf : host pinned (1 MiB)
  kernel k { flops = 1 Gflop; bytes = 1 GB }
  phase setup { copy h2d buf }
  iterate 10 { run k on g[1]; overhead 5 us }
  par { seq { run k } run k }
}
)");
  INFO(p->all_messages());
  REQUIRE(p->module);
  CHECK_FALSE(p->diags.has_errors());
  const auto& decls = p->module->decls;
  REQUIRE(decls.size() == 8);
  CHECK(decls[0]->kind == DeclKind::Import);
  CHECK(static_cast<const ImportDecl&>(*decls[0]).path == "roofline");
  CHECK(decls[1]->kind == DeclKind::Param);
  CHECK(decls[1]->name == "n");
  const auto& n = static_cast<const ParamDecl&>(*decls[1]);
  CHECK(n.range_lo);
  CHECK(n.range_hi);
  CHECK(decls[2]->kind == DeclKind::Param);
  CHECK(decls[2]->name == "m");
  CHECK(decls[3]->kind == DeclKind::Let);
  CHECK(decls[4]->kind == DeclKind::Fn);
  const auto& fn = static_cast<const FnDecl&>(*decls[4]);
  REQUIRE(fn.params.size() == 1);
  CHECK(fn.params[0].name == "t");
  REQUIRE(fn.params[0].type.dim);
  CHECK(*fn.params[0].type.dim == Dim::seconds());
  CHECK(decls[5]->kind == DeclKind::Type);
  CHECK(static_cast<const TypeDecl&>(*decls[5]).component_kind == "gpu");
  CHECK(static_cast<const TypeDecl&>(*decls[5]).attrs.size() == 2);
  CHECK(decls[6]->kind == DeclKind::Machine);
  const auto& machine = static_cast<const MachineDecl&>(*decls[6]);
  CHECK(machine.attrs.size() == 1);
  REQUIRE(machine.nodes.size() == 1);
  CHECK(machine.nodes[0]->items.size() == 5);
  CHECK(decls[7]->kind == DeclKind::App);
  const auto& app = static_cast<const AppDecl&>(*decls[7]);
  CHECK(app.data.size() == 1);
  CHECK(app.data[0]->host_kind == "pinned");
  CHECK(app.kernels.size() == 1);
  REQUIRE(app.body.size() == 3);
  CHECK(app.body[0]->kind == StmtKind::Phase);
  CHECK(app.body[1]->kind == StmtKind::Iterate);
  CHECK(app.body[1]->body.size() == 2);
  CHECK(app.body[2]->kind == StmtKind::Par);
}

TEST_CASE("parse: declaration ranges point at the declared name") {
  auto p = parse("param alpha = 1\n  let beta = alpha\n");
  REQUIRE(p->module);
  REQUIRE(p->module->decls.size() == 2);
  auto at = p->sources.line_column(p->file, p->module->decls[1]->name_range.begin);
  CHECK(at.line == 2);
  CHECK(at.column == 7);
  CHECK(p->module->decls[1]->file == p->file);
}

TEST_CASE("parse: a syntax error is reported as SyntaxError at the offending token") {
  auto p = parse("param a = 1\nparam b = * 2\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::SyntaxError);
  CHECK(p->first_at().line == 2);
  CHECK(p->first_at().column == 11);
}

TEST_CASE("parse: a missing closing brace is an unexpected end of file") {
  auto p = parse("machine m {\n  node {\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::SyntaxError);
  CHECK(p->first().message.find("end of file") != std::string::npos);
  CHECK(p->first_at().line == 3);
}

TEST_CASE("parse: a stray character is UnexpectedCharacter with its location") {
  auto p = parse("param a = 1 $ 2\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::UnexpectedCharacter);
  CHECK(p->first_at().column == 13);
}

TEST_CASE("parse: `8 Gbps` is reported as UnknownUnit naming the whole word") {
  auto p = parse("param bw = 8 Gbps\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::UnknownUnit);
  CHECK(p->first().message.find("`Gbps`") != std::string::npos);
  CHECK(p->first_at().line == 1);
  CHECK(p->first_at().column == 14);
  CHECK_FALSE(p->has(DiagKind::SyntaxError));
}

TEST_CASE("parse: a number followed by an unknown word is UnknownUnit") {
  auto p = parse("param t = 5 sec\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::UnknownUnit);
  CHECK(p->first().message.find("sec") != std::string::npos);
}

TEST_CASE("parse: an unterminated string is UnterminatedString") {
  auto p = parse("import \"roofline\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::UnterminatedString);
  CHECK(p->first_at().line == 1);
  CHECK(p->first_at().column == 8);
}

TEST_CASE("parse: an unterminated block comment is UnterminatedComment at its opening") {
  auto p = parse("param a = 1\n/* never closed\nparam b = 2\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::UnterminatedComment);
  CHECK(p->first_at().line == 2);
  CHECK(p->first_at().column == 1);
  CHECK(p->first().range.end - p->first().range.begin == 2);  // the caret marks `/*`
}

TEST_CASE("parse: comments are skipped") {
  auto p = parse("// line\nparam a = 1 /* block\n spanning lines */ + 2 // tail\n");
  REQUIRE(p->module);
  CHECK_FALSE(p->diags.has_errors());
  CHECK(p->module->decls.size() == 1);
}

TEST_CASE("parse: invalid UTF-8 is InvalidEncoding at the first bad byte") {
  auto p = parse(std::string("param a = 1\nparam b = 2 // caf\xE9\n"));
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.error_count() == 1);
  CHECK(p->first().kind == DiagKind::InvalidEncoding);
  CHECK(p->first().message.find("0xE9") != std::string::npos);
  CHECK(p->first_at().line == 2);
  CHECK(p->first_at().column == 19);
}

TEST_CASE("parse: overlong UTF-8, lone continuation bytes and NUL are InvalidEncoding") {
  for (std::string bad : {std::string("param a = 1 // \xC0\x80\n"), std::string("param a = 1 // \x80\n"),
                          std::string("param a = 1 // \xED\xA0\x80\n"), std::string("param a = 1\0\n", 13)}) {
    auto p = parse(bad);
    CHECK_FALSE(p->module);
    REQUIRE(p->diags.has_errors());
    CHECK(p->first().kind == DiagKind::InvalidEncoding);
  }
}

TEST_CASE("parse: valid multi-byte UTF-8 in comments is accepted") {
  auto p = parse("// Größe — 50 µs, 😀\nparam a = 1\n");
  REQUIRE(p->module);
  CHECK_FALSE(p->diags.has_errors());
}

TEST_CASE("parse: 300 nested parentheses are NestingTooDeep") {
  std::string text = "param x = " + std::string(300, '(') + "1" + std::string(300, ')') + "\n";
  auto p = parse(text);
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.error_count() == 1);
  CHECK(p->first().kind == DiagKind::NestingTooDeep);
}

TEST_CASE("parse: 200 nested parentheses are within the limit") {
  std::string text = "param x = " + std::string(200, '(') + "1" + std::string(200, ')') + "\n";
  auto p = parse(text);
  INFO(p->all_messages());
  REQUIRE(p->module);
  CHECK_FALSE(p->diags.has_errors());
}

TEST_CASE("parse: 300 prefix minus signs and 300 nested blocks are NestingTooDeep") {
  std::string minus;
  for (int i = 0; i < 300; ++i) minus += "- ";
  auto p = parse("param x = " + minus + "1\n");
  CHECK_FALSE(p->module);
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::NestingTooDeep);

  std::string blocks = "app a {\n";
  for (int i = 0; i < 300; ++i) blocks += "seq {";
  for (int i = 0; i < 300; ++i) blocks += "}";
  blocks += "\n}\n";
  auto q = parse(blocks);
  CHECK_FALSE(q->module);
  REQUIRE(q->diags.has_errors());
  CHECK(q->first().kind == DiagKind::NestingTooDeep);
}

TEST_CASE("parse: a sum of 10,000 terms is one flat Chain node with 10,000 operands") {
  std::string text = "param x = 1";
  for (int i = 1; i < 10000; ++i) text += i % 2 ? " + 1" : " - 1";
  text += "\n";
  auto p = parse(text);
  INFO(p->all_messages());
  REQUIRE(p->module);
  const Expr& e = first_param_value(*p->module);
  CHECK(e.kind == ExprKind::Chain);
  CHECK(e.operands.size() == 10000);
  REQUIRE(e.chain_ops.size() == 9999);
  CHECK(e.chain_ops[0] == Op::Add);
  CHECK(e.chain_ops[1] == Op::Sub);
  for (const auto& operand : e.operands) REQUIRE(operand->kind == ExprKind::Number);
}

TEST_CASE("parse: a product chain is flat and keeps * and / in order") {
  auto p = parse_expr("a * b / c * d");
  REQUIRE(p->expr);
  CHECK(p->expr->kind == ExprKind::Chain);
  REQUIRE(p->expr->operands.size() == 4);
  CHECK(p->expr->chain_ops == std::vector<Op>{Op::Mul, Op::Div, Op::Mul});
  CHECK(p->expr->operands[3]->name == "d");
}

TEST_CASE("parse: precedence puts products inside sums and powers inside products") {
  auto p = parse_expr("1 + 2 * 3 ^ 2");
  REQUIRE(p->expr);
  REQUIRE(p->expr->kind == ExprKind::Chain);
  REQUIRE(p->expr->operands.size() == 2);
  const Expr& product = *p->expr->operands[1];
  REQUIRE(product.kind == ExprKind::Chain);
  CHECK(product.chain_ops == std::vector<Op>{Op::Mul});
  CHECK(product.operands[1]->kind == ExprKind::Binary);
  CHECK(product.operands[1]->op == Op::Pow);
}

TEST_CASE("parse: `a^b^c` is ChainedPower, and parenthesised powers are fine") {
  auto p = parse("param x = 2^3^2\n");
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::ChainedPower);
  CHECK(p->first_at().column == 11);

  auto q = parse("param x = (2^3)^2\nparam y = 2^(3^2)\n");
  INFO(q->all_messages());
  REQUIRE(q->module);
  CHECK_FALSE(q->diags.has_errors());
}

TEST_CASE("parse: chained comparisons are rejected") {
  auto p = parse("param x = if 1 < 2 < 3 then 1 else 2\n");
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().kind == DiagKind::ChainedComparison);
}

TEST_CASE("parse: quantities are converted to base units") {
  auto kib = parse_expr("1 KiB");
  REQUIRE(kib->expr);
  CHECK(kib->expr->kind == ExprKind::Number);
  CHECK(kib->expr->value == 1024.0);
  CHECK(kib->expr->literal_dim == Dim::byte());

  auto rate = parse_expr("16 GB/s");
  REQUIRE(rate->expr);
  CHECK(rate->expr->value == 16e9);
  CHECK(rate->expr->literal_dim == Dim::byte() / Dim::seconds());

  auto transfers = parse_expr("8 GT/s");
  REQUIRE(transfers->expr);
  CHECK(transfers->expr->value == 8e9);
  CHECK(transfers->expr->literal_dim == Dim::count() / Dim::seconds());
  CHECK(transfers->expr->literal_dim == Dim{-1, 0, 0});

  auto no_space = parse_expr("4KiB");
  REQUIRE(no_space->expr);
  CHECK(no_space->expr->value == 4096.0);

  auto micro = parse_expr("9.420 us");
  REQUIRE(micro->expr);
  CHECK(micro->expr->value == approx(9.42e-6).epsilon(1e-15));
  CHECK(micro->expr->literal_dim == Dim::seconds());

  auto exp = parse_expr("1.5e3 ms");
  REQUIRE(exp->expr);
  CHECK(exp->expr->value == approx(1.5));

  auto bits = parse_expr("1 b");
  REQUIRE(bits->expr);
  CHECK(bits->expr->value == 0.125);

  auto flops = parse_expr("7.8 Tflop/s");
  REQUIRE(flops->expr);
  CHECK(flops->expr->value == approx(7.8e12));
  CHECK(flops->expr->literal_dim == Dim::flop() / Dim::seconds());

  auto plain = parse_expr("42");
  REQUIRE(plain->expr);
  CHECK(plain->expr->value == 42.0);
  CHECK(plain->expr->literal_dim.is_count());
}

TEST_CASE("parse: a call keeps positional and named arguments") {
  auto p = parse_expr("f(1 s, bw = 2 GB/s)");
  REQUIRE(p->expr);
  CHECK(p->expr->kind == ExprKind::Call);
  CHECK(p->expr->name == "f");
  REQUIRE(p->expr->arg_names.size() == 2);
  CHECK(p->expr->arg_names[0].empty());
  CHECK(p->expr->arg_names[1] == "bw");
}

TEST_CASE("parse: link pairs keep their direction and component references") {
  auto p = parse("machine m { node { cpu a\n gpu g[2]\n link a -> g[1], a <-> g[*] { bw = 1 GB/s } } }\n");
  INFO(p->all_messages());
  REQUIRE(p->module);
  const auto& m = static_cast<const MachineDecl&>(*p->module->decls[0]);
  const auto& items = m.nodes[0]->items;
  REQUIRE(items.size() == 3);
  REQUIRE(items[2].kind == NodeItem::Kind::Link);
  const auto& link = *items[2].link;
  REQUIRE(link.pairs.size() == 2);
  CHECK_FALSE(link.pairs[0].bidirectional);
  CHECK(link.pairs[1].bidirectional);
  REQUIRE(link.pairs[0].b.parts.size() == 1);
  CHECK(link.pairs[0].b.parts[0].index);
  CHECK(link.pairs[1].b.parts[0].star);
}

TEST_CASE("parse: a file with only comments parses to a module with no declarations") {
  auto p = parse("// nothing here\n/* still nothing */\n");
  REQUIRE(p->module);
  CHECK(p->module->decls.empty());
  CHECK_FALSE(p->diags.has_errors());
}

TEST_CASE("parse: parse_expression rejects trailing tokens") {
  auto p = parse_expr("1 GB 2");
  CHECK_FALSE(p->expr);
  CHECK(p->diags.has_errors());
}

TEST_CASE("parse: a literal too large for a double is reported at the literal") {
  auto p = parse("app a { overhead 1e400 s }\n");
  REQUIRE(p->diags.has_errors());
  CHECK(p->first().message.find("1e400") != std::string::npos);
  CHECK(p->first_at().column == 18);
}
