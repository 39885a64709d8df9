// TORCHTIDY_CHECK_LAUNCH() against the real CUDA runtime API (what a .cu
// file sees), in a debug build. No kernel is needed: a failed runtime call
// leaves its error in the same place as a failed launch, and works with or
// without a GPU (without one, every call reports "no device" or "driver").
#undef NDEBUG
#include <torchtidy/check.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace {

TEST(CheckLaunchCuda, ReportsThePendingErrorAtItsSite) {
  torchtidy::setSyncAfterLaunches(false);
  int count = 0;
  const cudaError_t pending = cudaSetDevice(1 << 20); // no such device
  ASSERT_NE(pending, cudaSuccess);
  int line = 0;
  try {
    line = __LINE__ + 1;
    TORCHTIDY_CHECK_LAUNCH();
    FAIL() << "the pending error was not reported";
  } catch (const torchtidy::LaunchError &e) {
    EXPECT_EQ(e.code(), static_cast<int>(pending));
    EXPECT_EQ(e.site().line, line);
    EXPECT_FALSE(e.whileRunning());
    EXPECT_NE(e.msg().find(cudaGetErrorString(pending)), std::string::npos)
        << e.msg();
  }
  // With a GPU the error was cleared by the check; without one, every call
  // still fails.
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    (void)cudaGetLastError();
    EXPECT_NO_THROW(TORCHTIDY_CHECK_LAUNCH());
    torchtidy::setSyncAfterLaunches(true);
    EXPECT_NO_THROW(TORCHTIDY_CHECK_LAUNCH());
    torchtidy::setSyncAfterLaunches(false);
  }
}

} // namespace
