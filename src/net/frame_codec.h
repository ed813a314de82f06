#pragma once
// Frame codec (PROTOCOL.md §1.1-1.4): length prefix, header-length word with serialize type,
// JSON or ROCKETMQ binary header, body.
#include <string>
#include <string_view>

#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::net {

inline constexpr size_t kDefaultMaxFrameSize = 16 * 1024 * 1024;

// Decodes one frame *without* its 4-byte total-length prefix: header-length word, header, body.
Result<RemotingCommand> decodeFrame(std::string_view frame);
// Header encoders (header bytes only, no length words).
void encodeJsonHeader(const RemotingCommand& cmd, std::string& out);
void encodeRocketMQHeader(const RemotingCommand& cmd, std::string& out);
// Writes total-length + header-length word + header + owned body into `out`; the caller sends
// cmd.bodySegments after it. Total length counts the segments too.
void encodeFramePrefix(const RemotingCommand& cmd, std::string& out);
// Writes total-length + header-length word + header only; the caller sends cmd.body and then
// cmd.bodySegments after it (scatter/gather, no body copy). Total length counts both.
void encodeFrameHeader(const RemotingCommand& cmd, std::string& out);
// Whole frame in one string (segments copied): for tests and small messages.
std::string encodeFrame(const RemotingCommand& cmd);

}  // namespace rmq::net
