#pragma once
// Certificates for TLS tests, made with the openssl command line in a fresh temporary folder
// (removed with the object): a CA, a server and a client certificate it signed (EC P-256), the
// server key also PKCS#8-encrypted with the password "secret", and a second CA that signed nothing.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace rmq::test {

class TlsTestCerts {
 public:
  TlsTestCerts() {
    dir_ = std::filesystem::temp_directory_path() / ("rmq-tls-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(counter()++));
    std::filesystem::create_directories(dir_);
    ok_ = run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt "
              "-days 30 -subj /CN=rmq-test-ca") &&
          run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-ca.key "
              "-out other-ca.crt -days 30 -subj /CN=other-ca") &&
          issue("server", "localhost") && issue("client", "rmq-test-client") &&
          run("openssl pkcs8 -topk8 -in server.key -out server-enc.key -passout pass:secret");
  }
  ~TlsTestCerts() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool ok() const { return ok_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  bool run(const std::string& cmd) const {
    std::string full = "cd '" + dir_.string() + "' && " + cmd + " >/dev/null 2>&1";
    return std::system(full.c_str()) == 0;
  }
  bool issue(const std::string& name, const std::string& cn) const {
    return run("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout " + name + ".key -out " +
               name + ".csr -subj /CN=" + cn) &&
           run("openssl x509 -req -in " + name + ".csr -CA ca.crt -CAkey ca.key -CAcreateserial -out " + name +
               ".crt -days 30");
  }
  std::filesystem::path dir_;
  bool ok_ = false;
};

}  // namespace rmq::test
