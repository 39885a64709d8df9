//===--- DriverTest.cpp - changed lines, shards and SARIF -----------------===//

#include "ChangedLines.h"
#include "ProjectRunner.h"
#include "Sarif.h"
#include "ThirdPartyIncludes.h"

#include "ClangTidyModule.h"
#include "torchtidy/analysis/LLVMCompat.h"
// The module registry's header moved between LLVM 19 and 22.
#include TORCHTIDY_TIDY_REGISTRY_HEADER

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace torchtidy::driver;

namespace {

/// A file system with LibTorch laid out as a pip wheel lays it out, Python's
/// headers, pybind11's, the CUDA toolkit's and a project of the user's.
llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> layouts() {
  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  const std::string Wheel = "/venv/lib/python3.11/site-packages/";
  const std::string Files[] = {
      Wheel + "torch/include/ATen/ATen.h",
      Wheel + "torch/include/c10/macros/Macros.h",
      Wheel + "torch/include/torch/csrc/api/include/torch/torch.h",
      Wheel + "torch/include/TH/TH.h",
      "/usr/include/python3.11/Python.h",
      "/usr/include/python3.11/pyconfig.h",
      Wheel + "pybind11/include/pybind11/pybind11.h",
      "/opt/cuda/include/cuda_runtime.h",
      "/work/project/include/model.h",
      "/work/project/third_party/ATen/ATen.h", // no c10: not LibTorch
  };
  for (const std::string &F : Files)
    FS->addFile(F, 0, llvm::MemoryBuffer::getMemBuffer(""));
  (void)FS->setCurrentWorkingDirectory("/work/project");
  return FS;
}

TEST(ThirdPartyIncludes, KnowsLibTorchPythonPybindAndCudaDirectories) {
  auto FS = layouts();
  const std::string Torch = "/venv/lib/python3.11/site-packages/torch/include";
  EXPECT_TRUE(isThirdPartyIncludeDir(*FS, Torch));
  EXPECT_TRUE(isThirdPartyIncludeDir(*FS, Torch + "/torch/csrc/api/include"));
  EXPECT_TRUE(isThirdPartyIncludeDir(*FS, Torch + "/TH"));
  EXPECT_TRUE(isThirdPartyIncludeDir(*FS, "/usr/include/python3.11"));
  EXPECT_TRUE(isThirdPartyIncludeDir(
      *FS, "/venv/lib/python3.11/site-packages/pybind11/include"));
  EXPECT_TRUE(isThirdPartyIncludeDir(*FS, "/opt/cuda/include"));
  EXPECT_FALSE(isThirdPartyIncludeDir(*FS, "/work/project/include"));
  EXPECT_FALSE(isThirdPartyIncludeDir(*FS, "include"));
  EXPECT_FALSE(isThirdPartyIncludeDir(*FS, "/work/project/third_party"));
  EXPECT_FALSE(isThirdPartyIncludeDir(*FS, "/nowhere"));
  // Relative to the working directory.
  EXPECT_TRUE(isThirdPartyIncludeDir(
      *FS, "../../venv/lib/python3.11/site-packages/torch/include"));
}

TEST(ThirdPartyIncludes, RewritesEachSpellingOfMinusI) {
  auto Adjust = thirdPartyIncludesAdjuster(layouts());
  const std::string Torch = "/venv/lib/python3.11/site-packages/torch/include";
  const std::string Api = Torch + "/torch/csrc/api/include";
  const clang::tooling::CommandLineArguments In = {
      "c++",
      "-Iinclude",
      "-I" + Torch,
      "-I",
      Api,
      "-DX=1",
      "--include-directory=/usr/include/python3.11",
      "--include-directory",
      "/opt/cuda/include",
      "-I",
      "include",
      "-c",
      "model.cpp"};
  const clang::tooling::CommandLineArguments Want = {"c++",
                                                     "-Iinclude",
                                                     "-isystem",
                                                     Torch,
                                                     "-isystem",
                                                     Api,
                                                     "-DX=1",
                                                     "-isystem",
                                                     "/usr/include/python3.11",
                                                     "-isystem",
                                                     "/opt/cuda/include",
                                                     "-I",
                                                     "include",
                                                     "-c",
                                                     "model.cpp"};
  EXPECT_EQ(Adjust(In, "model.cpp"), Want);
  // A trailing -I with no directory is left for the compiler to reject.
  const clang::tooling::CommandLineArguments Trailing = {"c++", "-c", "a.cpp",
                                                         "-I"};
  EXPECT_EQ(Adjust(Trailing, "a.cpp"), Trailing);
}

TEST(ChangedLines, ParsesGitDiffU0) {
  const char *Diff = R"(diff --git a/src/model.cpp b/src/model.cpp
index 1111111..2222222 100644
--- a/src/model.cpp
+++ b/src/model.cpp
@@ -10,0 +11,2 @@ struct NetImpl
+  fc2 = torch::nn::Linear(8, 2);
+  mask = torch::ones({3});
@@ -20 +22 @@ void f()
-  old();
+  new_();
@@ -30,3 +31,0 @@ void g()
-  a();
-  b();
-  c();
diff --git a/gone.cpp b/gone.cpp
deleted file mode 100644
--- a/gone.cpp
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
)";
  auto Parsed = parseUnifiedDiff(Diff);
  ASSERT_TRUE(bool(Parsed)) << llvm::toString(Parsed.takeError());
  ASSERT_EQ(Parsed->size(), 1U);
  const auto &Ranges = Parsed->at("src/model.cpp");
  ASSERT_EQ(Ranges.size(), 2U);
  EXPECT_EQ(Ranges[0], std::make_pair(11U, 12U));
  EXPECT_EQ(Ranges[1], std::make_pair(22U, 22U));
  EXPECT_EQ(lineFilterJSON(*Parsed),
            R"([{"lines":[[11,12],[22,22]],"name":"src/model.cpp"}])");
  EXPECT_TRUE(isChangedFile(*Parsed, "/repo/src/model.cpp"));
  EXPECT_TRUE(isChangedFile(*Parsed, "src/model.cpp"));
  EXPECT_FALSE(isChangedFile(*Parsed, "/repo/other/src/model.cpp.bak"));
  EXPECT_FALSE(isChangedFile(*Parsed, "/repo/xsrc/model.cpp"));
}

