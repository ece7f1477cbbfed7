// ast_builder.cpp: walks ANTLR contexts and produces AST nodes with byte-accurate source ranges.
#include "frontend/ast_builder.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <antlr4-runtime.h>
#include <fmt/format.h>

#include "GpmParser.h"
#include "support/limits.h"

namespace gpm::frontend {

using P = gpm_gen::GpmParser;

OffsetMap::OffsetMap(FileId file, const std::string& utf8) : file_(file) {
  for (uint32_t i = 0; i < utf8.size(); ++i)
    if ((static_cast<unsigned char>(utf8[i]) & 0xC0) != 0x80) byte_of_code_point_.push_back(i);
  byte_of_code_point_.push_back(uint32_t(utf8.size()));
}

SourceRange OffsetMap::token(antlr4::Token* token) const {
  return span(token->getType(), token->getStartIndex(), token->getStopIndex());
}

SourceRange OffsetMap::span(size_t type, size_t start, size_t stop) const {
  size_t last = byte_of_code_point_.size() - 1;
  if (type == antlr4::Token::EOF) {
    uint32_t end = byte_of_code_point_[last];
    return {file_, end, end};
  }
  start = std::min<size_t>(start, last);
  stop = std::min<size_t>(stop + 1, last);
  return {file_, byte_of_code_point_[start], byte_of_code_point_[std::max(start, stop)]};
}

SourceRange OffsetMap::rule(antlr4::ParserRuleContext* ctx) const {
  SourceRange begin = token(ctx->getStart());
  antlr4::Token* stop = ctx->getStop();
  if (!stop || stop->getTokenIndex() < ctx->getStart()->getTokenIndex()) return begin;
  return SourceRange::join(begin, token(stop));
}

const char* op_spelling(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Pow: return "^";
    case Op::Neg: return "-";
    case Op::Plus: return "+";
    case Op::Not: return "not";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::And: return "and";
    case Op::Or: return "or";
  }
  return "?";
}

ExprPtr literal_expr(const std::string& text, SourceRange range, bool has_unit, DiagnosticEngine* diags) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::Number;
  e->range = range;
  e->text = text;
  // The lexer guarantees a decimal number first (digits, optional fraction and exponent).
  char* number_end = nullptr;
  double value = std::strtod(text.c_str(), &number_end);
  size_t num_end = size_t(number_end - text.c_str());
  if (!std::isfinite(value)) {
    if (!diags) return nullptr;
    diags->error(DiagKind::SyntaxError, e->range, fmt::format("`{}` is too large for a number", text.substr(0, num_end)));
    value = 0;
  }
  e->value = value;
  e->literal_dim = Dim::count();
  if (has_unit) {
    size_t unit_start = text.find_first_not_of(" \t", num_end);
    std::string unit_text = text.substr(unit_start);
    auto unit = parse_unit(unit_text);
    if (!unit) {  // the lexer only accepts known words, so this is an internal inconsistency
      if (!diags) return nullptr;
      diags->error(DiagKind::UnknownUnit, e->range, fmt::format("unknown unit `{}`", unit_text));
      return e;
    }
    e->value = unit->to_base(value);
    e->literal_dim = unit->dim;
  }
  return e;
}

bool check_flow_entries(size_t count, SourceRange where, DiagnosticEngine& diags) {
  uint64_t limit = limits().flows_per_block;
  if (count <= limit) return true;
  diags.error(DiagKind::ModelTooLarge, where,
              fmt::format("this `flows` block has more than {} flows, the limit of one block (--max-flows)", limit));
  return false;
}

struct AstBuilder::Impl {
  const OffsetMap& map;
  DiagnosticEngine& diags;
  PrebuiltFlows* prebuilt;

  SourceRange range(antlr4::ParserRuleContext* ctx) const { return map.rule(ctx); }
  SourceRange range(antlr4::tree::TerminalNode* node) const { return map.token(node->getSymbol()); }
  SourceRange range(antlr4::Token* token) const { return map.token(token); }

