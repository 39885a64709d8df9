//===--- KernelLaunchesTest.cpp - custom CUDA kernel launches -------------===//

#include "torchtidy/analysis/KernelLaunches.h"
#include "ASTFixture.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;
using namespace torchtidy;
using torchtidy::test::withMockPCH;

namespace {

/// Parses \p Code as the host side of a `.cu` file, after the mock LibTorch
/// and CUDA headers.
std::unique_ptr<ASTUnit> parseCuda(const std::string &Code, bool Torch = true) {
  const std::string Source =
      std::string(Torch ? "#include <torch/torch.h>\n"
                          "#include <ATen/cuda/CUDAContext.h>\n"
                        : "#include <cuda_runtime.h>\n") +
      "__global__ void k(float *p, int n) {}\n"
      "__global__ void k2(const float *a, float *b) {}\n" +
      Code;
  const std::vector<std::string> Flags = {"-std=c++17",
                                          "-isystem",
                                          TORCHTIDY_MOCK_TORCH_DIR,
                                          "-nocudainc",
                                          "-nocudalib",
                                          "--cuda-host-only",
                                          "--cuda-gpu-arch=sm_80",
                                          "-Wno-unknown-cuda-version"};
  // Without LibTorch the snippet must not see the mock at all.
  auto AST = tooling::buildASTFromCodeWithArgs(
      Source, Torch ? withMockPCH("cuda", Flags) : Flags, "input.cu");
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred()) << Code;
  return AST;
}

/// The launches of every function of the snippet, in source order.
std::vector<KernelLaunchSite> launchesIn(ASTUnit &AST,
                                         KernelLaunchConfig Config = {}) {
  KernelLaunchAnalysis A(AST.getASTContext(), std::move(Config));
  std::vector<KernelLaunchSite> Out;
  forEachUserFunction(AST.getASTContext(), [&](const FunctionDecl *FD) {
    for (const KernelLaunchSite &S : A.launches(FD))
      Out.push_back(S);
  });
  std::sort(Out.begin(), Out.end(), [&](const auto &X, const auto &Y) {
    return AST.getSourceManager().isBeforeInTranslationUnit(
        X.Launch->getBeginLoc(), Y.Launch->getBeginLoc());
  });
  return Out;
}

std::vector<KernelArgIssue> issuesIn(ASTUnit &AST,
                                     KernelLaunchConfig Config = {}) {
  KernelLaunchAnalysis A(AST.getASTContext(), std::move(Config));
  std::vector<KernelArgIssue> Out;
  forEachUserFunction(AST.getASTContext(), [&](const FunctionDecl *FD) {
    for (const KernelArgIssue &I : A.argumentIssues(FD))
      Out.push_back(I);
  });
  return Out;
}

using After = KernelLaunchSite::After;

/// What follows the single launch of \p Body (a function body taking
/// `torch::Tensor x, cudaStream_t s`).
After followOf(const std::string &Body) {
  auto AST =
      parseCuda("void f(torch::Tensor x, cudaStream_t s) {\n" + Body + "\n}\n");
  auto L = launchesIn(*AST);
  EXPECT_FALSE(L.empty()) << Body;
  return L.empty() ? After::Unknown : L.front().Follow;
}

