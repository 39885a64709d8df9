// The host side of the raw-pointer CUDA index check on a fake CUDA runtime
// (fake_cuda/), which fails the call a test names: each failure is returned
// with the site of the call that failed, and leaves no device or pinned
// memory behind. Runs without a GPU.
#include "fake_cuda/fake_cudart.h"

#include <torchtidy/cuda/index_check.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace torchtidy::cuda;

namespace {

/// Each test gets a device number of its own: the library keeps a device's
/// state for the whole process once it is made.
int freshDevice() {
  static int next = 0;
  return next++;
}

class CudaFault : public ::testing::Test {
protected:
  void SetUp() override {
    fake_cudart::reset();
    fake_cudart::currentDevice = freshDevice();
  }
  void TearDown() override { fake_cudart::reset(); }

  cudaError_t check() {
    IndexRangeResult result;
    return checkIndexRange(ids_.data(), IndexType::Int64,
                           static_cast<int64_t>(ids_.size()), 10, nullptr,
                           &result);
  }

  std::vector<int64_t> ids_{1, 2, 3};
};

struct StepCase {
  const char *function;
  int onCall;
};

class CreateStateFault : public CudaFault,
                         public ::testing::WithParamInterface<StepCase> {};

// The first use of a device makes its state in five steps; whichever fails,
// the error is returned with that call's site, and what the steps before it
// allocated is freed.
TEST_P(CreateStateFault, ReturnsTheSiteAndFreesWhatWasAllocated) {
  const std::size_t devicesBefore = fake_cudart::liveDeviceAllocations();
  const std::size_t pinnedBefore = fake_cudart::livePinnedAllocations();
  fake_cudart::fault = {GetParam().function, GetParam().onCall,
                        cudaErrorMemoryAllocation};

  EXPECT_EQ(check(), cudaErrorMemoryAllocation);

  const ErrorSite site = lastErrorSite();
  ASSERT_NE(site.call, nullptr);
  EXPECT_EQ(std::string(site.call).rfind(GetParam().function, 0), 0u)
      << site.call;
  EXPECT_STREQ(site.file, "index_check.cpp");
  EXPECT_GT(site.line, 0);
  EXPECT_EQ(site.error, cudaErrorMemoryAllocation);
  EXPECT_EQ(describeError(cudaErrorMemoryAllocation),
            std::string("out of memory (") + GetParam().function +
                " at index_check.cpp:" + std::to_string(site.line) + ")");

  EXPECT_EQ(fake_cudart::liveDeviceAllocations(), devicesBefore);
  // The thread's sync record (pinned) may be made by an earlier test; the
  // device state's mailbox must not stay.
  EXPECT_EQ(fake_cudart::livePinnedAllocations(), pinnedBefore);

  // Nothing half-made was kept: the next check makes the state and passes.
  fake_cudart::reset();
  EXPECT_EQ(check(), cudaSuccess);
  EXPECT_EQ(lastErrorSite().call, nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    EachStep, CreateStateFault,
    ::testing::Values(StepCase{"cudaMalloc", 1}, StepCase{"cudaMemcpy", 1},
                      StepCase{"cudaHostAlloc", 1},
                      StepCase{"cudaHostGetDevicePointer", 1},
                      StepCase{"cudaDeviceGetAttribute", 1}),
    [](const ::testing::TestParamInfo<StepCase> &info) {
      return std::string(info.param.function);
    });

TEST_F(CudaFault, AStateThatFailedHalfWayFreesItsDeviceAndPinnedMemory) {
  // The last step fails after the device slots and the pinned mailbox were
  // allocated: both must be freed.
  ASSERT_EQ(check(), cudaSuccess); // the thread's own record exists now
  fake_cudart::currentDevice = freshDevice();
  const std::size_t devicesBefore = fake_cudart::liveDeviceAllocations();
  const std::size_t pinnedBefore = fake_cudart::livePinnedAllocations();
  fake_cudart::fault = {"cudaDeviceGetAttribute", 1, cudaErrorUnknown};
  EXPECT_EQ(check(), cudaErrorUnknown);
  EXPECT_EQ(fake_cudart::liveDeviceAllocations(), devicesBefore);
  EXPECT_EQ(fake_cudart::livePinnedAllocations(), pinnedBefore);
  // A state that was made is kept, with its memory.
  fake_cudart::reset();
  ASSERT_EQ(check(), cudaSuccess);
  EXPECT_EQ(fake_cudart::liveDeviceAllocations(), devicesBefore + 1);
  EXPECT_EQ(fake_cudart::livePinnedAllocations(), pinnedBefore + 1);
}

TEST_F(CudaFault, AWaitThatFailsNamesTheStreamSynchronize) {
  fake_cudart::fault = {"cudaStreamSynchronize", 1, cudaErrorIllegalAddress};
  EXPECT_EQ(check(), cudaErrorIllegalAddress);
  const std::string message = describeError(cudaErrorIllegalAddress);
  EXPECT_EQ(message.rfind("an illegal memory access was encountered "
                          "(cudaStreamSynchronize at index_check.cpp:",
                          0),
            0u)
      << message;
}

TEST_F(CudaFault, ALaunchThatFailsNamesTheKernel) {
  fake_cudart::launchError = cudaErrorInvalidValue;
  EXPECT_EQ(check(), cudaErrorInvalidValue);
  EXPECT_EQ(describeError(cudaErrorInvalidValue),
            "invalid argument (indexRangeKernel<<<...>>> at "
            "index_check_dispatch.cu:0)");
}

TEST_F(CudaFault, BadArgumentsAreNamed) {
  IndexRangeResult result;
  EXPECT_EQ(
      checkIndexRange(ids_.data(), IndexType::Int64, -1, 10, nullptr, &result),
      cudaErrorInvalidValue);
  EXPECT_STREQ(lastErrorSite().call, "a negative count");
  EXPECT_EQ(
      checkIndexRange(ids_.data(), IndexType::Int64, 3, -2, nullptr, &result),
      cudaErrorInvalidValue);
  EXPECT_STREQ(lastErrorSite().call, "a negative bound");
  EXPECT_EQ(checkIndexRange(nullptr, IndexType::Int64, 3, 10, nullptr, &result),
            cudaErrorInvalidValue);
  EXPECT_STREQ(lastErrorSite().call,
               "a null index pointer with a count over 0");
  EXPECT_EQ(
      checkIndexRange(ids_.data(), IndexType::Int64, 3, 10, nullptr, nullptr),
      cudaErrorInvalidValue);
  EXPECT_STREQ(lastErrorSite().call, "a null result");
  EXPECT_EQ(
      describeError(cudaErrorInvalidValue)
          .rfind("invalid argument (a null result at index_check.cpp:", 0),
      0u);
}

TEST_F(CudaFault, ASiteIsNeverThatOfAnEarlierCall) {
  fake_cudart::fault = {"cudaGetDevice", 1, cudaErrorInvalidDevice};
  EXPECT_EQ(check(), cudaErrorInvalidDevice);
  ASSERT_NE(lastErrorSite().call, nullptr);
  fake_cudart::reset();
  EXPECT_EQ(check(), cudaSuccess);
  EXPECT_EQ(lastErrorSite().call, nullptr);
  // An error this thread's record does not hold is described plainly.
  EXPECT_EQ(describeError(cudaErrorInvalidDevice), "invalid device ordinal");
}

TEST_F(CudaFault, DeferredSynchronizationReportsTheFirstFailure) {
  ASSERT_EQ(
      checkIndexRangeDeferred(ids_.data(), IndexType::Int64, 3, 10, 7, nullptr),
      cudaSuccess);
  fake_cudart::fault = {"cudaDeviceSynchronize", 1, cudaErrorIllegalAddress};
  EXPECT_EQ(synchronizeDeferredDevices(), cudaErrorIllegalAddress);
  EXPECT_STREQ(lastErrorSite().call, "cudaDeviceSynchronize()");
}

} // namespace
