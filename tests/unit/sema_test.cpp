// sema_test.cpp: unit tests of semantic checks: names, duplicates, units, calls, recursion, attributes.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "support/diagnostics.h"
#include "frontend/parse.h"
#include "frontend/sema.h"

using namespace gpm::frontend;

namespace {

// One file parsed and checked; `ok` is what Sema::check returned.
struct Checked {
  SourceManager sources;
  DiagnosticEngine diags{sources};
  std::vector<std::unique_ptr<Module>> modules;
  Sema sema{diags};
  bool parsed = false;
  bool ok = false;

  size_t count(DiagKind kind) const {
    size_t n = 0;
    for (const auto& d : diags.diagnostics()) n += d.kind == kind;
    return n;
  }
  bool has(DiagKind kind) const { return count(kind) > 0; }
  const Diagnostic* find(DiagKind kind) const {
    for (const auto& d : diags.diagnostics())
      if (d.kind == kind) return &d;
    return nullptr;
  }
  LineColumn at(const SourceRange& r) const { return sources.line_column(r.file, r.begin); }
  std::string all_messages() const {
    std::string out;
    for (const auto& d : diags.diagnostics()) out += diags.render(d);
    return out;
  }
  const Decl* global(const std::string& name) const {
    auto it = sema.program().globals.find(name);
    return it == sema.program().globals.end() ? nullptr : it->second;
  }
  Type param_type(const std::string& name) const {
    const Decl* d = global(name);
    REQUIRE(d);
    REQUIRE(d->kind == DeclKind::Param);
    return static_cast<const ParamDecl*>(d)->type;
  }
  Type let_type(const std::string& name) const {
    const Decl* d = global(name);
    REQUIRE(d);
    REQUIRE(d->kind == DeclKind::Let);
    return static_cast<const LetDecl*>(d)->type;
  }
};

std::unique_ptr<Checked> check(const std::vector<std::string>& texts) {
  auto c = std::make_unique<Checked>();
  for (size_t i = 0; i < texts.size(); ++i) {
    FileId f = c->sources.add("file" + std::to_string(i) + ".gpm", texts[i]);
    auto m = parse_module(c->sources, f, c->diags);
    REQUIRE_MESSAGE(m, c->all_messages());
    c->modules.push_back(std::move(m));
  }
  REQUIRE_MESSAGE(!c->diags.has_errors(), c->all_messages());
  c->parsed = true;
  c->ok = c->sema.check(c->modules);
  return c;
}
std::unique_ptr<Checked> check(const std::string& text) { return check(std::vector<std::string>{text}); }

}  // namespace

TEST_CASE("sema: a well-formed program checks without errors and records its declarations") {
  auto c = check(R"(
param n = 4 KiB
let t = n / (2 GB/s)
fn twice(x: time) -> time = 2 * x
type V : gpu { mem_bw = 900 GB/s }
machine m { node { gpu g : V } }
app a { kernel k { bytes = n } run k }
)");
  INFO(c->all_messages());
  CHECK(c->ok);
  CHECK(c->sema.program().params.size() == 1);
  CHECK(c->sema.program().lets.size() == 1);
  CHECK(c->sema.program().machines.size() == 1);
  CHECK(c->sema.program().apps.size() == 1);
  CHECK(c->param_type("n").dim == Dim::byte());
  CHECK(c->let_type("t").dim == Dim::seconds());
}