TEST(KernelLaunches, WhatFollows) {
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);"), After::Unchecked);
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                     "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Checked);
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                     "AT_CUDA_CHECK(cudaGetLastError());"),
            After::Checked);
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                     "auto e = cudaPeekAtLastError(); (void)e;"),
            After::Checked);
  // Reading the error and dropping it is no check.
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\ncudaGetLastError();"),
            After::Unchecked);
  EXPECT_EQ(
      followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n(void)cudaGetLastError();"),
      After::Unchecked);
  // Other launches in between share the check; other statements do not.
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                     "k<<<2, 1, 0, s>>>(nullptr, 0);\n"
                     "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Checked);
  EXPECT_EQ(followOf("k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                     "x.fill_(1);\nC10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Unchecked);
  // Out of branches, loops and the lambdas dispatch macros call.
  EXPECT_EQ(followOf("if (x.numel() > 4) { k<<<1, 1, 0, s>>>(nullptr, 0); }\n"
                     "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Checked);
  EXPECT_EQ(followOf("for (int i = 0; i < 3; ++i) {\n"
                     "  k<<<1, 1, 0, s>>>(nullptr, i);\n}\n"
                     "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Checked);
  EXPECT_EQ(
      followOf("AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), \"f\", [&] {\n"
               "  k<<<1, 1, 0, s>>>(nullptr, 0);\n});\n"
               "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
      After::Checked);
  EXPECT_EQ(
      followOf("AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), \"f\", [&] {\n"
               "  k<<<1, 1, 0, s>>>(nullptr, 0);\n});\nx.fill_(0);"),
      After::Unchecked);
  EXPECT_EQ(followOf("[&] { k<<<1, 1, 0, s>>>(nullptr, 0); }();\n"
                     "C10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Checked);
  // A lambda stored for later is not followed.
  EXPECT_EQ(followOf("auto run = [&] { k<<<1, 1, 0, s>>>(nullptr, 0); };\n"
                     "run();\nC10_CUDA_KERNEL_LAUNCH_CHECK();"),
            After::Unknown);
}

TEST(KernelLaunches, ConfiguredCheckMacro) {
  auto AST = parseCuda("#define MY_CHECK() do { } while (0)\n"
                       "void f(cudaStream_t s) {\n"
                       "  k<<<1, 1, 0, s>>>(nullptr, 0);\n  MY_CHECK();\n}\n");
  EXPECT_EQ(launchesIn(*AST).front().Follow, After::Unchecked);
  KernelLaunchConfig C;
  C.LaunchCheckMacros = {"MY_CHECK"};
  EXPECT_EQ(launchesIn(*AST, C).front().Follow, After::Checked);
}

TEST(KernelLaunches, Streams) {
  auto AST = parseCuda("void f(cudaStream_t s) {\n"
                       "  k<<<1, 1>>>(nullptr, 0);\n"
                       "  k<<<1, 1, 16>>>(nullptr, 0);\n"
                       "  k<<<1, 1, 0, 0>>>(nullptr, 0);\n"
                       "  k<<<1, 1, 0, cudaStreamPerThread>>>(nullptr, 0);\n"
                       "  k<<<1, 1, 0, s>>>(nullptr, 0);\n"
                       "  k<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>("
                       "nullptr, 0);\n}\n");
  auto L = launchesIn(*AST);
  ASSERT_EQ(L.size(), 6U);
  using S = KernelLaunchSite::StreamUse;
  EXPECT_EQ(L[0].Stream, S::Missing);
  EXPECT_EQ(L[0].WrittenConfigArgs, 2U);
  EXPECT_EQ(L[1].Stream, S::Missing);
  EXPECT_EQ(L[1].WrittenConfigArgs, 3U);
  EXPECT_EQ(L[2].Stream, S::NullConstant);
  EXPECT_EQ(L[3].Stream, S::NullConstant);
  EXPECT_EQ(L[4].Stream, S::Given);
  EXPECT_EQ(L[5].Stream, S::Given);
}

TEST(KernelLaunches, UsesLibTorch) {
  auto Torch = parseCuda("");
  EXPECT_TRUE(KernelLaunchAnalysis(Torch->getASTContext(), {}).usesLibTorch());
  auto Plain = parseCuda("", /*Torch=*/false);
  EXPECT_FALSE(KernelLaunchAnalysis(Plain->getASTContext(), {}).usesLibTorch());
}

/// The failure evidence of the single launch in `f(torch::Tensor x, int p,
/// cudaStream_t s) { <Body> }`.
LaunchFailure failureOf(const std::string &Body) {
  auto AST = parseCuda("void f(torch::Tensor x, int p, cudaStream_t s) {\n" +
                       Body + "\n}\n");
  auto L = launchesIn(*AST);
  EXPECT_EQ(L.size(), 1U) << Body;
  return L.empty() ? LaunchFailure{} : L.front().Failure;
}

TEST(KernelLaunches, EmptyGridEvidence) {
  using K = LaunchFailure::Kind;
  EXPECT_EQ(failureOf("int n = x.numel();\n"
                      "k<<<(n + 255) / 256, 256, 0, s>>>(nullptr, n);")
                .K,
            K::EmptyGrid);
  LaunchFailure F = failureOf("const int N = x.size(0), M = x.size(1);\n"
                              "const dim3 t(16, 16);\n"
                              "const dim3 b((N + t.x - 1) / t.x, M);\n"
                              "k<<<b, t, 0, s>>>(nullptr, 0);");
  EXPECT_EQ(F.K, K::EmptyGrid);
  EXPECT_EQ(F.Dim, 0U);
  ASSERT_TRUE(F.Via);
  EXPECT_EQ(F.Via->getName(), "N");
  EXPECT_EQ(failureOf("k<<<x.size(0) / 32, 32, 0, s>>>(nullptr, 0);").K,
            K::EmptyGrid);
  EXPECT_EQ(
      failureOf("k<<<dim3(1, x.sizes()[1]), 32, 0, s>>>(nullptr, 0);").Dim, 1U);
  // Never 0: a constant, at least one block, a size plus one, a parameter.
  EXPECT_EQ(failureOf("k<<<4, 256, 0, s>>>(nullptr, 0);").K, K::None);
  EXPECT_EQ(failureOf("int n = x.numel();\n"
                      "k<<<std::max((n + 255) / 256, 1), 256, 0, s>>>("
                      "nullptr, n);")
                .K,
            K::None);
  EXPECT_EQ(failureOf("k<<<x.numel() + 1, 256, 0, s>>>(nullptr, 0);").K,
            K::None);
  EXPECT_EQ(failureOf("k<<<(p + 255) / 256, 256, 0, s>>>(nullptr, 0);").K,
            K::None);
  // Empty input handled before the launch.
  EXPECT_EQ(failureOf("int n = x.numel();\nif (n == 0) return;\n"
                      "k<<<(n + 255) / 256, 256, 0, s>>>(nullptr, n);")
                .K,
            K::None);
  EXPECT_EQ(failureOf("if (x.numel() > 0)\n"
                      "  k<<<(x.numel() + 255) / 256, 256, 0, s>>>(nullptr, "
                      "0);")
                .K,
            K::None);
  EXPECT_EQ(failureOf("int n = x.numel();\nTORCH_CHECK(n >= 1);\n"
                      "k<<<(n + 255) / 256, 256, 0, s>>>(nullptr, n);")
                .K,
            K::None);
  // A test of another kind (a dimension's size) is no emptiness check.
  EXPECT_EQ(failureOf("int n = x.numel();\nTORCH_CHECK(x.dim() == 2);\n"
                      "k<<<(n + 255) / 256, 256, 0, s>>>(nullptr, n);")
                .K,
            K::EmptyGrid);
  // Constant configurations that never start.
  EXPECT_EQ(failureOf("k<<<0, 256, 0, s>>>(nullptr, 0);").K, K::ZeroGrid);
  F = failureOf("k<<<1, dim3(32, 64), 0, s>>>(nullptr, 0);");
  EXPECT_EQ(F.K, K::OversizedBlock);
  EXPECT_EQ(F.Threads, 2048U);
  EXPECT_EQ(failureOf("k<<<1, dim3(32, 32), 0, s>>>(nullptr, 0);").K, K::None);
}

/// The properties reported for the raw views in `f(torch::Tensor x,
/// cudaStream_t s) { <Body> }`, as "NotOnCuda:out" strings.
std::vector<std::string> issuesOf(const std::string &Body,
                                  KernelLaunchConfig Config = {}) {
  auto AST = parseCuda("void launch(float *p, int n, cudaStream_t s) {\n"
                       "  k<<<1, 1, 0, s>>>(p, n);\n}\n"
                       "void f(torch::Tensor x, cudaStream_t s) {\n" +
                       Body + "\n}\n");
  std::vector<std::string> Out;
  for (const KernelArgIssue &I : issuesIn(*AST, std::move(Config))) {
    const char *P = I.P == KernelArgIssue::NotOnCuda       ? "NotOnCuda"
                    : I.P == KernelArgIssue::NotContiguous ? "NotContiguous"
                                                           : "WrongDtype";
    std::string Name;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(I.Tensor->IgnoreImplicit()))
      Name = DRE->getDecl()->getNameAsString();
    Out.push_back(std::string(P) + (I.Evidence ? ":" : "?:") + Name +
                  (I.Detail.empty() ? "" : "=" + I.Detail) +
                  (I.Launcher ? "@" + I.Launcher->getNameAsString() : ""));
  }
  return Out;
}

using Strings = std::vector<std::string>;

TEST(KernelLaunches, ArgumentDevice) {
  EXPECT_EQ(issuesOf("auto o = torch::zeros({4});\n"
                     "k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);"),
            Strings{"NotOnCuda:o=given no device"});
  EXPECT_EQ(issuesOf("auto o = torch::zeros({4}, torch::kCPU);\n"
                     "k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);"),
            Strings{"NotOnCuda:o=on the CPU"});
  EXPECT_EQ(issuesOf("auto o = x.cpu();\nfloat *p = o.data_ptr<float>();\n"
                     "k<<<1, 1, 0, s>>>(p + 1, 4);"),
            Strings{"NotOnCuda:o=moved to the CPU"});
  EXPECT_EQ(issuesOf("auto o = x.to(torch::kCPU).contiguous();\n"
                     "k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);"),
            Strings{"NotOnCuda:o=moved to the CPU"});
  // Through a launcher of the file.
  EXPECT_EQ(issuesOf("auto o = torch::ones({4});\n"
                     "launch(o.data_ptr<float>(), 4, s);"),
            Strings{"NotOnCuda:o=given no device@launch"});
  // Proven or unknown: nothing.
  EXPECT_EQ(issuesOf("auto o = torch::zeros({4}).cuda();\n"
                     "auto a = torch::zeros({4}, x.options());\n"
                     "auto b = torch::empty_like(x);\n"
                     "auto c = torch::zeros({4}, torch::TensorOptions()"
                     ".device(torch::kCUDA));\n"
                     "k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);\n"
                     "k<<<1, 1, 0, s>>>(a.data_ptr<float>(), 4);\n"
                     "k<<<1, 1, 0, s>>>(b.data_ptr<float>(), 4);\n"
                     "k<<<1, 1, 0, s>>>(c.data_ptr<float>(), 4);\n"
                     "k<<<1, 1, 0, s>>>(x.data_ptr<float>(), 4);"),
            Strings{});
  // Reassigned: no single definition, no evidence.
  EXPECT_EQ(issuesOf("auto o = torch::zeros({4});\no = o.cuda();\n"
                     "k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);"),
            Strings{});
}

TEST(KernelLaunches, ArgumentGuards) {
  const std::string Cpu = "auto o = torch::zeros({4});\n";
  const std::string Launch = "\nk<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);";
  EXPECT_EQ(issuesOf(Cpu + "TORCH_CHECK(o.is_cuda());" + Launch), Strings{});
  EXPECT_EQ(issuesOf(Cpu + "TORCH_CHECK(o.device().is_cuda());" + Launch),
            Strings{});
  EXPECT_EQ(issuesOf(Cpu +
                     "TORCH_INTERNAL_ASSERT(o.device().type() == "
                     "c10::DeviceType::CUDA);" +
                     Launch),
            Strings{});
  EXPECT_EQ(issuesOf(Cpu + "if (!o.is_cuda()) throw 1;" + Launch), Strings{});
  EXPECT_EQ(issuesOf(Cpu + "if (o.is_cuda()) {" + Launch + "\n}"), Strings{});
  // A helper that checks its argument, and a macro that expands to a check.
  EXPECT_EQ(issuesOf("#define CHECK_CUDA(t) TORCH_CHECK(t.is_cuda(), #t)\n" +
                     Cpu + "CHECK_CUDA(o);" + Launch),
            Strings{});
  // Checked on another tensor, or after the launch: not a guard.
  EXPECT_EQ(issuesOf(Cpu + "TORCH_CHECK(x.is_cuda());" + Launch),
            Strings{"NotOnCuda:o=given no device"});
  EXPECT_EQ(issuesOf(Cpu + Launch + "\nTORCH_CHECK(o.is_cuda());"),
            Strings{"NotOnCuda:o=given no device"});
}

TEST(KernelLaunches, ArgumentContiguity) {
  EXPECT_EQ(issuesOf("auto t = x.transpose(0, 1);\n"
                     "k<<<1, 1, 0, s>>>(t.data_ptr<float>(), 4);"),
            Strings{"NotContiguous:t"});
  EXPECT_EQ(issuesOf("auto t = x.t();\nfloat *p = t.data_ptr<float>();\n"
                     "k<<<1, 1, 0, s>>>(p, 4);"),
            Strings{"NotContiguous:t"});
  EXPECT_EQ(issuesOf("auto t = x.permute({1, 0}).contiguous();\n"
                     "k<<<1, 1, 0, s>>>(t.data_ptr<float>(), 4);"),
            Strings{});
  EXPECT_EQ(issuesOf("auto t = x.transpose(0, 1);\n"
                     "TORCH_CHECK(t.is_contiguous());\n"
                     "k<<<1, 1, 0, s>>>(t.data_ptr<float>(), 4);"),
            Strings{});
}

TEST(KernelLaunches, ArgumentDtype) {
  EXPECT_EQ(issuesOf("auto i = torch::zeros({4}, x.options().dtype("
                     "torch::kLong));\n"
                     "k<<<1, 1, 0, s>>>((float *)i.data_ptr(), 4);"),
            Strings{"WrongDtype:i=Long"});
  EXPECT_EQ(issuesOf("auto i = x.to(torch::kDouble);\n"
                     "k<<<1, 1, 0, s>>>(i.data_ptr<float>(), 4);"),
            Strings{"WrongDtype:i=Double"});
  EXPECT_EQ(issuesOf("auto i = x.to(torch::kFloat);\n"
                     "k<<<1, 1, 0, s>>>(i.data_ptr<float>(), 4);"),
            Strings{});
}

TEST(KernelLaunches, UnprovenArguments) {
  KernelLaunchConfig C;
  C.ReportUnprovenArguments = true;
  EXPECT_EQ(issuesOf("k<<<1, 1, 0, s>>>(x.data_ptr<float>(), 4);", C),
            (Strings{"NotOnCuda?:x", "NotContiguous?:x"}));
  EXPECT_EQ(issuesOf("TORCH_CHECK(x.is_cuda() && x.is_contiguous());\n"
                     "k<<<1, 1, 0, s>>>(x.data_ptr<float>(), 4);",
                     C),
            Strings{});
  EXPECT_EQ(issuesOf("TORCH_CHECK(x.is_cuda());\nauto c = x.contiguous();\n"
                     "k<<<1, 1, 0, s>>>(c.data_ptr<float>(), 4);",
                     C),
            Strings{});
  EXPECT_EQ(issuesOf("TORCH_CHECK(x.is_cuda() && x.is_contiguous());\n"
                     "k<<<1, 1, 0, s>>>((float *)x.data_ptr(), 4);",
                     C),
            Strings{"WrongDtype?:x"});
}

TEST(KernelLaunches, Launchers) {
  auto AST = parseCuda(
      "void direct(float *p, int n, cudaStream_t s) { k<<<1, 1, 0, s>>>(p, n); "
      "}\n"
      "void twice(float *p, cudaStream_t s) { direct(p + 1, 4, s); }\n"
      "void not_launched(float *p) { *p = 0; }\n"
      "void declared(const float *a, float *b, cudaStream_t s);\n"
      "void declared_no_stream(float *a);\n");
  KernelLaunchAnalysis A(AST->getASTContext(), {});
  auto Find = [&](llvm::StringRef Name) {
    auto M = match(functionDecl(hasName(Name)).bind("f"), AST->getASTContext());
    return M.front().getNodeAs<FunctionDecl>("f");
  };
  const Expr *At = nullptr;
  EXPECT_TRUE(A.isLauncherParam(Find("direct"), 0, &At));
  EXPECT_TRUE(At);
  EXPECT_FALSE(A.isLauncherParam(Find("direct"), 1));
  EXPECT_TRUE(A.isLauncherParam(Find("twice"), 0));
  EXPECT_FALSE(A.isLauncherParam(Find("not_launched"), 0));
  EXPECT_TRUE(A.isLauncherParam(Find("declared"), 1));
  EXPECT_FALSE(A.isLauncherParam(Find("declared_no_stream"), 0));
}

TEST(KernelLaunches, ShimKernelArgCheckInBothBuilds) {
  // As lib/runtime's <torchtidy/check.h> defines it: a call with a Site
  // temporary (a full-expression with cleanups) in debug builds, an
  // unevaluated operand under NDEBUG.
  const std::string Debug =
      "struct Site { const char *file; int line; };\n"
      "void checkKernelArg(const at::Tensor &, c10::ScalarType, "
      "const Site &);\n"
      "#define TORCHTIDY_CHECK_KERNEL_ARG(t, d) "
      "checkKernelArg((t), (d), Site{__FILE__, __LINE__})\n";
  const std::string Release =
      "#define TORCHTIDY_CHECK_KERNEL_ARG(t, d) static_cast<void>(sizeof(("
      "static_cast<void>(t), static_cast<void>(d), 0)))\n";
  auto Body = [](bool Checked) {
    return std::string("void f(cudaStream_t s) {\n"
                       "  auto o = torch::zeros({4});\n") +
           (Checked ? "  TORCHTIDY_CHECK_KERNEL_ARG(o, torch::kFloat);\n"
                    : "") +
           "  k<<<1, 1, 0, s>>>(o.data_ptr<float>(), 4);\n}\n";
  };
  for (const std::string &Macro : {Debug, Release}) {
    auto Unchecked = parseCuda(Macro + Body(false));
    EXPECT_EQ(issuesIn(*Unchecked).size(), 1U) << Macro;
    auto Checked = parseCuda(Macro + Body(true));
    EXPECT_TRUE(issuesIn(*Checked).empty()) << Macro;
  }
}

} // namespace
