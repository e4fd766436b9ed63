// fuzz/fuzz_frontend.cc: libFuzzer-style entry point that parses arbitrary bytes as a .sluice file.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "frontend/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto path = std::make_shared<const std::string>("fuzz.sluice");
  auto text = std::make_shared<const std::string>(reinterpret_cast<const char *>(data), size);
  sluice::frontend::DiagnosticEngine diags;
  std::unique_ptr<sluice::frontend::Module> module =
      sluice::frontend::parseModule(path, text, diags);
  // Formatting quotes source lines and places carets: exercise it too.
  std::ostringstream os;
  diags.print(os);
  return 0;
}
