#pragma once
// Errors that cross a boundary are values: Result<T> holds either a T or an Error carrying a
// RocketMQ response code (src/common/response_code.h) and a message. Exceptions are for
// programmer bugs and start-up failures only.
#include <string>
#include <utility>
#include <variant>
#include <cassert>

namespace rmq {

struct Error {
  int code = 1;          // RocketMQ response code (SYSTEM_ERROR by default)
  std::string message;   // goes to the response remark / log line
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error err) : v_(std::move(err)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const Error& error() const { assert(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error err) : err_(std::move(err)), ok_(false) {}
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { assert(!ok_); return err_; }

 private:
  Error err_;
  bool ok_ = true;
};

inline Error makeError(int code, std::string msg) { return Error{code, std::move(msg)}; }

}  // namespace rmq