TEST_CASE("sema: an unknown identifier is UnknownIdentifier at the name") {
  auto c = check("param a = 1 s\nparam b = a + missing\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::UnknownIdentifier);
  REQUIRE(d);
  CHECK(d->message.find("`missing`") != std::string::npos);
  CHECK(c->at(d->range).line == 2);
  CHECK(c->at(d->range).column == 15);
  CHECK(c->diags.error_count() == 1);  // no follow-on unit errors
}

TEST_CASE("sema: a unit word used as a name gets a hint") {
  auto c = check("param a = 3 * GB\n");
  const Diagnostic* d = c->find(DiagKind::UnknownIdentifier);
  REQUIRE(d);
  CHECK(d->message.find("1 GB") != std::string::npos);
}

TEST_CASE("sema: a duplicate definition is reported at the second one with a note at the first") {
  auto c = check("param x = 1\nlet y = 2\nparam x = 3\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::DuplicateDefinition);
  REQUIRE(d);
  CHECK(c->at(d->range).line == 3);
  CHECK(c->at(d->range).column == 7);
  REQUIRE(d->notes.size() == 1);
  CHECK(c->at(d->notes[0].first).line == 1);
  CHECK(c->at(d->notes[0].first).column == 7);
  CHECK(d->notes[0].second.find("first defined") != std::string::npos);
}

TEST_CASE("sema: a duplicate across files and machine-local params is a duplicate too") {
  auto c = check(std::vector<std::string>{"param bw = 1 GB/s\n", "machine m { param bw = 2 GB/s\n node { cpu c } }\n"});
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::DuplicateDefinition);
  REQUIRE(d);
  CHECK(d->range.file == 1);
  REQUIRE(d->notes.size() == 1);
  CHECK(d->notes[0].first.file == 0);
}

TEST_CASE("sema: redefining a builtin function is DuplicateDefinition") {
  auto c = check("fn max(a: time, b: time) -> time = a\n");
  CHECK(c->has(DiagKind::DuplicateDefinition));
}

TEST_CASE("sema: adding or subtracting different dimensions is UnitMismatch") {
  auto add = check("param x = 1 s + 1 B\n");
  CHECK_FALSE(add->ok);
  const Diagnostic* d = add->find(DiagKind::UnitMismatch);
  REQUIRE(d);
  CHECK(d->message.find("time") != std::string::npos);
  CHECK(d->message.find("bytes") != std::string::npos);
  CHECK(add->at(d->range).column == 17);  // at the offending operand

  auto sub = check("param x = 1 GB/s - 1 GB\n");
  CHECK(sub->has(DiagKind::UnitMismatch));

  auto ok = check("param x = 1 s + 5 ms - 3 us\n");
  CHECK(ok->ok);
  CHECK(ok->param_type("x").dim == Dim::seconds());
}

TEST_CASE("sema: comparing different dimensions is UnitMismatch") {
  auto c = check("param x = if 1 s < 1 B then 1 else 2\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::UnitMismatch));
  auto eq = check("param x = if 1 GB/s == 1 GB then 1 else 2\n");
  CHECK(eq->has(DiagKind::UnitMismatch));
  auto ok = check("param x = if 1 s < 2 ms then 1 B else 2 B\n");
  CHECK(ok->ok);
  CHECK(ok->param_type("x").dim == Dim::byte());
}

TEST_CASE("sema: products and quotients combine dimensions") {
  auto c = check("param bw = 16 GB/s\nlet t = 1 GiB / bw\nlet work = 2 flop * 3\nlet rate = work / t\n");
  INFO(c->all_messages());
  CHECK(c->ok);
  CHECK(c->let_type("t").dim == Dim::seconds());
  CHECK(c->let_type("rate").dim == Dim::flop() / Dim::seconds());
}

TEST_CASE("sema: a fn call with too few or too many arguments is WrongArgumentCount") {
  const std::string fn = "fn f(a: time, b: bytes) -> time = a\n";
  auto few = check(fn + "param x = f(1 s)\n");
  CHECK_FALSE(few->ok);
  CHECK(few->has(DiagKind::WrongArgumentCount));
  auto many = check(fn + "param x = f(1 s, 1 B, 1 B)\n");
  CHECK_FALSE(many->ok);
  CHECK(many->has(DiagKind::WrongArgumentCount));
}

TEST_CASE("sema: named arguments are matched by name, and unknown and repeated names are errors") {
  const std::string fn = "fn f(a: time, b: bytes) -> time = a + b / (1 GB/s)\n";
  auto named = check(fn + "param x = f(b = 1 B, a = 1 s)\n");
  INFO(named->all_messages());
  CHECK(named->ok);
  CHECK(named->param_type("x").dim == Dim::seconds());
  // Sema reorders named arguments into parameter order.
  const auto& call = *static_cast<const ParamDecl*>(named->global("x"))->value;
  REQUIRE(call.kind == ExprKind::Call);
  REQUIRE(call.operands.size() == 2);
  CHECK(call.operands[0]->literal_dim == Dim::seconds());
  CHECK(call.operands[1]->literal_dim == Dim::byte());

  auto unknown = check(fn + "param x = f(a = 1 s, c = 1 B)\n");
  CHECK_FALSE(unknown->ok);
  CHECK(unknown->has(DiagKind::UnknownArgument));

  auto twice = check(fn + "param x = f(1 s, a = 1 s)\n");
  CHECK_FALSE(twice->ok);
  CHECK(twice->has(DiagKind::DuplicateDefinition));
}

TEST_CASE("sema: a fn argument of the wrong dimension is UnitMismatch at the argument") {
  auto c = check("fn f(a: time, b: bytes) -> time = a\nparam x = f(1 B, 1 B)\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::UnitMismatch);
  REQUIRE(d);
  CHECK(c->at(d->range).line == 2);
  CHECK(c->at(d->range).column == 13);
  CHECK(d->message.find("`a`") != std::string::npos);
}

TEST_CASE("sema: a fn body that does not match the declared result is UnitMismatch") {
  auto c = check("fn f(a: time) -> bytes = a\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::UnitMismatch));
}

TEST_CASE("sema: calling an undeclared function is UnknownFunction, and builtins reject named arguments") {
  auto c = check("param x = nope(1)\n");
  CHECK(c->has(DiagKind::UnknownFunction));
  auto b = check("param x = max(1 s, b = 2 s)\n");
  CHECK(b->has(DiagKind::UnknownArgument));
  auto one = check("param x = min(1 s)\n");
  CHECK(one->has(DiagKind::WrongArgumentCount));
  auto mixed = check("param x = max(1 s, 2 B)\n");
  CHECK(mixed->has(DiagKind::UnitMismatch));
}

TEST_CASE("sema: a function that calls itself is RecursiveDefinition") {
  auto c = check("fn f(x: time) -> time = f(x)\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::RecursiveDefinition));
}

TEST_CASE("sema: mutually recursive functions are RecursiveDefinition") {
  auto c = check("fn f(x: time) -> time = g(x) + 1 s\nfn g(x: time) -> time = h(x)\nfn h(x: time) -> time = f(x)\n");
  CHECK_FALSE(c->ok);
  CHECK(c->count(DiagKind::RecursiveDefinition) >= 1);
}

TEST_CASE("sema: a call chain without a cycle is fine") {
  auto c = check("fn f(x: time) -> time = g(x) + h(x)\nfn g(x: time) -> time = h(x)\nfn h(x: time) -> time = 2 * x\n"
                 "param y = f(1 s)\n");
  INFO(c->all_messages());
  CHECK(c->ok);
}

TEST_CASE("sema: params and lets that depend on themselves are RecursiveDefinition") {
  auto self = check("param a = a + 1\n");
  CHECK_FALSE(self->ok);
  CHECK(self->has(DiagKind::RecursiveDefinition));

  auto mutual = check("param a = b * 2\nparam b = a / 2\n");
  CHECK_FALSE(mutual->ok);
  const Diagnostic* d = mutual->find(DiagKind::RecursiveDefinition);
  REQUIRE(d);

  auto via_let = check("param a = c\nlet c = a\n");
  CHECK(via_let->has(DiagKind::RecursiveDefinition));
}

TEST_CASE("sema: declaration order does not matter for params and lets") {
  auto c = check("let t = n / bw\nparam n = 1 GiB\nparam bw = 8 GB/s\n");
  INFO(c->all_messages());
  CHECK(c->ok);
  CHECK(c->let_type("t").dim == Dim::seconds());
}

TEST_CASE("sema: an attribute a component kind does not have is UnknownAttribute") {
  auto c = check("type X : gpu { mem_bw = 1 GB/s; colour = 3 }\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::UnknownAttribute);
  REQUIRE(d);
  CHECK(d->message.find("colour") != std::string::npos);
  CHECK(d->message.find("mem_bw") != std::string::npos);  // lists what a gpu has

  auto comp = check("machine m { node { cpu c { mem_bw = 1 GB/s } } }\n");
  CHECK(comp->has(DiagKind::UnknownAttribute));
  auto kernel = check("app a { kernel k { bytes = 1 B; speed = 3 } run k }\n");
  CHECK(kernel->has(DiagKind::UnknownAttribute));
  auto machine = check("machine m { sockets = 2\n node { cpu c } }\n");
  CHECK(machine->has(DiagKind::UnknownAttribute));
}

TEST_CASE("sema: an attribute of the wrong dimension is UnitMismatch") {
  auto c = check("type X : gpu { mem_bw = 900 GB }\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::UnitMismatch);
  REQUIRE(d);
  CHECK(d->message.find("mem_bw") != std::string::npos);
  auto link = check("machine m { node { cpu a\n cpu b\n link a <-> b { bw = 1 GB/s; latency = 5 GB/s } } }\n");
  CHECK(link->has(DiagKind::UnitMismatch));
  auto freq = check("machine m { node { cpu c { freq = 2.2 GHz; cores = 16 } } }\n");
  INFO(freq->all_messages());
  CHECK(freq->ok);
}

TEST_CASE("sema: an attribute set twice is DuplicateDefinition with a note") {
  auto c = check("type X : gpu { mem_bw = 1 GB/s; mem_bw = 2 GB/s }\n");
  const Diagnostic* d = c->find(DiagKind::DuplicateDefinition);
  REQUIRE(d);
  CHECK(d->notes.size() == 1);
}

TEST_CASE("sema: unknown component kinds, unknown types and types of another kind are reported") {
  auto kind = check("machine m { node { fpga f } }\n");
  CHECK(kind->has(DiagKind::UnknownComponentKind));
  auto type = check("machine m { node { gpu g : Nope } }\n");
  CHECK(type->has(DiagKind::UnknownType));
  auto mismatch = check("type C : cpu { cores = 4 }\nmachine m { node { gpu g : C } }\n");
  CHECK(mismatch->has(DiagKind::TypeKindMismatch));
}

TEST_CASE("sema: if branches of different units are UnitMismatch, and the condition must be a truth value") {
  auto c = check("param x = if 1 < 2 then 1 s else 1 B\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::UnitMismatch));
  auto cond = check("param x = if 1 s then 1 else 2\n");
  CHECK(cond->has(DiagKind::TypeMismatch));
  auto ok = check("param x = if 1 < 2 and not (3 > 4) then 1 s else 2 ms\n");
  INFO(ok->all_messages());
  CHECK(ok->ok);
  CHECK(ok->param_type("x").dim == Dim::seconds());
}

TEST_CASE("sema: sqrt of bytes^2 is bytes, and sqrt of bytes is an error") {
  auto c = check("let a = sqrt((4 B)^2)\nlet b = sqrt(4 B * 9 B)\nlet r = sqrt(16 GB/s * 1 GB/s)\n");
  INFO(c->all_messages());
  CHECK(c->ok);
  CHECK(c->let_type("a").dim == Dim::byte());
  CHECK(c->let_type("b").dim == Dim::byte());
  CHECK(c->let_type("r").dim == Dim::byte() / Dim::seconds());
  auto bad = check("let a = sqrt(4 B)\n");
  CHECK_FALSE(bad->ok);
  CHECK(bad->has(DiagKind::UnitMismatch));
}

TEST_CASE("sema: ceil, floor and log2 of a time are errors, and of a count they are fine") {
  auto c = check("param x = ceil(1.5 s)\n");
  CHECK_FALSE(c->ok);
  const Diagnostic* d = c->find(DiagKind::UnitMismatch);
  REQUIRE(d);
  CHECK(d->message.find("ceil") != std::string::npos);
  CHECK(check("param x = floor(2 B)\n")->has(DiagKind::UnitMismatch));
  CHECK(check("param x = log2(2 s)\n")->has(DiagKind::UnitMismatch));
  auto ok = check("param x = ceil(1.5 s / 1 ms) * 1 ms\n");
  INFO(ok->all_messages());
  CHECK(ok->ok);
  CHECK(ok->param_type("x").dim == Dim::seconds());
}

TEST_CASE("sema: powers of quantities need constant integer exponents") {
  auto ok = check("param n = 3\nlet a = (2 B)^2\nlet b = n^2\nlet c = 2^n\nlet d = (2 s)^-1\n");
  INFO(ok->all_messages());
  CHECK(ok->ok);
  CHECK(ok->let_type("a").dim == Dim::byte().pow(2));
  CHECK(ok->let_type("b").dim.is_count());
  CHECK(ok->let_type("d").dim == Dim::count() / Dim::seconds());
  CHECK(check("param n = 3\nlet a = (2 B)^n\n")->has(DiagKind::InvalidExponent));
  CHECK(check("let a = 2^(1 s)\n")->has(DiagKind::InvalidExponent));
}

TEST_CASE("sema: truth values and quantities do not mix") {
  CHECK(check("param x = (1 < 2) + 1\n")->has(DiagKind::TypeMismatch));
  CHECK(check("param x = 1 < 2\n")->has(DiagKind::TypeMismatch));
  CHECK(check("param x = if not 1 then 1 else 2\n")->has(DiagKind::TypeMismatch));
  CHECK(check("param x = if 1 < 2 and 3 then 1 else 2\n")->has(DiagKind::TypeMismatch));
}

TEST_CASE("sema: a param range must have the param's dimension") {
  auto c = check("param n = 4 KiB in 1 .. 1 GiB\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::UnitMismatch));
  CHECK(check("param n = 4 KiB in 1 B .. 1 GiB\n")->ok);
}

TEST_CASE("sema: app statements are checked against the app's kernels and data") {
  auto run = check("app a { kernel k { bytes = 1 B } run nope }\n");
  CHECK(run->has(DiagKind::UnknownIdentifier));
  auto dir = check("app a { copy sideways 1 B pinned }\n");
  CHECK(dir->has(DiagKind::InvalidKeyword));
  auto kind = check("app a { copy h2d 1 B }\n");
  CHECK(kind->has(DiagKind::InvalidKeyword));
  auto size = check("app a { copy h2d 1 s pinned }\n");
  CHECK(size->has(DiagKind::UnitMismatch));
  auto iter = check("app a { iterate 2 s { overhead 1 us } }\n");
  CHECK(iter->has(DiagKind::UnitMismatch));
  auto over = check("app a { overhead 1 B }\n");
  CHECK(over->has(DiagKind::UnitMismatch));
  auto both = check("app a { kernel k { time = 1 s; flops = 1 flop } run k }\n");
  CHECK(both->has(DiagKind::ConflictingAttributes));
  auto none = check("app a { kernel k { precision = 64 } run k }\n");
  CHECK(none->has(DiagKind::MissingAttribute));
  auto buffer = check("app a { data d : device (1 MiB)\n copy h2d d }\n");
  CHECK(buffer->has(DiagKind::InvalidKeyword));
  auto good = check("app a { data h : host pageable (1 MiB)\n kernel k { time = 1 us }\n copy h2d h\n run k }\n");
  INFO(good->all_messages());
  CHECK(good->ok);
}

TEST_CASE("sema: a machine without a node and a node with two descriptions are reported") {
  CHECK(check("machine m { nodes = 2 }\n")->has(DiagKind::MissingAttribute));
  CHECK(check("machine m { node { cpu a } node { cpu b } }\n")->has(DiagKind::DuplicateDefinition));
  CHECK(check("machine m { node { cpu a\n gpu a } }\n")->has(DiagKind::DuplicateDefinition));
  CHECK(check("machine m { node { socket s { socket t { cpu a } } } }\n")->has(DiagKind::MisplacedDeclaration));
}

TEST_CASE("sema: check_global_expr types a standalone expression") {
  auto c = check("param bw = 1 GB/s\n");
  SourceManager& sm = c->sources;
  FileId f = sm.add("--set", "2 GB / bw");
  ExprPtr e = parse_expression(sm, f, c->diags);
  REQUIRE(e);
  Type t = c->sema.check_global_expr(*e);
  CHECK(t.is_quantity());
  CHECK(t.dim == Dim::seconds());
}

TEST_CASE("sema: a param that calls a function whose body reads that param is RecursiveDefinition") {
  auto c = check("fn a(x: time) -> time = x + p\nfn b(x: time) -> time = x + p\nparam p = b(1 s)\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::RecursiveDefinition));
}

TEST_CASE("sema: a param that calls a function reading it, with no other function, is RecursiveDefinition") {
  auto c = check("fn f(x: time) -> time = x + p\nparam p = f(1 s)\n");
  CHECK_FALSE(c->ok);
  CHECK(c->has(DiagKind::RecursiveDefinition));
}

TEST_CASE("sema: dimension exponents that overflow are not silently wrapped to a count") {
  // bytes^16 squared sixteen times over is bytes^256, which does not fit the exponent type.
  auto c = check("let a = ((2 B)^16)^16\nlet b = a + 1\n");
  CHECK_FALSE(c->ok);
}
