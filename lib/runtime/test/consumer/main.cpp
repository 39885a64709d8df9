// Uses the installed <torchtidy/check.h>: the check must fire and name this
// file, whatever the consumer's build type.
#undef NDEBUG
#include <torchtidy/check.h>

#include <ATen/ops/arange.h>

#include <cstdio>
#include <string>

int main() {
  const at::Tensor ids = at::arange(8, at::kLong);
  TORCHTIDY_CHECK_INDEX(ids, 8);
  try {
    TORCHTIDY_CHECK_INDEX(ids, 5);
  } catch (const torchtidy::IndexOutOfRangeError &e) {
    const std::string msg = e.msg();
    if (msg.find("main.cpp:") != std::string::npos && e.value() == 5 &&
        e.badCount() == 3) {
      std::printf("consumer ok: %s\n", msg.c_str());
      return 0;
    }
    std::printf("unexpected message: %s\n", msg.c_str());
    return 1;
  }
  std::printf("the check did not fire\n");
  return 1;
}