  static ExprPtr make(ExprKind kind, SourceRange r) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->range = r;
    return e;
  }

  // A literal: `16 GB/s`, `4KiB`, `100`, `1e-3 s`.
  ExprPtr literal(antlr4::Token* token, bool has_unit) {
    return literal_expr(token->getText(), range(token), has_unit, &diags);
  }

  ExprPtr primary(P::PrimaryContext* ctx) {
    if (auto* q = dynamic_cast<P::QuantityLitContext*>(ctx)) return literal(q->QUANTITY()->getSymbol(), true);
    if (auto* n = dynamic_cast<P::NumberLitContext*>(ctx)) return literal(n->NUMBER()->getSymbol(), false);
    if (dynamic_cast<P::BoolLitContext*>(ctx)) {
      auto e = make(ExprKind::Bool, range(ctx));
      e->value = ctx->getText() == "true" ? 1 : 0;
      return e;
    }
    if (auto* name = dynamic_cast<P::NameRefContext*>(ctx)) {
      auto e = make(ExprKind::Name, range(ctx));
      e->name = name->IDENT()->getText();
      e->name_range = e->range;
      return e;
    }
    if (auto* call = dynamic_cast<P::CallExprContext*>(ctx)) {
      auto e = make(ExprKind::Call, range(ctx));
      e->name = call->IDENT()->getText();
      e->name_range = range(call->IDENT());
      for (auto* arg : call->arg()) {
        e->arg_names.push_back(arg->IDENT() ? arg->IDENT()->getText() : std::string());
        e->operands.push_back(expr(arg->expr()));
      }
      return e;
    }
    auto* paren = dynamic_cast<P::ParenExprContext*>(ctx);
    auto e = expr(paren->expr());
    e->parenthesized = true;
    e->range = range(ctx);
    return e;
  }

  static Op op_of(const std::string& s) {
    if (s == "+") return Op::Add;
    if (s == "-") return Op::Sub;
    if (s == "*") return Op::Mul;
    if (s == "/") return Op::Div;
    if (s == "<") return Op::Lt;
    if (s == "<=") return Op::Le;
    if (s == ">") return Op::Gt;
    if (s == ">=") return Op::Ge;
    if (s == "==") return Op::Eq;
    return Op::Ne;
  }

  // Flattens a left-associative run of the same precedence level into one Chain node, without
  // recursion along the chain (a file may hold a sum of millions of terms).
  template <class Ctx>
  ExprPtr chain(Ctx* ctx, std::function<Op(Ctx*)> op_at) {
    std::vector<std::pair<Op, P::ExprContext*>> rest;
    P::ExprContext* cur = ctx;
    while (auto* c = dynamic_cast<Ctx*>(cur)) {
      rest.emplace_back(op_at(c), c->expr(1));
      cur = c->expr(0);
    }
    auto e = make(ExprKind::Chain, range(ctx));
    e->operands.push_back(expr(cur));
    for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
      e->chain_ops.push_back(it->first);
      e->operands.push_back(expr(it->second));
    }
    return e;
  }

  ExprPtr expr(P::ExprContext* ctx) {
    if (auto* p = dynamic_cast<P::PrimaryExprContext*>(ctx)) return primary(p->primary());
    if (auto* a = dynamic_cast<P::AddExprContext*>(ctx))
      return chain<P::AddExprContext>(a, [](auto* c) { return op_of(c->op->getText()); });
    if (auto* m = dynamic_cast<P::MulExprContext*>(ctx))
      return chain<P::MulExprContext>(m, [](auto* c) { return op_of(c->op->getText()); });
    if (auto* a = dynamic_cast<P::AndExprContext*>(ctx))
      return chain<P::AndExprContext>(a, [](auto*) { return Op::And; });
    if (auto* o = dynamic_cast<P::OrExprContext*>(ctx))
      return chain<P::OrExprContext>(o, [](auto*) { return Op::Or; });
    if (auto* u = dynamic_cast<P::UnaryExprContext*>(ctx)) {
      auto e = make(ExprKind::Unary, range(ctx));
      e->op = u->op->getText() == "-" ? Op::Neg : Op::Plus;
      e->operands.push_back(expr(u->expr()));
      return e;
    }
    if (auto* n = dynamic_cast<P::NotExprContext*>(ctx)) {
      auto e = make(ExprKind::Unary, range(ctx));
      e->op = Op::Not;
      e->operands.push_back(expr(n->expr()));
      return e;
    }
    if (auto* p = dynamic_cast<P::PowExprContext*>(ctx)) {
      if (dynamic_cast<P::PowExprContext*>(p->expr(0))) {
        diags.error(DiagKind::ChainedPower, range(ctx),
                    "`a ^ b ^ c` is ambiguous; write `(a ^ b) ^ c` or `a ^ (b ^ c)`");
        return make(ExprKind::Number, range(ctx));
      }
      return binary(Op::Pow, p->expr(0), p->expr(1), range(ctx));
    }
    if (auto* c = dynamic_cast<P::CmpExprContext*>(ctx)) {
      if (dynamic_cast<P::CmpExprContext*>(c->expr(0))) {
        diags.error(DiagKind::ChainedComparison, range(ctx),
                    "comparisons cannot be chained; write `a < b and b < c`");
        return make(ExprKind::Bool, range(ctx));
      }
      return binary(op_of(c->op->getText()), c->expr(0), c->expr(1), range(ctx));
    }
    auto* i = dynamic_cast<P::IfExprContext*>(ctx);
    auto e = make(ExprKind::If, range(ctx));
    for (int k = 0; k < 3; ++k) e->operands.push_back(expr(i->expr(k)));
    return e;
  }

  ExprPtr binary(Op op, P::ExprContext* lhs, P::ExprContext* rhs, SourceRange r) {
    auto e = make(ExprKind::Binary, r);
    e->op = op;
    e->operands.push_back(expr(lhs));
    e->operands.push_back(expr(rhs));
    return e;
  }

  DimTypeSyntax dim_type(P::DimTypeContext* ctx) {
    DimTypeSyntax out{ctx->getText(), range(ctx), Dim::count()};
    Dim dim;
    bool ok = true;
    auto factors = ctx->dimFactor();
    for (size_t i = 0; i < factors.size(); ++i) {
      auto f = dim_factor(factors[i]);
      if (!f) {
        ok = false;
        continue;
      }
      // Operators alternate with factors among the children: factor op factor op factor.
      bool divide = i > 0 && ctx->children[2 * i - 1]->getText() == "/";
      if (divide ? !dim.can_div(*f) : !dim.can_mul(*f)) {
        diags.error(DiagKind::InvalidDimension, range(ctx),
                    fmt::format("dimension exponents are limited to {}", Dim::kMaxExponent));
        ok = false;
        continue;
      }
      dim = divide ? dim / *f : dim * *f;
    }
    out.dim = ok ? std::optional<Dim>(dim) : std::nullopt;
    return out;
  }

  std::optional<Dim> dim_factor(P::DimFactorContext* ctx) {
    if (ctx->dimType()) return dim_type(ctx->dimType()).dim;
    if (!ctx->IDENT()) {
      if (ctx->NUMBER()->getText() == "1") return Dim::count();
      diags.error(DiagKind::InvalidDimension, range(ctx), "only `1` may stand for a plain count in a dimension");
      return std::nullopt;
    }
    auto dim = dimension_named(ctx->IDENT()->getText());
    if (!dim) {
      diags.error(DiagKind::InvalidDimension, range(ctx->IDENT()),
                  fmt::format("`{}` is not a dimension; use time, bytes, flops or count and `*`, `/`, `^`",
                              ctx->IDENT()->getText()));
      return std::nullopt;
    }
    if (!ctx->NUMBER()) return dim;
    int k = 0;
    std::string exp = ctx->NUMBER()->getText();
    auto [ptr, ec] = std::from_chars(exp.data(), exp.data() + exp.size(), k);
    if (ec != std::errc() || ptr != exp.data() + exp.size() || k < 1 || k > Dim::kMaxExponent) {
      diags.error(DiagKind::InvalidExponent, range(ctx->NUMBER()),
                  fmt::format("a dimension exponent must be an integer from 1 to {}", Dim::kMaxExponent));
      return std::nullopt;
    }
    return dim->pow(k);
  }

  std::vector<Attr> attrs(P::AttrBlockContext* ctx) {
    std::vector<Attr> out;
    if (!ctx) return out;
    for (auto* a : ctx->attr()) out.push_back(attr(a));
    return out;
  }
  Attr attr(P::AttrContext* a) { return Attr{a->IDENT()->getText(), range(a->IDENT()), expr(a->expr())}; }

  CompRef comp_ref(P::CompRefContext* ctx) {
    CompRef ref;
    ref.range = range(ctx);
    for (auto* part : ctx->refPart()) {
      RefPart p;
      p.name = part->IDENT() ? part->IDENT()->getText() : std::string("node");
      p.range = range(part);
      p.star = part->star != nullptr;
      if (part->expr()) p.index = expr(part->expr());
      ref.parts.push_back(std::move(p));
    }
    return ref;
  }

  template <class D>
  std::unique_ptr<D> decl(antlr4::ParserRuleContext* ctx, antlr4::tree::TerminalNode* name) {
    auto d = std::make_unique<D>();
    d->range = range(ctx);
    d->file = map.file();
    if (name) {
      d->name = name->getText();
      d->name_range = range(name);
    }
    return d;
  }

  void params(P::ParamDeclContext* ctx, std::vector<std::unique_ptr<ParamDecl>>& out) {
    for (auto* item : ctx->paramItem()) {
      auto p = decl<ParamDecl>(item, item->IDENT());
      p->value = expr(item->expr(0));
      if (item->expr().size() == 3) {
        p->range_lo = expr(item->expr(1));
        p->range_hi = expr(item->expr(2));
      }
      if (auto* set = item->wordSet())
        for (auto* word : set->IDENT()) {
          p->words.push_back(word->getText());
          p->word_ranges.push_back(range(word));
        }
      out.push_back(std::move(p));
    }
  }

  std::unique_ptr<LetDecl> let(P::LetDeclContext* ctx) {
    auto l = decl<LetDecl>(ctx, ctx->IDENT());
    l->value = expr(ctx->expr());
    return l;
  }

  std::vector<NodeItem> node_items(const std::vector<P::NodeItemContext*>& items) {
    std::vector<NodeItem> out;
    for (auto* item : items) {
      NodeItem n;
      if (auto* c = item->componentDecl()) {
        n.kind = NodeItem::Kind::Component;
        auto comp = std::make_unique<ComponentDecl>();
        comp->kind = c->kind->getText();
        comp->kind_range = range(c->kind);
        comp->name = c->IDENT(1)->getText();
        comp->name_range = range(c->IDENT(1));
        if (c->arraySuffix()) comp->count = expr(c->arraySuffix()->expr());
        if (c->typeName) {
          comp->type_name = c->typeName->getText();
          comp->type_range = range(c->typeName);
        }
        comp->attrs = attrs(c->attrBlock());
        comp->range = range(c);
        n.component = std::move(comp);
      } else if (auto* s = item->socketDecl()) {
        n.kind = NodeItem::Kind::Socket;
        auto sock = std::make_unique<SocketDecl>();
        sock->name = s->IDENT()->getText();
        sock->name_range = range(s->IDENT());
        if (s->arraySuffix()) sock->count = expr(s->arraySuffix()->expr());
        sock->items = node_items(s->nodeItem());
        sock->range = range(s);
        n.socket = std::move(sock);
      } else if (auto* l = item->linkDecl()) {
        n.kind = NodeItem::Kind::Link;
        auto link = std::make_unique<LinkDecl>();
        for (auto* pair : l->linkPair())
          link->pairs.push_back(
              {comp_ref(pair->compRef(0)), comp_ref(pair->compRef(1)), pair->arrow->getText() == "<->", range(pair)});
        if (l->typeName) {
          link->type_name = l->typeName->getText();
          link->type_range = range(l->typeName);
        }
        link->attrs = attrs(l->attrBlock());
        link->range = range(l);
        n.link = std::move(link);
      } else {
        n.kind = NodeItem::Kind::Attr;
        n.attr = std::make_unique<Attr>(attr(item->attr()));
      }
      out.push_back(std::move(n));
    }
    return out;
  }

  std::unique_ptr<MachineDecl> machine(P::MachineDeclContext* ctx) {
    auto m = decl<MachineDecl>(ctx, ctx->IDENT());
    for (auto* item : ctx->machineItem()) {
      if (item->paramDecl()) params(item->paramDecl(), m->params);
      else if (item->letDecl()) m->lets.push_back(let(item->letDecl()));
      else if (item->attr()) m->attrs.push_back(attr(item->attr()));
      else if (auto* a = item->arbitrationDecl()) {
        ArbitrationDecl arb;
        arb.kind = a->kind->getText();
        arb.kind_range = range(a->kind);
        if (a->linkType) {
          arb.link_type = a->linkType->getText();
          arb.link_type_range = range(a->linkType);
        }
        if (a->attrBlock()) arb.attrs = attrs(a->attrBlock());
        arb.range = range(a);
        m->arbitrations.push_back(std::move(arb));
      } else if (auto* mpi = item->mpiDecl()) {
        auto section = std::make_unique<MpiDecl>();
        section->range = range(mpi);
        for (auto* it : mpi->mpiItem()) {
          if (it->attr()) {
            section->attrs.push_back(attr(it->attr()));
            continue;
          }
          auto* f = it->mpiFit();
          MpiFit fit;
          fit.locality = f->locality->getText();
          fit.locality_range = range(f->locality);
          fit.protocol = f->protocol->getText();
          fit.protocol_range = range(f->protocol);
          fit.model = f->model->getText();
          fit.model_range = range(f->model);
          fit.range = range(f);
          for (auto* e : f->expr()) fit.args.push_back(expr(e));
          section->fits.push_back(std::move(fit));
        }
        m->mpi.push_back(std::move(section));
      } else if (auto* cl = item->clusterDecl()) {
        auto section = std::make_unique<NetworkDecl>();
        section->range = range(cl);
        section->attrs = attrs(cl->attrBlock());
        m->clusters.push_back(std::move(section));
      } else if (auto* net = item->networkDecl()) {
        auto section = std::make_unique<NetworkDecl>();
        section->range = range(net);
        section->attrs = attrs(net->attrBlock());
        m->networks.push_back(std::move(section));
      } else {
        auto node = std::make_unique<NodeDecl>();
        node->items = node_items(item->nodeDecl()->nodeItem());
        node->range = range(item->nodeDecl());
        m->nodes.push_back(std::move(node));
      }
    }
    return m;
  }

  // A loop's variable: a let with no value, a count (sema), bound to each value in turn by the lowering.
  std::unique_ptr<LetDecl> loop_var(antlr4::ParserRuleContext* loop, antlr4::tree::TerminalNode* name) {
    auto v = decl<LetDecl>(loop, name);
    v->range = range(name);
    return v;
  }

  FlowItem flow_entry(P::FlowEntryContext* entry) {
    FlowItem f;
    if (auto* loop = entry->flowLoop()) {
      f.loop_var = loop_var(loop, loop->IDENT());
      f.loop_lo = expr(loop->lo);
      f.loop_hi = expr(loop->hi);
      for (auto* inner : loop->flowEntry()) f.body.push_back(flow_entry(inner));
      f.range = range(loop);
      return f;
    }
    if (auto* pat = entry->flowPattern()) {
      f.pattern = pat->pattern->getText();
      f.pattern_range = range(pat->pattern);
      if (pat->patternArg) f.pattern_arg = expr(pat->patternArg);
      f.members = comp_ref(pat->members);
      f.bytes = expr(pat->size);
      if (pat->start) f.start = expr(pat->start);
      f.range = range(pat);
      return f;
    }
    auto* item = entry->flowItem();
    if (item->label) {
      f.label = item->label->getText();
      f.label_range = range(item->label);
    }
    f.src = comp_ref(item->src);
    f.dst = comp_ref(item->dst);
    f.bytes = expr(item->expr(0));
    if (item->start) f.start = expr(item->start);
    if (item->after) {
      f.after = item->after->getText();
      f.after_range = range(item->after);
    }
    f.range = range(item);
    return f;
  }

  std::unique_ptr<Stmt> stmt(P::StmtContext* ctx) {
    auto s = std::make_unique<Stmt>();
    s->range = range(ctx);
    auto body = [&](P::BlockContext* block) {
      for (auto* child : block->stmt()) s->body.push_back(stmt(child));
    };
    if (auto* r = dynamic_cast<P::RunStmtContext*>(ctx)) {
      s->kind = StmtKind::Run;
      s->name = r->IDENT()->getText();
      s->name_range = range(r->IDENT());
      if (r->compRef()) s->on = comp_ref(r->compRef());
      if (r->attrBlock()) s->attrs = attrs(r->attrBlock());
    } else if (auto* pc = dynamic_cast<P::PeerCopyStmtContext*>(ctx)) {
      s->kind = StmtKind::Copy;
      s->direction = pc->direction->getText();
      s->direction_range = range(pc->direction);
      s->expr = expr(pc->expr());
      s->peer_from = comp_ref(pc->src);
      s->peer_to = comp_ref(pc->dst);
      for (antlr4::Token* word : {pc->fromWord, pc->toWord})
        if (s->peer_word.empty() && word->getText() != (word == pc->fromWord ? "from" : "to")) {
          s->peer_word = word->getText();
          s->peer_word_range = range(word);
        }
    } else if (auto* c = dynamic_cast<P::CopyStmtContext*>(ctx)) {
      s->kind = StmtKind::Copy;
      s->direction = c->direction->getText();
      s->direction_range = range(c->direction);
      if (c->hostKind) {
        s->host_kind = c->hostKind->getText();
        s->host_kind_range = range(c->hostKind);
      }
      s->expr = expr(c->expr());
      for (auto* ref : c->compRef())
        if (ref != c->mem) s->on = comp_ref(ref);
      if (c->mem) {
        s->host_memory = comp_ref(c->mem);
        s->host_memory_word = c->memWord->getText();
        s->host_memory_word_range = range(c->memWord);
      }
      if (c->attrBlock()) s->attrs = attrs(c->attrBlock());
    } else if (auto* q = dynamic_cast<P::SeqStmtContext*>(ctx)) {
      s->kind = StmtKind::Seq;
      body(q->block());
    } else if (auto* p = dynamic_cast<P::ParStmtContext*>(ctx)) {
      s->kind = StmtKind::Par;
      body(p->block());
    } else if (auto* i = dynamic_cast<P::IterateStmtContext*>(ctx)) {
      s->kind = StmtKind::Iterate;
      s->expr = expr(i->expr());
      body(i->block());
    } else if (auto* ph = dynamic_cast<P::PhaseStmtContext*>(ctx)) {
      s->kind = StmtKind::Phase;
      s->name = ph->IDENT()->getText();
      s->name_range = range(ph->IDENT());
      body(ph->block());
    } else if (auto* fl = dynamic_cast<P::FlowsStmtContext*>(ctx)) {
      s->kind = StmtKind::Flows;
      s->unordered = fl->unordered != nullptr;
      // The flow lines built before the parse go back among the entries the parser saw, in source order.
      PrebuiltFlows::Block* built = nullptr;
      if (prebuilt)
        if (auto it = prebuilt->by_block.find(ctx->getStart()->getStartIndex()); it != prebuilt->by_block.end())
          built = &it->second;
      size_t next = 0;
      auto built_before = [&](size_t at) {
        for (; built && next < built->items.size() && built->starts[next] < at; ++next)
          s->flows.push_back(std::move(built->items[next]));
      };
      auto entries = fl->flowEntry();
      size_t single = built ? built->items.size() : 0;  // one flow each (patterns, loops: counted by the lowering)
      for (auto* entry : entries) single += entry->flowItem() != nullptr;
      if (!check_flow_entries(single, range(ctx->getStart()), diags)) return s;
      if (built && entries.empty()) {  // only plain lines: the block's items as they were built
        s->flows = std::move(built->items);
        return s;
      }
      s->flows.reserve(entries.size() + (built ? built->items.size() : 0));
      for (auto* entry : entries) {
        built_before(entry->getStart()->getStartIndex());
        s->flows.push_back(flow_entry(entry));
      }
      built_before(SIZE_MAX);
    } else if (auto* loop = dynamic_cast<P::ForStmtContext*>(ctx)) {
      s->kind = StmtKind::For;
      s->loop_var = loop_var(loop, loop->IDENT());
      s->expr = expr(loop->lo);
      s->expr_hi = expr(loop->hi);
      body(loop->block());
    } else if (auto* mp = dynamic_cast<P::MpiStmtContext*>(ctx)) {
      s->kind = StmtKind::Mpi;
      s->name = mp->op->getText();
      s->name_range = range(mp->op);
      if (mp->attrBlock()) s->attrs = attrs(mp->attrBlock());
    } else if (auto* of = dynamic_cast<P::OffloadStmtContext*>(ctx)) {
      s->kind = StmtKind::Offload;
      s->name = of->IDENT()->getText();
      s->name_range = range(of->IDENT());
      if (of->compRef()) s->on = comp_ref(of->compRef());
      for (auto* a : of->offloadBlock()->attr()) s->attrs.push_back(attr(a));
      for (auto* w : of->offloadBlock()->offloadWait()) {
        OffloadWait wait;
        wait.op = w->op->getText();
        wait.op_range = range(w->op);
        wait.range = range(w);
        for (auto* t : w->offloadWaitTarget())
          wait.targets.push_back({t->op->getText(), t->which->getText(), range(t->op), range(t->which)});
        s->waits.push_back(std::move(wait));
      }
    } else {
      auto* o = dynamic_cast<P::OverheadStmtContext*>(ctx);
      s->kind = StmtKind::Overhead;
      s->expr = expr(o->expr());
    }
    return s;
  }

  std::unique_ptr<AppDecl> app(P::AppDeclContext* ctx) {
    auto a = decl<AppDecl>(ctx, ctx->IDENT());
    for (auto* item : ctx->appItem()) {
      if (item->paramDecl()) params(item->paramDecl(), a->params);
      else if (item->letDecl()) a->lets.push_back(let(item->letDecl()));
      else if (auto* d = item->dataDecl()) {
        auto data = std::make_unique<DataDecl>();
        for (auto* name : d->dataName()) data->names.emplace_back(name->getText(), range(name));
        data->placement = d->placement->getText();
        data->placement_range = range(d->placement);
        if (d->hostKind) {
          data->host_kind = d->hostKind->getText();
          data->host_kind_range = range(d->hostKind);
        }
        data->size = expr(d->expr());
        data->range = range(d);
        a->data.push_back(std::move(data));
      } else if (auto* k = item->kernelDecl()) {
        auto kernel = std::make_unique<KernelDecl>();
        kernel->name = k->IDENT()->getText();
        kernel->name_range = range(k->IDENT());
        if (k->compRef()) kernel->on = comp_ref(k->compRef());
        kernel->attrs = attrs(k->attrBlock());
        kernel->range = range(k);
        a->kernels.push_back(std::move(kernel));
      } else {
        a->body.push_back(stmt(item->stmt()));
      }
    }
    return a;
  }

  void top(P::TopDeclContext* ctx, Module& module) {
    if (auto* i = ctx->importDecl()) {
      auto d = decl<ImportDecl>(i, nullptr);
      std::string quoted = i->STRING()->getText();
      d->path = quoted.substr(1, quoted.size() - 2);
      d->name_range = range(i->STRING());
      module.decls.push_back(std::move(d));
    } else if (auto* p = ctx->paramDecl()) {
      std::vector<std::unique_ptr<ParamDecl>> items;
      params(p, items);
      for (auto& item : items) module.decls.push_back(std::move(item));
    } else if (auto* l = ctx->letDecl()) {
      module.decls.push_back(let(l));
    } else if (auto* f = ctx->fnDecl()) {
      auto fn = decl<FnDecl>(f, f->IDENT());
      for (auto* param : f->fnParam())
        fn->params.push_back({param->IDENT()->getText(), range(param->IDENT()), dim_type(param->dimType())});
      fn->result = dim_type(f->dimType());
      fn->body = expr(f->expr());
      module.decls.push_back(std::move(fn));
    } else if (auto* t = ctx->typeDecl()) {
      auto type = decl<TypeDecl>(t, t->IDENT(0));
      type->component_kind = t->kind->getText();
      type->kind_range = range(t->kind);
      type->attrs = attrs(t->attrBlock());
      module.decls.push_back(std::move(type));
    } else if (auto* m = ctx->machineDecl()) {
      module.decls.push_back(machine(m));
    } else {
      module.decls.push_back(app(ctx->appDecl()));
    }
  }
};

std::unique_ptr<Module> AstBuilder::build_file(antlr4::ParserRuleContext* file_ctx, const std::string& path) {
  Impl impl{map_, diags_, prebuilt_};
  auto module = std::make_unique<Module>();
  module->file = map_.file();
  module->path = path;
  for (auto* top : static_cast<P::FileContext*>(file_ctx)->topDecl()) impl.top(top, *module);
  return module;
}

ExprPtr AstBuilder::build_standalone_expr(antlr4::ParserRuleContext* ctx) {
  Impl impl{map_, diags_, nullptr};
  return impl.expr(static_cast<P::StandaloneExprContext*>(ctx)->expr());
}

}  // namespace gpm::frontend
