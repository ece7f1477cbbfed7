// lower_test.cpp: unit tests of lowering machines and apps to IR: array and socket expansion, `[*]`,
// index errors, per-direction link values, copy routing and the verifier on the result.
#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "frontend/loader.h"
#include "frontend/parse.h"
#include "frontend/sema.h"
#include "lower/lower.h"
#include "ir/topology.h"
#include "ir/verifier.h"
#include "test_support.h"

using namespace gpm;
using support::DiagKind;

namespace {

using test::approx;

// The standard library and one user text, parsed, checked and lowered (machine, then app if any).
struct Lowered : test::Pipeline {
  std::vector<double> values;

  const ir::Component& component(const std::string& path) const {
    int id = ir.topology.find(path);
    REQUIRE_MESSAGE(id >= 0, "no component ", path);
    return ir.topology.components[size_t(id)];
  }
  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& c : ir.topology.components) out.push_back(c.path);
    return out;
  }
  // The links between two components (either orientation).
  std::vector<const ir::Link*> links_between(const std::string& a, const std::string& b) const {
    int ia = ir.topology.find(a), ib = ir.topology.find(b);
    std::vector<const ir::Link*> out;
    for (const auto& l : ir.topology.links)
      if ((l.a == ia && l.b == ib) || (l.a == ib && l.b == ia)) out.push_back(&l);
    return out;
  }
  double value(ir::ValueId id) const { return values.at(size_t(id)); }
};

std::unique_ptr<Lowered> lower_text(const std::string& text, const std::map<std::string, double>& bindings = {}) {
  auto l = std::make_unique<Lowered>();
  l->lower(text, bindings);
  l->values = backend::compute_values(l->ir, l->bound);
  return l;
}

}  // namespace

