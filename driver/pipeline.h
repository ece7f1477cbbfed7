// pipeline.h: the whole compilation pipeline in one place: load -> parse -> sema -> lower -> verify -> evaluate.
#pragma once
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/interp/interpreter.h"
#include "support/diagnostics.h"
#include "frontend/loader.h"
#include "frontend/sema.h"
#include "ir/ir.h"
#include "engines/mpi/openmpi_rules.h"
#include "lower/lower.h"

namespace gpm::driver {

struct Options {
  std::vector<std::string> include_dirs;
  std::string stdlib_dir;  // empty: the standard library found next to the sources or installed
  std::string strategy;    // non-empty: every `offload` uses this strategy (`--strategy`, `--compare strategy`)
  bool warnings_as_errors = false;  // --Werror
  std::string mpi_rules;            // --mpi-rules: a user's Open MPI dynamic rules file, read at the first lowering
  // Parse only the standard-library declarations the model refers to (frontend::Loader::complete_prelude): the names
  // of its files, of the lowering's own calls (lower::stdlib_functions) and `referenced_names` (the words of the
  // command line, which --set and --vary values may use). A check that fails is run again on the whole prelude,
  // so that diagnostics and suggestions are those of a whole load. For a session that loads files once (one check or
  // one compile): files loaded later see only the declarations parsed the first time.
  bool lazy_prelude = false;
  std::vector<std::string> referenced_names;
};

// `--set name=value`, as typed; `flag` names where it came from in messages (a sweep's first --vary values bind as
// settings too).
struct Setting {
  std::string name;
  std::string value;
  std::string flag = "--set";
};

// A compiled model: IR plus the parameter values the command line bound.
struct Compiled {
  ir::Module module;
  backend::SlotValues bound;
  std::vector<const frontend::Decl*> owners;              // the machine and the app
  std::map<const frontend::ParamDecl*, int32_t> slots;    // the slot of each lowered parameter
  lower::ParamBindings bindings;                             // the --set values it was lowered with
  lower::KeywordSettings keywords;                           // the word-valued --set settings
  std::set<const frontend::ParamDecl*> varied;               // bindings that a sweep's --vary gave, not --set
};

class Session {
 public:
  explicit Session(Options options);
  // A session whose prelude is `prelude`, parsed once by another session (parsed_prelude): for a process that checks
  // many inputs one after another (the fuzz targets). Sessions sharing one must not run at once.
  Session(Options options, const frontend::ParsedPrelude& prelude);
  // Loads and parses the prelude and hands it out for other sessions; null, with diagnostics, when it fails.
  std::optional<frontend::ParsedPrelude> parsed_prelude();
  support::SourceManager& sources() { return sources_; }
  const support::SourceManager& sources() const { return sources_; }
  support::DiagnosticEngine& diags() { return diags_; }

