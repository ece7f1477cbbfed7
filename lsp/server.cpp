// server.cpp: the language server's dispatch: lifecycle, document synchronisation, hover, definition, completion.
#include "lsp/server.h"

#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "lsp/analysis.h"
#include "lsp/json_rpc.h"
#include "lsp/text.h"

namespace gpm::lsp {

namespace {

// A request whose parameters are not what the method takes.
struct BadParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A request of a method the server does not serve.
struct UnknownMethod : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const Json& member(const Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name)) throw BadParams(std::string("missing `") + name + "`");
  return object[name];
}

std::string string_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_string()) throw BadParams(std::string("`") + name + "` must be a string");
  return value.get<std::string>();
}

uint32_t count_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_integer()) throw BadParams(std::string("`") + name + "` must be an integer");
  int64_t n = value.get<int64_t>();
  return n < 0 ? 0 : n > int64_t(UINT32_MAX) ? UINT32_MAX : uint32_t(n);
}

class Server {
 public:
  Server(std::ostream& out, std::ostream& log) : out_(out), log_(log) {}
  // Handles one message; the exit status once `exit` arrives.
  std::optional<int> handle(const Json& message);
  bool was_shut_down() const { return shutdown_; }

 private:
  struct Document {
    std::string path, text;
    std::unique_ptr<Analysis> analysis;
  };
  Json request(const std::string& method, const Json& params);
  void notify(const std::string& method, const Json& params);
  void analyse(const std::string& uri, Document& document);
  // Checks again every other open document whose last check read the document `uri` (its imports and theirs).
  void analyse_importers(const std::string& uri);
  std::map<std::string, std::string> open_texts() const;
  // The open document and the byte offset of `params.position`, or null when the document is not open.
  const Document* at(const Json& params, uint32_t& offset) const;

  std::ostream& out_;
  std::ostream& log_;
  bool initialized_ = false, shutdown_ = false;
  std::map<std::string, Document> documents_;  // by URI
};

std::optional<int> Server::handle(const Json& message) {
  if (!message.is_object()) {
    write_message(out_, error_response(nullptr, kInvalidRequest, "a message must be a JSON object"));
    return std::nullopt;
  }
  bool has_id = message.contains("id");
  Json id = has_id ? message["id"] : Json(nullptr);
  if (has_id && !id.is_string() && !id.is_number_integer() && !id.is_null()) {
    write_message(out_, error_response(nullptr, kInvalidRequest, "`id` must be a number or a string"));
    return std::nullopt;
  }
  if (!message.contains("method") || !message["method"].is_string()) {
    if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;  // a response
    write_message(out_, error_response(id, kInvalidRequest, "a request needs a `method` string"));
    return std::nullopt;
  }
  std::string method = message["method"].get<std::string>();
  Json params = message.contains("params") ? message["params"] : Json::object();
  if (method == "exit") return shutdown_ ? 0 : 1;
  if (!has_id) {  // a notification: never answered
    if (!initialized_ || shutdown_) return std::nullopt;
    try {
      notify(method, params);
    } catch (const std::exception& e) {
      log_ << "gpmc lsp: " << method << ": " << e.what() << "\n" << std::flush;
    }
    return std::nullopt;
  }
  Json reply;
  if (method != "initialize" && !initialized_) {
    reply = error_response(id, kServerNotInitialized, "the server has not been initialized");
  } else if (shutdown_) {
    reply = error_response(id, kInvalidRequest, "the server is shut down");
  } else {
    try {
      reply = response(id, request(method, params));
    } catch (const BadParams& e) {
      reply = error_response(id, kInvalidParams, method + ": " + e.what());
    } catch (const nlohmann::json::exception& e) {
      reply = error_response(id, kInvalidParams, method + ": " + e.what());
    } catch (const UnknownMethod&) {
      reply = error_response(id, kMethodNotFound, "unknown method `" + method + "`");
    } catch (const std::exception& e) {
      reply = error_response(id, kInternalError, method + ": " + e.what());
    }
  }
  write_message(out_, reply);
  return std::nullopt;
}