TEST_CASE("lower: components of arrays and sockets get indexed paths like s[1].g[2]") {
  auto l = lower_text(R"(
machine m {
  node {
    socket s[2] {
      cpu p
      gpu g[3]
    }
    memory mem
  }
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(l->paths() == std::vector<std::string>{"s[0].p", "s[0].g[0]", "s[0].g[1]", "s[0].g[2]", "s[1].p",
                                               "s[1].g[0]", "s[1].g[1]", "s[1].g[2]", "mem"});
  CHECK(l->component("s[1].g[2]").kind == "gpu");
  CHECK(l->component("s[0].p").kind == "cpu");
}

TEST_CASE("lower: a socket without a count is a plain prefix, and array sizes may be params") {
  auto l = lower_text("machine m { param k = 2\n node { socket one { gpu g[k] } } }\n");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(l->paths() == std::vector<std::string>{"one.g[0]", "one.g[1]"});
  auto bound = lower_text("machine m { param k = 2\n node { socket one { gpu g[k] } } }\n", {{"k", 4}});
  CHECK(bound->ir.topology.components.size() == 4);
}

TEST_CASE("lower: a fractional or negative array size is NotAnInteger") {
  CHECK(lower_text("machine m { node { gpu g[2.5] } }\n")->has(DiagKind::NotAnInteger));
  CHECK(lower_text("machine m { node { gpu g[-1] } }\n")->has(DiagKind::NotAnInteger));
}

TEST_CASE("lower: `g[*]` expands to one link per element") {
  auto l = lower_text(R"(
machine m {
  node {
    cpu p
    gpu g[4]
    link p <-> g[*] { bw = 16 GB/s }
  }
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  REQUIRE(l->ir.topology.links.size() == 4);
  for (int i = 0; i < 4; ++i) {
    const auto& link = l->ir.topology.links[size_t(i)];
    CHECK(l->ir.topology.components[size_t(link.a)].path == "p");
    CHECK(l->ir.topology.components[size_t(link.b)].path == "g[" + std::to_string(i) + "]");
  }
}

TEST_CASE("lower: inside a socket, names refer to the socket's own components first") {
  auto l = lower_text(R"(
machine m {
  node {
    socket s[2] {
      cpu p
      gpu g[2]
      link p <-> g[*] { bw = 50 GB/s }
    }
    link s[0].p <-> s[1].p { bw = 64 GB/s }
  }
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(l->ir.topology.links.size() == 5);
  CHECK(l->links_between("s[1].p", "s[1].g[1]").size() == 1);
  CHECK(l->links_between("s[0].p", "s[1].g[1]").empty());
  CHECK(l->links_between("s[0].p", "s[1].p").size() == 1);
}

TEST_CASE("lower: an index past the end of an array is IndexOutOfRange") {
  auto l = lower_text("machine m { node { cpu p\n gpu g[3]\n link p <-> g[3] { bw = 1 GB/s } } }\n");
  const auto* d = l->find(DiagKind::IndexOutOfRange);
  REQUIRE(d);
  CHECK(d->message.find("3 elements") != std::string::npos);
  auto at = l->sources.line_column(d->range.file, d->range.begin);
  CHECK(at.line == 3);
  CHECK(at.column == 13);

  auto socket = lower_text("machine m { node { socket s[2] { cpu p } \n link s[0].p <-> s[2].p { bw = 1 GB/s } } }\n");
  CHECK(socket->has(DiagKind::IndexOutOfRange));
}

TEST_CASE("lower: a reference to a component that does not exist is UnknownComponent") {
  auto l = lower_text("machine m { node { cpu p\n link p <-> q { bw = 1 GB/s } } }\n");
  CHECK(l->has(DiagKind::UnknownComponent));
  auto star = lower_text("machine m { node { cpu p\n link p <-> g[*] { bw = 1 GB/s } } }\n");
  CHECK(star->has(DiagKind::UnknownComponent));
}

TEST_CASE("lower: link bandwidth and latency are kept per direction") {
  auto l = lower_text(R"(
machine m {
  node {
    memory mem
    gpu g
    link mem <-> g { bw_fwd = 12 GB/s; bw_rev = 10 GB/s; latency_fwd = 5 us; latency_rev = 7 us }
  }
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  REQUIRE(l->ir.topology.links.size() == 1);
  const ir::Link& link = l->ir.topology.links[0];
  CHECK(link.bidirectional);
  CHECK(l->value(link.bw[0]) == approx(12e9));
  CHECK(l->value(link.bw[1]) == approx(10e9));
  CHECK(l->value(link.latency[0]) == approx(5e-6));
  CHECK(l->value(link.latency[1]) == approx(7e-6));
}

TEST_CASE("lower: `bw` and `latency` apply to both directions, and a direction-specific value overrides") {
  auto l = lower_text("machine m { node { cpu a\n gpu b\n link a <-> b { bw = 8 GB/s; latency = 2 us; bw_rev = 4 GB/s } } }\n");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  const ir::Link& link = l->ir.topology.links.at(0);
  CHECK(l->value(link.bw[0]) == approx(8e9));
  CHECK(l->value(link.bw[1]) == approx(4e9));
  CHECK(l->value(link.latency[0]) == approx(2e-6));
  CHECK(l->value(link.latency[1]) == approx(2e-6));
}

TEST_CASE("lower: a link without latency has zero latency") {
  auto l = lower_text("machine m { node { cpu a\n gpu b\n link a <-> b { bw = 8 GB/s } } }\n");
  REQUIRE_FALSE(l->diags.has_errors());
  const ir::Link& link = l->ir.topology.links.at(0);
  CHECK(l->value(link.latency[0]) == 0.0);
  CHECK(l->value(link.latency[1]) == 0.0);
}

TEST_CASE("lower: a one-way link has values for its one direction only") {
  auto l = lower_text("machine m { node { cpu a\n gpu b\n link a -> b { bw_fwd = 3 GB/s } } }\n");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  const ir::Link& link = l->ir.topology.links.at(0);
  CHECK_FALSE(link.bidirectional);
  CHECK(l->value(link.bw[0]) == approx(3e9));
  CHECK(link.bw[1] == ir::kNoValue);
  CHECK(link.latency[1] == ir::kNoValue);
}

TEST_CASE("lower: a two-way link with only bw_fwd is MissingAttribute") {
  auto l = lower_text("machine m { node { cpu a\n gpu b\n link a <-> b { bw_fwd = 3 GB/s } } }\n");
  CHECK(l->has(DiagKind::MissingAttribute));
  CHECK(lower_text("machine m { node { cpu a\n gpu b\n link a <-> b { latency = 1 us } } }\n")->has(DiagKind::MissingAttribute));
}

TEST_CASE("lower: a link from a component to itself and a link with two multi-ends are rejected") {
  CHECK(lower_text("machine m { node { cpu a\n link a <-> a { bw = 1 GB/s } } }\n")->has(DiagKind::MisplacedDeclaration));
  CHECK(lower_text("machine m { node { cpu c[2]\n gpu g[2]\n link c[*] <-> g[*] { bw = 1 GB/s } } }\n")
            ->has(DiagKind::MisplacedDeclaration));
}

TEST_CASE("lower: type attributes are merged with component attributes, which win") {
  auto l = lower_text(R"(
type G : gpu { mem_bw = 900 GB/s; peak_fp64 = 7 Tflop/s }
machine m { node { gpu a : G
  gpu b : G { mem_bw = 1 TB/s } } }
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(l->value(l->component("a").attrs.at("mem_bw")) == approx(900e9));
  CHECK(l->value(l->component("b").attrs.at("mem_bw")) == approx(1e12));
  CHECK(l->value(l->component("b").attrs.at("peak_fp64")) == approx(7e12));
  CHECK(l->component("a").type_name == "G");
}

TEST_CASE("lower: the machine's node count defaults to 1") {
  auto l = lower_text("machine m { node { cpu a } }\n");
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(l->value(l->ir.topology.node_count) == 1.0);
  auto n = lower_text("machine m { nodes = 16\n node { cpu a } }\n");
  CHECK(n->value(n->ir.topology.node_count) == 16.0);
}

TEST_CASE("lower: an h2d copy routes from the nearest memory along the fewest links and sums latencies") {
  auto l = lower_text(R"(
machine m {
  node {
    memory mem { bw = 50 GB/s }
    cpu c
    switch sw
    gpu g
    link mem <-> c { bw = 50 GB/s; latency = 1 us }
    link c <-> sw { bw = 16 GB/s; latency = 2 us }
    link sw <-> g { bw = 12 GB/s; latency_fwd = 3 us; latency_rev = 30 us }
  }
}
app a { copy h2d 1 GB pinned }
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  REQUIRE(l->ir.root.children.size() == 1);
  const ir::Task& phase = l->ir.root.children[0];
  CHECK(phase.kind == ir::TaskKind::Phase);
  REQUIRE(phase.children.size() == 1);
  const ir::Task& copy = phase.children[0];
  CHECK(copy.name.find("(mem -> c -> sw -> g)") != std::string::npos);
  CHECK(copy.model.find("eq. 10") != std::string::npos);
  REQUIRE(copy.terms.size() == 2);
  CHECK(l->value(copy.terms[0].value) == approx(6e-6));  // 1 + 2 + 3 us
  CHECK(l->value(copy.terms[1].value) == approx(12e9));  // the slowest link
  CHECK(l->value(copy.value) == approx(6e-6 + 1e9 / 12e9).epsilon(1e-12));
}

TEST_CASE("lower: a d2h copy uses the reverse direction of each link") {
  auto l = lower_text(R"(
machine m {
  node {
    memory mem { bw = 50 GB/s }
    gpu g
    link mem <-> g { bw_fwd = 12 GB/s; bw_rev = 10 GB/s; latency_fwd = 3 us; latency_rev = 4 us }
  }
}
app a { copy d2h 1 GB pinned }
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  const ir::Task& copy = l->ir.root.children.at(0).children.at(0);
  CHECK(copy.name.find("g -> mem") != std::string::npos);
  CHECK(l->value(copy.value) == approx(4e-6 + 1e9 / 10e9).epsilon(1e-12));
}

TEST_CASE("lower: a copy with no route to host memory is NoPath") {
  auto none = lower_text("machine m { node { gpu g } }\napp a { copy h2d 1 B pinned }\n");
  CHECK(none->has(DiagKind::NoPath));
  auto one_way = lower_text(R"(
machine m { node { memory mem { bw = 1 GB/s }
  gpu g
  link g -> mem { bw = 1 GB/s } } }
app a { copy h2d 1 B pinned }
)");
  CHECK(one_way->has(DiagKind::NoPath));
}

TEST_CASE("lower: run on names a gpu, without `on` the first gpu is used") {
  auto l = lower_text(R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s }
machine m { node { cpu c
  gpu g[2] : G } }
app a {
  kernel k { bytes = 1 GB }
  run k
  run k on g[1]
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  REQUIRE(l->ir.root.children.size() == 2);
  CHECK(l->ir.root.children[0].children.at(0).name == "run k on g[0]");
  CHECK(l->ir.root.children[1].children.at(0).name == "run k on g[1]");
  auto bad = lower_text("machine m { node { cpu c } }\napp a { kernel k { bytes = 1 GB }\n run k on c }\n");
  CHECK(bad->has(DiagKind::UnknownComponent));
}

TEST_CASE("lower: a roofline kernel on a gpu without mem_bw is MissingAttribute with a note") {
  auto l = lower_text("machine m { node { gpu g } }\napp a { kernel k { bytes = 1 GB }\n run k }\n");
  const auto* d = l->find(DiagKind::MissingAttribute);
  REQUIRE(d);
  CHECK(d->message.find("mem_bw") != std::string::npos);
  CHECK(d->notes.size() == 1);
}

TEST_CASE("lower: the IR of a machine and app passes the verifier") {
  auto l = lower_text(R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s; d2d_latency = 2 us }
machine m { node { memory mem { bw = 20 GB/s }
  socket s[2] { cpu c
    gpu g[2] : G
    link c <-> g[*] { bw = 16 GB/s; latency = 1 us } }
  link mem <-> s[0].c, mem <-> s[1].c { bw = 20 GB/s } } }
app a {
  param n = 1 MiB
  kernel k { bytes = n; flops = 1 Gflop }
  iterate 3 { copy h2d n pageable on s[1].g[0]; run k on s[1].g[1]; copy d2d n; overhead 1 us }
}
)");
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  CHECK(ir::verify(l->ir).empty());
}

TEST_CASE("lower: a negative constant exponent on a quantity lowers") {
  auto run = [] {
    auto l = lower_text("param f = (2 s)^-1\n");
    int slot = l->ir.find_param("f");
    REQUIRE(slot >= 0);
    CHECK(l->value(l->ir.params[size_t(slot)].value) == approx(0.5));
    CHECK(l->ir.params[size_t(slot)].dim == support::Dim::count() / support::Dim::seconds());
  };
  CHECK_NOTHROW(run());
}

TEST_CASE("lower: a `for` loop's iterations take its place in the enclosing block, named with the variable's value") {
  const std::string text = R"(
type G : gpu { mem_bw = 100 GB/s; peak_fp64 = 1 Tflop/s }
machine m { node { cpu c
  gpu g[3] : G } }
app a {
  param n = 3
  kernel k { bytes = 1 GB }
  par {
    for i in 0 .. n - 1 { run k on g[i] }
  }
  seq {
    for i in 1 .. 2 {
      run k on g[i]
      overhead 1 us * i
    }
    for i in 5 .. 4 { run k on g[0] }
  }
  for i in 0 .. 1 { run k on g[2 - i] }
}
)";
  auto l = lower_text(text);
  INFO(l->all_messages());
  REQUIRE_FALSE(l->diags.has_errors());
  REQUIRE(l->ir.root.children.size() == 4);  // par, seq, and one phase per iteration of the top-level loop
  const auto& par = l->ir.root.children[0];
  REQUIRE(par.children.size() == 3);
  CHECK(par.children[2].name == "run k on g[2]");
  const auto& seq = l->ir.root.children[1];
  REQUIRE(seq.children.size() == 2);  // an empty loop adds nothing
  CHECK(seq.children[1].name == "for i = 2");
  REQUIRE(seq.children[1].children.size() == 2);
  CHECK(seq.children[1].children[1].name == "overhead 1 us * 2");
  CHECK(l->value(seq.children[1].children[1].value) == approx(2e-6));
  CHECK(l->ir.root.children[2].children.at(0).name == "run k on g[2]");
  CHECK(l->ir.root.children[3].children.at(0).name == "run k on g[1]");
  // With n bound to 2 the first loop makes two runs.
  auto two = lower_text(text, {{"n", 2}});
  REQUIRE_FALSE(two->diags.has_errors());
  CHECK(two->ir.root.children[0].children.size() == 2);
}