  // `gpmc check`: parses, checks and evaluates the constant parts (params, machines) of each file.
  bool check(const std::vector<std::string>& files);
  // `gpmc dump-ast`: the parsed module (null on errors).
  const frontend::Module* parse(const std::string& file);
  // `gpmc eval` and `gpmc dump-ir`: compiles MACHINE and APP with --set values. Called again, it reads and checks
  // the files anew: a model compiled before must no longer be used.
  std::unique_ptr<Compiled> compile(const std::string& machine_file, const std::string& app_file,
                                    const std::vector<Setting>& settings);
  // `gpmc sweep` over a shape parameter: `base` lowered again with the given parameter slots bound to other
  // values (the other --set values kept); null, with diagnostics, when that lowering fails.
  // `keywords` replace base's word-valued settings of the same names (a sweep over `comm_model` or `transport`).
  std::unique_ptr<Compiled> compile_variant(const Compiled& base, const std::vector<std::pair<int32_t, double>>& values,
                                            const lower::KeywordSettings& keywords = {});
  // The parameter declaration of a slot of a compiled model (null when the slot has none).
  static const frontend::ParamDecl* param_of_slot(const Compiled& compiled, int32_t slot);
  // `gpmc sweep --vary NAME=...`: the slot of the parameter NAME refers to, found as --set finds it (`flag`
  // names the option in messages), or -1 with a diagnostic.
  int32_t find_slot(const Compiled& compiled, const std::string& flag, const std::string& name);
  // The parameter of the compiled model that NAME refers to, found as --set finds it, or null with a diagnostic
  // at `where` (a CSV header cell; no location when invalid). `flag` prefixes the message.
  const frontend::ParamDecl* find_param(const Compiled& compiled, const std::string& flag, const std::string& name,
                                        support::SourceRange where);
  // `gpmc validate`: `base` lowered again with more parameter values and word settings (a measured point that
  // sets an array size or a model choice), reusing the program already loaded and checked.
  std::unique_ptr<Compiled> recompile(const Compiled& base, const lower::ParamBindings& values,
                                      const lower::KeywordSettings& keywords);
  // The value of `text`, a constant of dimension `dim` (units included, checked as --set values are);
  // `label` ("--vary bytes") prefixes messages and names the text's source; `what` is the quantity.
  bool constant_value(const std::string& label, const std::string& what, support::Dim dim, const std::string& text,
                      double& value);
  // A --set or --vary value for `param`: a word of a word parameter (its index in `index`), or, for a number
  // parameter, anything but a bare word (left for constant_value); false with a diagnostic otherwise.
  bool word_or_number(const std::string& label, const frontend::ParamDecl& param, const std::string& text,
                      double& index);
  // The same for text already held as `file` (a fragment of a CSV file, so that messages point into it).
  bool constant_value(support::FileId file, const std::string& label, const std::string& what, support::Dim dim,
                      double& value);
  // A file the driver writes rather than reads (Loader::add_generated); compile() may then name it.
  void add_generated_file(const std::string& path, std::string text) { loader_.add_generated(path, std::move(text)); }
  // Evaluates a compiled model with the reference interpreter.
  bool evaluate(const Compiled& compiled, backend::Evaluation& out);
  // What check() loaded and checked, for tools that look into the program (the language server): every module
  // (imports before importers) and the checked program (complete only when check() succeeded).
  std::vector<frontend::Module*> modules() const { return loader_.modules(); }
  const frontend::CheckedProgram& program() const { return sema_->program(); }

 private:
  std::unique_ptr<Compiled> compile_checked(const std::string& machine_file, const std::string& app_file,
                                            const std::vector<Setting>& settings);
  bool check_checked(const std::vector<std::string>& files);
  std::unique_ptr<Compiled> lower_checked(const frontend::Decl* machine, const frontend::Decl* app,
                                          lower::ParamBindings bindings, lower::KeywordSettings keywords,
                                          std::set<const frontend::ParamDecl*> varied = {});
  bool load_and_check(const std::vector<std::string>& files, std::vector<const frontend::Module*>& roots);
  bool load_and_check_once(const std::vector<std::string>& files, std::vector<const frontend::Module*>& roots,
                           bool lazy);
  const frontend::ParamDecl* find_setting_param(const std::string& flag, const std::string& full_name,
                                                const std::vector<const frontend::Decl*>& owners,
                                                support::SourceRange where = {});
  bool split_keyword_settings(const std::vector<Setting>& settings, std::vector<Setting>& values,
                              lower::KeywordSettings& keywords);
  bool bind_settings(const std::vector<Setting>& settings, const std::vector<const frontend::Decl*>& owners,
                     lower::ParamBindings& bindings, std::set<const frontend::ParamDecl*>* varied = nullptr);
  // Reads and checks the --mpi-rules file once (InvalidRulesFile, located in it).
  bool load_openmpi_rules();

  Options options_;
  std::shared_ptr<const mpi::OpenmpiRules> openmpi_rules_;
  support::FileId openmpi_rules_file_ = support::kNoFile;
  support::SourceManager sources_;
  support::DiagnosticEngine diags_;
  frontend::Loader loader_;
  std::unique_ptr<frontend::Sema> sema_;
  bool compiled_before_ = false;  // compile() ran: a second call loads the files again (what it returns replaces it)
};

// The words a word-valued setting (`comm_model`, `transport`: a keyword --set takes) accepts, or nothing when
// `name` is not such a setting.
std::optional<std::vector<std::string>> keyword_setting_words(std::string_view name);

// The standard library folder: $GPMC_STDLIB, else <folder of the executable>/../share/gpmc/stdlib when it exists
// (installed), else the source tree's stdlib/ when it exists (the build tree); empty when none is found (the loader
// then reports it).
std::string default_stdlib_dir();

}  // namespace gpm::driver