Json Server::request(const std::string& method, const Json& params) {
  if (method == "initialize") {
    initialized_ = true;
    return {{"capabilities",
             {{"textDocumentSync", {{"openClose", true}, {"change", 1}}},
              {"hoverProvider", true},
              {"definitionProvider", true},
              {"completionProvider", {{"triggerCharacters", Json::array()}}}}},
            {"serverInfo", {{"name", "gpmc"}, {"version", GPM_VERSION}}}};
  }
  if (method == "shutdown") {
    shutdown_ = true;
    return nullptr;
  }
  uint32_t offset = 0;
  if (method == "textDocument/hover") {
    const Document* document = at(params, offset);
    return document && document->analysis ? document->analysis->hover(offset) : Json(nullptr);
  }
  if (method == "textDocument/definition") {
    const Document* document = at(params, offset);
    return document && document->analysis ? document->analysis->definition(offset) : Json(nullptr);
  }
  if (method == "textDocument/completion") {
    const Document* document = at(params, offset);
    if (document && document->analysis) return document->analysis->completion(offset);
    return {{"isIncomplete", false}, {"items", Json::array()}};
  }
  throw UnknownMethod(method);
}

void Server::notify(const std::string& method, const Json& params) {
  if (method == "textDocument/didOpen") {
    const Json& item = member(params, "textDocument");
    std::string uri = string_member(item, "uri");
    Document& document = documents_[uri];
    document.path = uri_to_path(uri);
    document.text = string_member(item, "text");
    analyse(uri, document);
    analyse_importers(uri);
  } else if (method == "textDocument/didChange") {
    std::string uri = string_member(member(params, "textDocument"), "uri");
    auto it = documents_.find(uri);
    if (it == documents_.end()) throw BadParams("`" + uri + "` is not open");
    const Json& changes = member(params, "contentChanges");
    if (!changes.is_array()) throw BadParams("`contentChanges` must be an array");
    std::string text = it->second.text;
    for (const Json& change : changes) {
      std::string replacement = string_member(change, "text");
      if (!change.contains("range")) {
        text = std::move(replacement);
        continue;
      }
      const Json& range = member(change, "range");
      const Json &start = member(range, "start"), &end = member(range, "end");
      uint32_t a = offset_of(text, {count_member(start, "line"), count_member(start, "character")});
      uint32_t b = offset_of(text, {count_member(end, "line"), count_member(end, "character")});
      text.replace(a, std::max(a, b) - a, replacement);
    }
    it->second.text = std::move(text);
    analyse(uri, it->second);
    analyse_importers(uri);
  } else if (method == "textDocument/didClose") {
    std::string uri = string_member(member(params, "textDocument"), "uri");
    documents_.erase(uri);
    analyse_importers(uri);  // they read the file from disk again
    write_message(out_, notification("textDocument/publishDiagnostics",
                                     {{"uri", uri}, {"diagnostics", Json::array()}}));
  }
  // Any other notification (initialized, didSave, $/cancelRequest, $/setTrace...) needs nothing.
}

std::map<std::string, std::string> Server::open_texts() const {
  std::map<std::string, std::string> out;
  for (const auto& [uri, document] : documents_) out[document.path] = document.text;
  return out;
}

void Server::analyse(const std::string& uri, Document& document) {
  document.analysis.reset();
  Json diagnostics = Json::array();
  try {
    document.analysis = std::make_unique<Analysis>(document.path, document.text, open_texts());
    diagnostics = document.analysis->diagnostics();
  } catch (const std::exception& e) {
    document.analysis.reset();
    log_ << "gpmc lsp: checking `" << document.path << "` failed: " << e.what() << "\n" << std::flush;
  }
  write_message(out_, notification("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", diagnostics}}));
}

void Server::analyse_importers(const std::string& uri) {
  std::string path = uri_to_path(uri);
  for (auto& [other, document] : documents_)
    if (other != uri && document.analysis && document.analysis->reads(path)) analyse(other, document);
}

const Server::Document* Server::at(const Json& params, uint32_t& offset) const {
  std::string uri = string_member(member(params, "textDocument"), "uri");
  const Json& position = member(params, "position");
  auto it = documents_.find(uri);
  if (it == documents_.end()) return nullptr;
  offset = offset_of(it->second.text, {count_member(position, "line"), count_member(position, "character")});
  return &it->second;
}

}  // namespace

int run_server(std::istream& in, std::ostream& out, std::ostream& log) {
  Server server(out, log);
  std::string body, error;
  for (;;) {
    ReadResult read = read_message(in, body, error);
    if (read == ReadResult::End) return server.was_shut_down() ? 0 : 1;
    if (read == ReadResult::BadHeader) {
      log << "gpmc lsp: " << error << "\n" << std::flush;
      write_message(out, error_response(nullptr, kParseError, error));
      continue;
    }
    Json message = Json::parse(body, nullptr, false);
    if (message.is_discarded()) {
      write_message(out, error_response(nullptr, kParseError, "the message is not valid JSON"));
      continue;
    }
    if (std::optional<int> status = server.handle(message)) return *status;
  }
}

}  // namespace gpm::lsp
