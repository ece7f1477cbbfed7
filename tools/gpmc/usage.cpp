// usage.cpp: command-line mistakes (unknown options, missing or extra arguments, values out of their set or range)
// told in gpmc's own words, with the nearest option name, instead of the argument parser's message.
#include "tools/gpmc/usage.h"

#include <fmt/format.h>

#include <regex>

#include "support/suggest.h"

namespace gpm::cli {

namespace {

// The long and short names of every option of `sub` and of the top-level command (`--format`, `-I`).
std::vector<std::string> option_names(const CLI::App& app, const CLI::App* sub) {
  std::vector<std::string> out;
  for (const CLI::App* a : {&app, sub}) {
    if (!a) continue;
    for (const CLI::Option* o : a->get_options()) {
      for (const auto& n : o->get_lnames()) out.push_back("--" + n);
      for (const auto& n : o->get_snames()) out.push_back("-" + n);
    }
  }
  return out;
}

// The positional arguments a subcommand takes, in upper case (`MACHINE APP`).
std::string positionals(const CLI::App* sub) {
  std::string out;
  for (const CLI::Option* o : sub->get_options())
    if (o->get_positional()) {
      std::string name = o->get_name();
      for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
      out += (out.empty() ? "" : " ") + name;
    }
  return out;
}

}  // namespace

std::string usage_message(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* sub = nullptr;
  for (const CLI::App* s : app.get_subcommands()) sub = s;
  std::string command = sub ? "gpmc " + sub->get_name() : "gpmc";
  std::string what = e.what();
  std::smatch m;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> extras = sub ? sub->remaining() : app.remaining();
    if (extras.empty()) extras = app.remaining();
    for (const std::string& arg : extras) {
      if (arg.size() > 1 && arg[0] == '-') {
        std::string name = arg.substr(0, arg.find('='));
        std::string hint = support::did_you_mean(name, option_names(app, sub));
        return fmt::format("`{}` has no option `{}`{}", command, name,
                           hint.empty() ? " (`" + command + " --help` lists them)" : hint);
      }
    }
    if (!extras.empty())
      return fmt::format("unexpected argument `{}`: `{}` takes {}", extras.front(), command,
                         sub ? positionals(sub) : std::string("a subcommand"));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) && std::regex_match(what, m, std::regex("(\\S+) is required")) && sub)
    return m[1].str()[0] == '-'
               ? fmt::format("`{}` needs the option `{}`", command, m[1].str())
               : fmt::format("`{}` needs its {} argument: {} [OPTIONS] {}", command, m[1].str(), command,
                             positionals(sub));
  if (std::regex_match(what, m, std::regex("(--?[\\w-]+): (\\S+) not in \\{(.*)\\}")))
    return fmt::format("`{}` takes one of {}, not `{}`", m[1].str(), std::regex_replace(m[3].str(), std::regex(","), ", "),
                       m[2].str());
  if (std::regex_match(what, m, std::regex("(--?[\\w-]+): Value (\\S+) not in range (\\S+) to (\\S+)")))
    return fmt::format("`{}` takes a whole number from {} to {}, not `{}`", m[1].str(), m[3].str(), m[4].str(),
                       m[2].str());
  if (std::regex_match(what, m, std::regex("(--?[\\w-]+): \\d+ required \\S+ missing")))
    return fmt::format("`{}` needs a value", m[1].str());
  return what;  // a case not listed above: the parser's own message
}

}  // namespace gpm::cli
