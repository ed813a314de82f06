#pragma once
// Housekeeping shared by both ends of an HA connection: a peer that sent nothing for
// haHousekeepingInterval is dropped (Java's HAConnection / HAClient housekeeping).
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <string>

namespace rmq::repl {

// Checks every limit/4 (50 ms .. 1 s) on `timer` (cancelling it wakes the check early) until
// `closed` is set. Returns true (after one warning naming `peer`, e.g. "slave 1.2.3.4:5") once the
// peer has been silent for more than `limit`: the caller closes the connection; false when the
// connection closed first. `lastRead` and `closed` belong to the caller's connection and are only
// touched on the timer's executor.
asio::awaitable<bool> awaitPeerSilence(asio::steady_timer& timer, const std::chrono::steady_clock::time_point& lastRead,
                                       std::chrono::milliseconds limit, const bool& closed, const std::string& peer);

}  // namespace rmq::repl
