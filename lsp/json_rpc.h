// json_rpc.h: JSON-RPC 2.0 messages over a byte stream with LSP's Content-Length framing.
#pragma once
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

namespace gpm::lsp {

using Json = nlohmann::json;

// JSON-RPC's error codes, and LSP's.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
};

// A message body larger than this is refused (and skipped), so that a wrong header cannot exhaust memory.
inline constexpr size_t kMaxMessageBytes = size_t(64) << 20;

enum class ReadResult { Message, End, BadHeader };
// Reads the headers (`Content-Length: N`, others ignored) and the body of one message. End at the end of the
// stream; BadHeader when the headers had no valid length (what was read is skipped; `error` says why).
ReadResult read_message(std::istream& in, std::string& body, std::string& error);
// Writes one message with its Content-Length header (invalid UTF-8 replaced) and flushes.
void write_message(std::ostream& out, const Json& message);

Json response(const Json& id, Json result);
Json error_response(const Json& id, int code, const std::string& message);
Json notification(const std::string& method, Json params);

}  // namespace gpm::lsp
