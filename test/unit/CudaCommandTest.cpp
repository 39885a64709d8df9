// How the driver turns the .cu entries of compile_commands.json into
// commands clang-tidy can parse (tools/driver/CudaCommand.h).
#include "CudaCommand.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace torchtidy::driver;

namespace {

using Args = std::vector<std::string>;

bool has(const Args &A, const std::string &S) {
  return std::find(A.begin(), A.end(), S) != A.end();
}
/// \p First comes right before \p Second somewhere in \p A.
bool hasPair(const Args &A, const std::string &First,
             const std::string &Second) {
  for (size_t I = 0; I + 1 < A.size(); ++I)
    if (A[I] == First && A[I + 1] == Second)
      return true;
  return false;
}

TEST(CudaCommand, RecognisesNvcc) {
  EXPECT_TRUE(isNvccCommand({"/usr/local/cuda/bin/nvcc", "-c", "a.cu"}));
  EXPECT_TRUE(isNvccCommand({"nvcc"}));
  EXPECT_FALSE(isNvccCommand({"/usr/bin/clang++", "-c", "a.cu"}));
  EXPECT_FALSE(isNvccCommand({}));
}

// A command as CMake's CUDA language writes it for nvcc, and one of
// torch.utils.cpp_extension.
TEST(CudaCommand, KeepsWhatNamesTheSourcesAndDropsCodeGeneration) {
  CudaParseOptions O;
  O.CompatInclude = "/compat";
  const Args Out =
      nvccToClang({"/usr/local/cuda/bin/nvcc",
                   "-forward-unknown-to-host-compiler",
                   "-DTORCH_EXTENSION_NAME=ext",
                   "-D",
                   "WITH_CUDA",
                   "-I/src/include",
                   "-I",
                   "/src/other",
                   "-isystem",
                   "/usr/include/torch/csrc/api/include",
                   "-isystem=/opt/x",
                   "-O3",
                   "-g",
                   "--expt-relaxed-constexpr",
                   "--generate-code=arch=compute_80,code=[compute_80,sm_80]",
                   "-gencode",
                   "arch=compute_75,code=sm_75",
                   "-Xcompiler=-fPIC,-DFROM_HOST=1",
                   "-Xcompiler",
                   "-Wall",
                   "--std=c++17",
                   "-x",
                   "cu",
                   "-c",
                   "/src/kernels.cu",
                   "-o",
                   "kernels.cu.o",
                   "-MD",
                   "-MT",
                   "kernels.cu.o",
                   "-MF",
                   "kernels.cu.o.d",
                   "--use_fast_math"},
                  O);
  ASSERT_FALSE(Out.empty());
  EXPECT_EQ(Out.front(), "clang++");
  for (const char *Flag :
       {"--cuda-host-only", "-nocudalib", "--no-cuda-version-check",
        "--cuda-path=/usr/local/cuda", "-DTORCH_EXTENSION_NAME=ext",
        "-DWITH_CUDA", "-I/src/include", "-DFROM_HOST=1", "-std=c++17",
        "-D__CUDA_NO_HALF_OPERATORS__", "/src/kernels.cu"})
    EXPECT_TRUE(has(Out, Flag)) << Flag;
  EXPECT_TRUE(hasPair(Out, "-x", "cuda"));
  EXPECT_TRUE(hasPair(Out, "-I", "/src/other"));
  EXPECT_TRUE(hasPair(Out, "-isystem", "/usr/include/torch/csrc/api/include"));
  EXPECT_TRUE(hasPair(Out, "-isystem", "/opt/x"));
  EXPECT_TRUE(hasPair(Out, "-isystem", "/compat"));
  EXPECT_TRUE(hasPair(Out, "-isystem", "/usr/local/cuda/include/cccl"));
  for (const char *Gone :
       {"-O3", "-g", "--expt-relaxed-constexpr", "-gencode",
        "arch=compute_75,code=sm_75", "-fPIC", "-Wall", "kernels.cu.o", "-MD",
        "--use_fast_math", "-forward-unknown-to-host-compiler", "cu"})
    EXPECT_FALSE(has(Out, Gone)) << Gone;
  // The stand-ins come before the project's system directories.
  const auto Compat = std::find(Out.begin(), Out.end(), "/compat");
  const auto Torch =
      std::find(Out.begin(), Out.end(), "/usr/include/torch/csrc/api/include");
  EXPECT_LT(Compat, Torch);
  EXPECT_EQ(std::count(Out.begin(), Out.end(), "/src/kernels.cu"), 1);
}

TEST(CudaCommand, DefaultStandardWhenNvccHasNone) {
  const Args Out = nvccToClang({"nvcc", "-c", "a.cu"}, CudaParseOptions{});
  EXPECT_TRUE(has(Out, "-std=c++17"));
  EXPECT_FALSE(hasPair(Out, "-isystem", ""));
}

TEST(CudaCommand, AdjusterRewritesNvccAndMakesClangCudaHostOnly) {
  auto Adjust = cudaArgumentsAdjuster(CudaParseOptions{});
  EXPECT_TRUE(has(Adjust({"nvcc", "-c", "a.cu"}, "a.cu"), "--cuda-host-only"));
  const Args Clang = Adjust({"clang++", "-x", "cuda", "-c", "a.cu"}, "a.cu");
  EXPECT_EQ(Clang,
            (Args{"clang++", "--cuda-host-only", "-x", "cuda", "-c", "a.cu"}));
  const Args Already = {"clang++", "--cuda-device-only", "-c", "a.cu"};
  EXPECT_EQ(Adjust(Already, "a.cu"), Already);
  const Args Cpp = {"clang++", "-c", "a.cpp"};
  EXPECT_EQ(Adjust(Cpp, "a.cpp"), Cpp);
}

TEST(CudaCommand, FindsTheSourceTreesStandIns) {
  const std::string Dir = findCudaCompatInclude("torch-tidy");
  EXPECT_NE(Dir.find("cuda-compat"), std::string::npos) << Dir;
}

} // namespace
