#pragma once
// REQUIRE_OK(expr): REQUIREs that a Result (src/common/result.h) is ok and, when it is not, prints
// its error (code and message) — a failed send in CI then says why (no route, busy, timeout, ...).
#include <doctest/doctest.h>

#include <string>

#define REQUIRE_OK(expr)                                                                                      \
  do {                                                                                                        \
    const auto& rmq_require_ok_ = (expr);                                                                     \
    REQUIRE_MESSAGE(rmq_require_ok_.ok(), (rmq_require_ok_.ok() ? std::string()                              \
                                                                : "error " +                                 \
                                                                      std::to_string(rmq_require_ok_.error().code) + \
                                                                      ": " + rmq_require_ok_.error().message)); \
  } while (0)
