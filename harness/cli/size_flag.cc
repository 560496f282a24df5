#include "harness/cli/size_flag.h"

#include <stdexcept>

#include "harness/results/size_parse.h"

namespace gradsync {

CLI::Option* add_size_flag(CLI::App& app, const std::string& names, std::uint64_t& bytes,
                           const std::string& help, SizeUnit unit) {
  // A transform: the text becomes plain decimal bytes before CLI11 converts it,
  // and a malformed size becomes CLI11's ValidationError "--flag: message".
  CLI::Validator to_bytes(
      [unit](std::string& text) {
        try {
          const std::uint64_t value = parse_size(text);
          if (unit == SizeUnit::floats)
            if (std::string why = not_whole_floats(value, text); !why.empty()) return why;
          text = std::to_string(value);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "");
  return app.add_option(names, bytes, help)
      ->transform(to_bytes)
      ->type_name("SIZE")
      ->default_str(format_size(bytes));
}

}  // namespace gradsync
