// lexer.cpp: the hand-written .gpm lexer (rules of grammar/Gpm.g4, longest match, keywords from the vocabulary).
#include "frontend/lexer.h"

#include "GpmParser.h"
#include "frontend/parse.h"

namespace gpm::frontend {
namespace {

using gpm_gen::GpmParser;

// The alternatives of the grammar's UNIT fragment (grammar/Gpm.g4); a unit test compares them with the grammar.
constexpr std::string_view kUnits[] = {
    "s",  "ms",  "us",  "ns",  "ps",  "B",   "kB",    "KB",    "MB",    "GB",    "TB",    "PB",    "KiB",
    "MiB", "GiB", "TiB", "PiB", "b",  "Kb",  "Mb",    "Gb",    "Tb",    "flop",  "Kflop", "Mflop", "Gflop",
    "Tflop", "Pflop", "T", "KT", "MT",  "GT",  "Hz",    "kHz",   "MHz",   "GHz",   "Ki",    "Mi",    "Gi"};

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_part(char32_t c) { return is_ident_start(c) || is_digit(c); }

}  // namespace

struct Lexer::Literals {
  std::vector<std::string> text;  // by token type: the literal (`machine`, `->`), empty for the other types
  size_t max_punctuation = 0;     // the length of the longest literal that is not a word
  std::vector<size_t> by_first[128];  // the literal types by their first character
  Literals() {
    // The vocabulary is a static member of the generated parser, reached through an instance. (The generated lexer
    // is not linked into gpmc at all: its static initialisation alone cost every run 2 million instructions.)
    GpmParser generated(nullptr);
    const antlr4::dfa::Vocabulary& vocabulary = generated.getVocabulary();
    text.resize(vocabulary.getMaxTokenType() + 1);
    for (size_t type = 1; type < text.size(); ++type) {
      std::string name = vocabulary.getLiteralName(type);
      if (name.size() < 3 || name.front() != '\'' || name.back() != '\'') continue;
      text[type] = name.substr(1, name.size() - 2);
      by_first[static_cast<unsigned char>(text[type][0]) & 127].push_back(type);
      if (!is_ident_start(static_cast<unsigned char>(text[type][0])))
        max_punctuation = std::max(max_punctuation, text[type].size());
    }
  }
};

Lexer::Lexer(CodePointInput& input) : input_(input), text_(input.code_points()), literals_([]() -> const Literals& {
  static const Literals literals;
  return literals;
}()) {}

std::vector<std::string> keyword_words() {
  CodePointInput empty("");
  Lexer lexer(empty);
  std::vector<std::string> out;
  for (size_t type = 1; type < lexer.literals_.text.size(); ++type) {
    const std::string& word = lexer.literals_.text[type];
    if (!word.empty() && is_ident_start(static_cast<unsigned char>(word[0]))) out.push_back(word);
  }
  return out;
}

std::string_view Lexer::literal(size_t type) const {
  return type < literals_.text.size() ? std::string_view(literals_.text[type]) : std::string_view();
}

std::vector<std::string_view> Lexer::unit_words() { return {std::begin(kUnits), std::end(kUnits)}; }

void Lexer::reset() {
  pos_ = column_ = next_skip_ = 0;
  line_ = 1;
}

void Lexer::advance_to(size_t end) {
  for (; pos_ < end; ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 0;
    } else {
      ++column_;
    }
  }
}

size_t Lexer::unit_end(size_t i) const {
  size_t best = i;
  for (std::string_view unit : kUnits) {
    if (i + unit.size() <= best || i + unit.size() > text_.size()) continue;
    bool match = true;
    for (size_t k = 0; k < unit.size() && match; ++k) match = text_[i + k] == char32_t(unit[k]);
    if (match) best = i + unit.size();
  }
  return best;
}

size_t Lexer::literal_type(size_t begin, size_t length) const {
  char32_t first = text_[begin];
  if (first >= 128) return 0;
  for (size_t type : literals_.by_first[first]) {
    const std::string& lit = literals_.text[type];
    if (lit.size() != length) continue;
    bool match = true;
    for (size_t k = 0; k < length && match; ++k) match = text_[begin + k] == char32_t(static_cast<unsigned char>(lit[k]));
    if (match) return type;
  }
  return 0;
}