TEST(ChangedLines, RejectsWhatIsNotADiff) {
  auto Parsed = parseUnifiedDiff("this is not a diff\n");
  ASSERT_FALSE(bool(Parsed));
  EXPECT_NE(llvm::toString(Parsed.takeError()).find("not a unified diff"),
            std::string::npos);
  auto Bad = parseUnifiedDiff("+++ b/x.cpp\n@@ -1 +zz @@\n");
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("malformed hunk header"),
            std::string::npos);
  auto Empty = parseUnifiedDiff("");
  ASSERT_TRUE(bool(Empty));
  EXPECT_TRUE(Empty->empty());
}

TEST(Shards, EveryFileInExactlyOneShard) {
  std::vector<std::string> Files;
  Files.reserve(10);
  for (int I = 0; I < 10; ++I)
    Files.push_back("f" + std::to_string(I) + ".cpp");
  std::vector<std::string> Seen;
  for (unsigned S = 1; S <= 3; ++S) {
    auto Part = selectShard(Files, S, 3);
    EXPECT_GE(Part.size(), 3U);
    EXPECT_LE(Part.size(), 4U);
    Seen.insert(Seen.end(), Part.begin(), Part.end());
  }
  std::sort(Seen.begin(), Seen.end());
  auto Sorted = Files;
  std::sort(Sorted.begin(), Sorted.end());
  EXPECT_EQ(Seen, Sorted);
  EXPECT_EQ(selectShard(Files, 1, 1), Files);
}

