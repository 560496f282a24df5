// The input stage's spelling: every form parses to its cost and prints back
// to itself; malformed text is one clear error.
#include "harness/results/input_text.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/engine/input_spec.h"

namespace gradsync {
namespace {

TEST(InputText, EveryFormParsesToItsCostAndPrintsBack) {
  EXPECT_FALSE(parse_input("synthetic").active());
  const InputSpec decode = parse_input("decode:2ms");
  EXPECT_EQ(decode.kind, InputKind::decode);
  EXPECT_DOUBLE_EQ(decode.decode_us, 2000);
  EXPECT_DOUBLE_EQ(decode.stated_image_s(), 0.002);
  EXPECT_EQ(input_text(decode), "decode:2ms");
  EXPECT_EQ(input_text(parse_input("decode:500us")), "decode:500us");
  EXPECT_EQ(input_text(parse_input("decode:1.5ms")), "decode:1500us");
  const InputSpec read = parse_input("read:110K@200");
  EXPECT_EQ(read.kind, InputKind::read);
  EXPECT_DOUBLE_EQ(read.image_bytes, 110 * 1024);
  EXPECT_DOUBLE_EQ(read.read_mb_per_s, 200);
  EXPECT_DOUBLE_EQ(read.stated_image_s(), 110 * 1024 / 200e6);
  EXPECT_EQ(input_text(read), "read:110K@200");
  EXPECT_EQ(input_text(parse_input("read:1M@2.5MB/s")), "read:1M@2.5");
  EXPECT_EQ(parse_input("jpeg").jpeg_quality, 90);
  EXPECT_EQ(input_text(parse_input("jpeg:75")), "jpeg:75");
  EXPECT_EQ(parse_input("jpeg").stated_image_s(), 0);  // measured, not stated
}

TEST(InputText, LabelNamesThreadsAndPrefetch) {
  EXPECT_EQ(input_label(parse_input("synthetic")), "");
  InputSpec spec = parse_input("decode:2ms");
  spec.threads = 2;
  EXPECT_EQ(input_label(spec), "input decode:2ms x2 threads prefetch 2");
  spec.threads = 1;
  spec.prefetch = 0;
  EXPECT_EQ(input_label(spec), "input decode:2ms x1 thread prefetch 0");
}

TEST(InputText, MalformedTextIsOneLineNamingIt) {
  for (const char* bad : {"", "decode", "decode:2", "decode:-1ms", "decode:0us", "read:110K",
                          "read:@200", "read:110K@0", "read:abc@200", "jpeg:0", "jpeg:101",
                          "jpeg:7.5", "synthetic:1", "png", "decode:2msx"}) {
    try {
      parse_input(bad);
      ADD_FAILURE() << "'" << bad << "' parsed";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
}

TEST(InputText, ThreadsAndPrefetchAreChecked) {
  InputSpec spec;
  EXPECT_NO_THROW(check_input(spec));
  spec.threads = 0;
  EXPECT_THROW(check_input(spec), std::invalid_argument);
  spec.threads = 1;
  spec.prefetch = -1;
  EXPECT_THROW(check_input(spec), std::invalid_argument);
  spec.prefetch = 65;
  EXPECT_THROW(check_input(spec), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