Lexeme Lexer::next() {
  for (;;) {
    size_t n = text_.size();
    Lexeme lexeme;
    lexeme.start = pos_;
    lexeme.line = line_;
    lexeme.column = column_;
    if (pos_ >= n) {
      lexeme.type = antlr4::Token::EOF;
      lexeme.stop = pos_ - 1;  // ANTLR's end-of-file token: stop before start
      return lexeme;
    }
    char32_t c = text_[pos_];
    size_t end = pos_ + 1;
    size_t type = 0;
    bool skip = false;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {  // WS
      while (end < n && (text_[end] == ' ' || text_[end] == '\t' || text_[end] == '\r' || text_[end] == '\n')) ++end;
      skip = true;
    } else if (c == '/' && at(pos_ + 1) == '/') {  // LINE_COMMENT
      while (end < n && text_[end] != '\r' && text_[end] != '\n') ++end;
      skip = true;
    } else if (c == '/' && at(pos_ + 1) == '*') {  // BLOCK_COMMENT, or UNTERMINATED_COMMENT to the end of file
      end = pos_ + 2;
      while (end < n && !(text_[end] == '*' && at(end + 1) == '/')) ++end;
      if (end < n) {
        end += 2;
        skip = true;
      } else {
        type = GpmParser::UNTERMINATED_COMMENT;
      }
    } else if (is_digit(c)) {  // NUM, then QUANTITY when a unit follows after spaces or tabs
      while (end < n && is_digit(text_[end])) ++end;
      if (at(end) == '.' && is_digit(at(end + 1))) {
        end += 2;
        while (end < n && is_digit(text_[end])) ++end;
      }
      if (at(end) == 'e' || at(end) == 'E') {
        size_t digits = end + 1;
        if (at(digits) == '+' || at(digits) == '-') ++digits;
        if (is_digit(at(digits))) {
          end = digits;
          while (end < n && is_digit(text_[end])) ++end;
        }
      }
      type = GpmParser::NUMBER;
      size_t unit = end;
      while (at(unit) == ' ' || at(unit) == '\t') ++unit;
      size_t unit_stop = unit_end(unit);
      if (unit_stop > unit) {
        type = GpmParser::QUANTITY;
        end = unit_stop;
        while (at(end) == '/') {
          size_t more = unit_end(end + 1);
          if (more == end + 1) break;
          end = more;
        }
      }
    } else if (is_ident_start(c)) {  // a keyword, else IDENT
      while (end < n && is_ident_part(text_[end])) ++end;
      type = literal_type(pos_, end - pos_);
      if (type == 0) type = GpmParser::IDENT;
    } else if (c == '"') {  // STRING, or UNTERMINATED_STRING to the end of the line
      while (end < n && text_[end] != '"' && text_[end] != '\r' && text_[end] != '\n') ++end;
      if (at(end) == '"') {
        ++end;
        type = GpmParser::STRING;
      } else {
        type = GpmParser::UNTERMINATED_STRING;
      }
    } else {  // punctuation: the longest literal, else one ERROR_CHAR
      type = GpmParser::ERROR_CHAR;
      for (size_t length = std::min(literals_.max_punctuation, n - pos_); length >= 1; --length) {
        if (size_t lit = literal_type(pos_, length)) {
          type = lit;
          end = pos_ + length;
          break;
        }
      }
    }
    advance_to(end);
    if (skip) continue;
    lexeme.type = type;
    lexeme.stop = end - 1;
    return lexeme;
  }
}

std::unique_ptr<antlr4::Token> Lexer::nextToken() {
  Lexeme lexeme = next();
  while (next_skip_ < skip_.size() && lexeme.start == skip_[next_skip_].first && lexeme.type != antlr4::Token::EOF) {
    const SkippedTokens& span = skip_[next_skip_++];
    pos_ = span.resume;
    line_ = span.line;
    column_ = span.column;
    lexeme = next();
  }
  return antlr4::CommonTokenFactory::DEFAULT->create({this, &input_}, lexeme.type, "", antlr4::Token::DEFAULT_CHANNEL,
                                                     lexeme.start, lexeme.stop, lexeme.line, lexeme.column);
}

}  // namespace gpm::frontend
