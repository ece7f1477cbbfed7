// completion.cpp: `gpmc completion bash|zsh`: the shell completion scripts, written by walking the CLI11 definition
// (subcommands, options, value sets, positionals), so that a new subcommand or option is completed without an edit.
#include "tools/gpmc/completion.h"

#include <fmt/format.h>

#include <vector>

namespace gpm::cli {

namespace {

struct OptionSpec {
  std::vector<std::string> names;    // --format, -I
  std::string description;
  bool takes_value = false;
  bool repeatable = false;
  std::vector<std::string> choices;  // the values of a CLI::IsMember check; empty: any value (a file, a number)
  bool text = false;                 // the value is text (a file name, NAME=VALUE), not a number
};

struct PositionalSpec {
  std::string name, description;
  bool many = false;
};

struct CommandSpec {
  std::string name, description;
  std::vector<OptionSpec> options;
  std::vector<PositionalSpec> positionals;
};

// The values of a `{a,b,c}` validator description in CLI11's type name (`TEXT:{table,json}`).
std::vector<std::string> choices_of(const CLI::Option* o) {
  std::string type = o->get_type_name();
  size_t open = type.find(":{"), close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string list = type.substr(open + 2, close - open - 2);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

CommandSpec describe(const CLI::App* app) {
  CommandSpec spec{app->get_name(), app->get_description(), {}, {}};
  for (const CLI::Option* o : app->get_options()) {
    if (o->get_group().empty()) continue;  // hidden
    if (!o->nonpositional()) {
      spec.positionals.push_back({o->get_name(true), o->get_description(), o->get_expected_max() > 1});
      continue;
    }
    OptionSpec opt;
    for (const auto& n : o->get_lnames()) opt.names.push_back("--" + n);
    for (const auto& n : o->get_snames()) opt.names.push_back("-" + n);
    opt.description = o->get_description();
    opt.takes_value = o->get_items_expected_max() > 0;  // flags expect no value
    opt.repeatable = opt.takes_value && o->get_expected_max() > 1;
    opt.choices = choices_of(o);
    opt.text = o->get_type_name().rfind("TEXT", 0) == 0;
    spec.options.push_back(std::move(opt));
  }
  return spec;
}

// The visible subcommands (a subcommand in the empty group, as `completion` itself, is hidden from help and here).
std::vector<CommandSpec> subcommands(CLI::App& app) {
  std::vector<CommandSpec> out;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) out.push_back(describe(sub));
  return out;
}

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::string bash_script(CLI::App& app) {
  CommandSpec top = describe(&app);
  std::vector<CommandSpec> subs = subcommands(app);
  std::vector<std::string> sub_names, top_words;
  for (const auto& s : subs) sub_names.push_back(s.name);
  top_words = sub_names;
  for (const auto& o : top.options) top_words.insert(top_words.end(), o.names.begin(), o.names.end());

  std::string out =
      "# gpmc completion for bash: written by `gpmc completion bash` from gpmc's command-line definition.\n"
      "_gpmc() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub='' i\n"
      "  # --format=json: bash splits at `=`; the option is the word before it.\n"
      "  if [[ $cur == = ]]; then cur=''; prev=${COMP_WORDS[COMP_CWORD-1]}; fi\n"
      "  if [[ $prev == = && $COMP_CWORD -ge 2 ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      " + join(sub_names, "|") + ") sub=${COMP_WORDS[i]}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  local options=''\n"
      "  case $sub in\n";
  for (const auto& s : subs) {
    out += "    " + s.name + ")\n      case $prev in\n";
    std::vector<std::string> any_value, words;
    for (const auto& o : s.options) {
      words.insert(words.end(), o.names.begin(), o.names.end());
      if (!o.takes_value) continue;
      if (o.choices.empty()) {
        any_value.insert(any_value.end(), o.names.begin(), o.names.end());
      } else {
        out += fmt::format("        {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return ;;\n", join(o.names, "|"),
                           join(o.choices));
      }
    }
    // A value that is not one of a set (a file, a number, NAME=VALUE): bash's default, file names.
    if (!any_value.empty()) out += "        " + join(any_value, "|") + ") return ;;\n";
    out += "      esac\n      options='" + join(words) + "' ;;\n";
  }
  out += "    *) COMPREPLY=($(compgen -W '" + join(top_words) + "' -- \"$cur\")); return ;;\n"
         "  esac\n"
         "  # Options where a dash is typed; otherwise the positional arguments, files (complete -o default).\n"
         "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$options\" -- \"$cur\")); fi\n"
         "}\n"
         "complete -o default -F _gpmc gpmc\n";
  return out;
}

// A text inside '...' for zsh, and inside the [...] of an _arguments description.
std::string zsh_quote(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else if (c == '[' || c == ']' || c == '\\') out += std::string("\\") + c;
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string zsh_option(const OptionSpec& o) {
  std::string spec = o.repeatable ? "'*'" : "";
  spec += o.names.size() == 1 ? o.names[0] : "{" + join(o.names, ",") + "}";
  spec += "'[" + zsh_quote(o.description) + "]";
  if (o.takes_value) {
    std::string what = o.names[0].substr(o.names[0].find_first_not_of('-'));
    std::string action = !o.choices.empty() ? "(" + join(o.choices) + ")" : o.text ? "_files" : " ";
    spec += ":" + what + ":" + action;
  }
  return spec + "'";
}

std::string zsh_script(CLI::App& app) {
  CommandSpec top = describe(&app);
  std::vector<CommandSpec> subs = subcommands(app);
  std::string out =
      "#compdef gpmc\n"
      "# gpmc completion for zsh: written by `gpmc completion zsh` from gpmc's command-line definition.\n"
      "_gpmc() {\n"
      "  local curcontext=$curcontext state state_descr line ret=1\n"
      "  typeset -A opt_args\n"
      "  _arguments -C \\\n";
  for (const auto& o : top.options) out += "    '(- *)'" + zsh_option(o) + " \\\n";
  out += "    '1: :->subcommand' \\\n"
         "    '*:: :->argument' && ret=0\n"
         "  case $state in\n"
         "    subcommand)\n"
         "      local -a subcommands\n"
         "      subcommands=(\n";
  for (const auto& s : subs) out += "        '" + s.name + ":" + zsh_quote(s.description) + "'\n";
  out += "      )\n"
         "      _describe -t subcommands 'gpmc subcommand' subcommands && ret=0 ;;\n"
         "    argument)\n"
         "      curcontext=${curcontext%:*:*}:gpmc-$words[1]:\n"
         "      case $words[1] in\n";
  for (const auto& s : subs) {
    out += "        " + s.name + ")\n          _arguments \\\n";
    for (const auto& o : s.options) out += "            " + zsh_option(o) + " \\\n";
    int index = 1;
    for (const auto& p : s.positionals) {
      std::string position = p.many ? "*" : std::to_string(index++);
      out += "            '" + position + ":" + zsh_quote(p.name) + ":_files' \\\n";
    }
    out += "            && ret=0 ;;\n";
  }
  out += "      esac ;;\n"
         "  esac\n"
         "  return ret\n"
         "}\n"
         "# Autoloaded from $fpath, the file is the function's body; sourced, it registers the function.\n"
         "if [[ $funcstack[1] == _gpmc ]]; then _gpmc \"$@\"; else compdef _gpmc gpmc; fi\n";
  return out;
}

}  // namespace

std::string completion_script(CLI::App& app, const std::string& shell) {
  return shell == "zsh" ? zsh_script(app) : bash_script(app);
}

}  // namespace gpm::cli
