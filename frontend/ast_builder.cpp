// ast_builder.cpp: walks ANTLR contexts and produces AST nodes with byte-accurate source ranges: declarations,
// statements and flows (expressions: expr_builder.cpp).
#include "frontend/ast_builder.h"

#include <antlr4-runtime.h>
#include <fmt/format.h>

#include "frontend/expr_builder.h"
#include "support/limits.h"

namespace gpm::frontend {

bool check_flow_entries(size_t count, SourceRange where, DiagnosticEngine& diags) {
  uint64_t limit = limits().flows_per_block;
  if (count <= limit) return true;
  diags.error(DiagKind::ModelTooLarge, where,
              fmt::format("this `flows` block has more than {} flows, the limit of one block (--max-flows)", limit));
  return false;
}

struct AstBuilder::Impl : ExprBuilder {
  PrebuiltFlows* prebuilt;

  std::vector<Attr> attrs(P::AttrBlockContext* ctx) {
    std::vector<Attr> out;
    if (!ctx) return out;
    for (auto* a : ctx->attr()) out.push_back(attr(a));
    return out;
  }
  Attr attr(P::AttrContext* a) { return Attr{a->name->getText(), range(a->name), expr(a->expr())}; }

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
    } else if (auto* t = ctx->tableDecl()) {
      auto d = decl<TableDecl>(t, t->IDENT());
      std::string quoted = t->STRING()->getText();
      d->path = quoted.substr(1, quoted.size() - 2);
      d->path_range = range(t->STRING());
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
  Impl impl{{map_, diags_}, prebuilt_};
  auto module = std::make_unique<Module>();
  module->file = map_.file();
  module->path = path;
  for (auto* top : static_cast<P::FileContext*>(file_ctx)->topDecl()) impl.top(top, *module);
  return module;
}

ExprPtr AstBuilder::build_standalone_expr(antlr4::ParserRuleContext* ctx) {
  Impl impl{{map_, diags_}, nullptr};
  return impl.expr(static_cast<P::StandaloneExprContext*>(ctx)->expr());
}

}  // namespace gpm::frontend
