// Cross-memory attach (strategies/ps/ps_cross_memory.h): an offer attaches
// in this process and in a forked child, whose buffer is read and written in
// place; tags that are malformed or whose probe does not read back attach to
// nothing; a transfer at an address the process does not map throws with
// the kernel's reason, and one to a process that has exited ProcessGone.
#include "strategies/ps/ps_cross_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gradsync {
namespace {

using ::testing::HasSubstr;

TEST(CrossMemory, AnOfferAttachesInThisProcess) {
  const std::optional<CrossMemory> me = CrossMemory::attach(CrossMemory::offer());
  ASSERT_TRUE(me.has_value());
  EXPECT_TRUE(me->self());
  EXPECT_EQ(me->pid(), getpid());
  std::array<float, 3> values{1.5f, -2.0f, 3.25f}, read{};
  me->read(reinterpret_cast<std::uintptr_t>(values.data()),
           reinterpret_cast<std::byte*>(read.data()), sizeof values);
  EXPECT_EQ(read, values);
  const std::array<float, 3> written{7.0f, 8.0f, 9.0f};
  me->write(reinterpret_cast<std::uintptr_t>(values.data()),
            reinterpret_cast<const std::byte*>(written.data()), sizeof written);
  EXPECT_EQ(values, written);
}

TEST(CrossMemory, TagsThatDoNotReadBackAttachToNothing) {
  const std::string offer = CrossMemory::offer();  // "<pid>:<address>:<value>"
  const std::string pid_and_address = offer.substr(0, offer.rfind(':'));
  for (const std::string& tag :
       {std::string(), std::string("-"), std::string("12"), std::string("12:ab"),
        std::string("x:ab:cd"), std::string("0:ab:cd"), std::string("-5:ab:cd"),
        std::string("1:0:cd"), pid_and_address + ":0", pid_and_address + ":2"})
    EXPECT_FALSE(CrossMemory::attach(tag).has_value()) << "'" << tag << "'";
  // A process that is not there.
  EXPECT_FALSE(CrossMemory::attach("2147483646:1000:1").has_value());
}

// The child's side: a buffer of known values, its offer and the buffer's
// address sent up `report`; once the parent says so on `go`, exit 0 if the
// buffer holds what the parent wrote.
[[noreturn]] void child(int report, int go) {
  std::vector<float> buffer(100000);
  for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<float>(i % 1000);
  const std::string line =
      CrossMemory::offer() + " " + std::to_string(reinterpret_cast<std::uintptr_t>(buffer.data()));
  if (write(report, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(2);
  close(report);
  char byte = 0;
  if (read(go, &byte, 1) != 1) _exit(3);
  for (std::size_t i = 0; i < buffer.size(); ++i)
    if (buffer[i] != static_cast<float>(i % 1000) * 2) _exit(1);
  _exit(0);
}

TEST(CrossMemory, AnotherProcessIsReadAndWrittenInPlace) {
  int report[2], go[2];
  ASSERT_EQ(pipe(report), 0);
  ASSERT_EQ(pipe(go), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(report[0]);
    close(go[1]);
    child(report[1], go[0]);
  }
  close(report[1]);
  close(go[0]);
  std::string line(256, '\0');
  const ssize_t got = read(report[0], line.data(), line.size());
  close(report[0]);
  ASSERT_GT(got, 0);
  line.resize(static_cast<std::size_t>(got));
  const std::string tag = line.substr(0, line.find(' '));
  const std::uint64_t address = std::stoull(line.substr(line.find(' ') + 1));
  const std::optional<CrossMemory> peer = CrossMemory::attach(tag);
  if (!peer) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    GTEST_SKIP() << "this kernel refuses cross-memory attach between processes (a seccomp "
                    "filter or Yama's ptrace scope): ps-zmq copies through segments here";
  }
  EXPECT_FALSE(peer->self());
  std::vector<float> values(100000);
  peer->read(address, reinterpret_cast<std::byte*>(values.data()), values.size() * sizeof(float));
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], static_cast<float>(i % 1000)) << "element " << i;
    values[i] *= 2;
  }
  peer->write(address, reinterpret_cast<const std::byte*>(values.data()),
              values.size() * sizeof(float));
  // An address the child does not map: the kernel's reason, no crash.
  std::array<std::byte, 8> bytes{};
  EXPECT_THAT([&] { peer->read(8, bytes.data(), bytes.size()); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  HasSubstr("cannot read 8 bytes of process " + std::to_string(pid))));
  EXPECT_THAT([&] { peer->write(8, bytes.data(), bytes.size()); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("cannot write 8 bytes")));
  const char byte = 1;
  ASSERT_EQ(write(go[1], &byte, 1), 1);
  close(go[1]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's buffer does not hold what was written";
  // The child has exited: a transfer says so as ProcessGone, either way.
  EXPECT_THROW(peer->read(address, bytes.data(), bytes.size()), ProcessGone);
  EXPECT_THROW(peer->write(address, bytes.data(), bytes.size()), ProcessGone);
}

}  // namespace
}  // namespace gradsync