TEST(Sarif, RulesResultsNotesAndFixes) {
  llvm::SmallString<128> Path;
  int FD = 0;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("sarif", "cpp", FD, Path));
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "struct A {\n  int x;\n  \xc3\xa9t = 1;\n};\n";
  }
  clang::tooling::Diagnostic D;
  D.DiagnosticName = "libtorch-unregistered-buffer";
  D.DiagLevel = clang::tooling::Diagnostic::Warning;
  D.Message.Message = "tensor member 'x' is never registered";
  D.Message.FilePath = std::string(Path);
  D.Message.FileOffset = 17; // line 2, column 7
  clang::tooling::DiagnosticMessage Note;
  Note.Message = "'x' is assigned here";
  Note.FilePath = std::string(Path);
  Note.FileOffset = 24; // line 3, code point 4 (byte 5): after "  é"
  D.Notes.push_back(Note);
  llvm::cantFail(
      D.Message.Fix[std::string(Path)].add(clang::tooling::Replacement(
          std::string(Path), 13, 0, std::string("register_buffer(\"x\", "))));
  clang::tooling::Diagnostic Other = D;
  Other.DiagnosticName = "bugprone-use-after-move";
  Other.Message.Fix.clear();
  Other.Notes.clear();

  SarifOptions O;
  O.LibTorchDocsBase = "https://example.org/docs/checks/";
  llvm::json::Value Log = buildSarif({D, Other, D}, O);
  std::string Text;
  llvm::raw_string_ostream(Text) << Log;
  llvm::json::Object *Run =
      Log.getAsObject()->getArray("runs")->front().getAsObject();
  const auto *Rules =
      Run->getObject("tool")->getObject("driver")->getArray("rules");
  ASSERT_EQ(Rules->size(), 2U) << Text;
  EXPECT_EQ(*(*Rules)[0].getAsObject()->getString("helpUri"),
            "https://example.org/docs/checks/unregistered-buffer.md");
  EXPECT_EQ(*(*Rules)[1].getAsObject()->getString("helpUri"),
            "https://clang.llvm.org/extra/clang-tidy/checks/bugprone/"
            "use-after-move.html");
  const auto *Results = Run->getArray("results");
  ASSERT_EQ(Results->size(), 3U);
  const auto *R0 = (*Results)[0].getAsObject();
  EXPECT_EQ(*R0->getInteger("ruleIndex"), 0);
  EXPECT_EQ(*(*Results)[1].getAsObject()->getInteger("ruleIndex"), 1);
  const auto *Region = R0->getArray("locations")
                           ->front()
                           .getAsObject()
                           ->getObject("physicalLocation")
                           ->getObject("region");
  EXPECT_EQ(*Region->getInteger("startLine"), 2);
  EXPECT_EQ(*Region->getInteger("startColumn"), 7);
  const auto *NoteRegion = R0->getArray("relatedLocations")
                               ->front()
                               .getAsObject()
                               ->getObject("physicalLocation")
                               ->getObject("region");
  EXPECT_EQ(*NoteRegion->getInteger("startLine"), 3);
  EXPECT_EQ(*NoteRegion->getInteger("startColumn"), 4);
  EXPECT_NE(
      Text.find(
          "\"insertedContent\":{\"text\":\"register_buffer(\\\"x\\\", \"}"),
      std::string::npos)
      << Text;
  EXPECT_EQ((*Results)[1].getAsObject()->get("fixes"), nullptr);
  (void)llvm::sys::fs::remove(Path);
}

} // namespace

namespace clang::tidy {
extern volatile int LibTorchModuleAnchorSource;
[[maybe_unused]] static int LibTorchModuleAnchorDestination =
    LibTorchModuleAnchorSource;
} // namespace clang::tidy

namespace {
// Every check the module registers has its summary in the SARIF rules: a
// check added without one would give code scanning an empty help text.
TEST(Sarif, EveryLibTorchCheckHasASummary) {
  unsigned Checks = 0;
  for (const auto &Entry : clang::tidy::ClangTidyModuleRegistry::entries()) {
    if (Entry.getName() != "libtorch-module")
      continue;
    clang::tidy::ClangTidyCheckFactories Factories;
    Entry.instantiate()->addCheckFactories(Factories);
    for (const auto &Factory : Factories) {
      ++Checks;
      EXPECT_FALSE(libtorchCheckSummary(Factory.getKey()).empty())
          << Factory.getKey().str();
    }
  }
  EXPECT_GE(Checks, 4U);
  EXPECT_TRUE(libtorchCheckSummary("bugprone-use-after-move").empty());
}
} // namespace
