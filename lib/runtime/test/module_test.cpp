// TORCHTIDY_CHECK_MODULE_DEVICE and TORCHTIDY_CHECK_ON_CPU on real torch::nn
// and torch::data types. Linked into the debug test executable only.
#undef NDEBUG
#undef TORCHTIDY_ENABLE_CHECKS

#include <torchtidy/check.h>

#include <torch/data/example.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

#include <gtest/gtest.h>

#include <string>

using torchtidy::DeviceMismatchError;

namespace {

bool contains(const std::string &haystack, const std::string &needle) {
  return haystack.find(needle) != std::string::npos;
}

const at::TensorOptions kMeta = at::TensorOptions().device(at::kMeta);

TEST(CheckModuleDevice, InputOnTheModulesDevicePasses) {
  torch::nn::Linear model(4, 2);
  const at::Tensor x = torch::zeros({3, 4});
  TORCHTIDY_CHECK_MODULE_DEVICE(model, x);             // ModuleHolder
  TORCHTIDY_CHECK_MODULE_DEVICE(*model, x);            // the module itself
  TORCHTIDY_CHECK_MODULE_DEVICE(model.ptr(), x);       // shared_ptr
  TORCHTIDY_CHECK_MODULE_DEVICE(model.ptr().get(), x); // raw pointer
}

TEST(CheckModuleDevice, InputElsewhereNamesTheParameter) {
  torch::nn::Linear model(4, 2);
  const at::Tensor batch = torch::empty({3, 4}, kMeta);
  int line = 0;
  try {
    line = __LINE__ + 1;
    TORCHTIDY_CHECK_MODULE_DEVICE(model, batch);
    FAIL() << "input on another device accepted";
  } catch (const DeviceMismatchError &e) {
    EXPECT_EQ(e.site().line, line);
    EXPECT_TRUE(contains(
        e.msg(), "TORCHTIDY_CHECK_MODULE_DEVICE(model, batch) failed at " +
                     std::string(__FILE__) + ":" + std::to_string(line)))
        << e.msg();
    EXPECT_TRUE(contains(e.msg(),
                         "`batch` is on meta but the parameters of `model` "
                         "are on cpu (`weight`)"))
        << e.msg();
  }
}

struct OnMeta : torch::nn::Module {
  OnMeta() { w = register_parameter("w", torch::empty({2, 2}, kMeta)); }
  at::Tensor w;
};

TEST(CheckModuleDevice, ModuleElsewhere) {
  auto model = std::make_shared<OnMeta>();
  EXPECT_THROW(TORCHTIDY_CHECK_MODULE_DEVICE(model, torch::zeros({1, 2})),
               DeviceMismatchError);
  TORCHTIDY_CHECK_MODULE_DEVICE(model, torch::empty({1, 2}, kMeta));
}

struct Split : torch::nn::Module {
  Split() {
    a = register_parameter("a", torch::zeros({2}));
    b = register_parameter("b", torch::empty({2}, kMeta));
  }
  at::Tensor a, b;
};

TEST(CheckModuleDevice, ParametersOnTwoDevicesAreReported) {
  Split split;
  try {
    TORCHTIDY_CHECK_MODULE_DEVICE(split, torch::zeros({1}));
    FAIL() << "split module accepted";
  } catch (const DeviceMismatchError &e) {
    EXPECT_TRUE(contains(
        e.msg(),
        "are on more than one device: `a` is on cpu but `b` is on meta"))
        << e.msg();
  }
}

struct Stats : torch::nn::Module {
  Stats() { mean = register_buffer("mean", torch::empty({2}, kMeta)); }
  at::Tensor mean;
};
struct Stateless : torch::nn::Module {};

TEST(CheckModuleDevice, BuffersPlaceAParameterlessModule) {
  Stats stats;
  EXPECT_THROW(TORCHTIDY_CHECK_MODULE_DEVICE(stats, torch::zeros({1})),
               DeviceMismatchError);
  Stateless none;
  TORCHTIDY_CHECK_MODULE_DEVICE(none, torch::empty({1}, kMeta));
}

TEST(CheckOnCpu, DatasetExamples) {
  torch::data::Example<> ok(torch::zeros({2}), torch::zeros({1}));
  TORCHTIDY_CHECK_ON_CPU(ok);
  torch::data::Example<> bad(torch::zeros({2}), torch::empty({1}, kMeta));
  try {
    TORCHTIDY_CHECK_ON_CPU(bad);
    FAIL() << "target on meta accepted";
  } catch (const DeviceMismatchError &e) {
    EXPECT_TRUE(
        contains(e.msg(), "`bad.target` is on meta but must be on the CPU"))
        << e.msg();
  }
  torch::data::TensorExample unsupervised(torch::empty({2}, kMeta));
  EXPECT_THROW(TORCHTIDY_CHECK_ON_CPU(unsupervised), DeviceMismatchError);
}

} // namespace
