// json_rpc.cpp: reading and writing Content-Length framed JSON-RPC messages.
#include "lsp/json_rpc.h"

#include <cctype>
#include <istream>
#include <ostream>

namespace gpm::lsp {

ReadResult read_message(std::istream& in, std::string& body, std::string& error) {
  long long length = -1;
  bool any_header = false;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name != "content-length") continue;
    std::string value = line.substr(colon + 1);
    size_t first = value.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    value = value.substr(first);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    if (value.empty() || value.size() > 12 ||
        value.find_first_not_of("0123456789") != std::string::npos) {
      length = -2;
      continue;
    }
    length = std::stoll(value);
  }
  if (!any_header) return ReadResult::End;
  if (length < 0) {
    error = length == -2 ? "the Content-Length header is not a number" : "a message without a Content-Length header";
    return ReadResult::BadHeader;
  }
  if (size_t(length) > kMaxMessageBytes) {
    in.ignore(length);
    error = "a message larger than 64 MiB";
    return ReadResult::BadHeader;
  }
  body.assign(size_t(length), '\0');
  in.read(body.data(), length);
  if (in.gcount() != length) return ReadResult::End;
  return ReadResult::Message;
}

void write_message(std::ostream& out, const Json& message) {
  std::string text = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  out << "Content-Length: " << text.size() << "\r\n\r\n" << text;
  out.flush();
}

Json response(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json error_response(const Json& id, int code, const std::string& message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

Json notification(const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace gpm::lsp
