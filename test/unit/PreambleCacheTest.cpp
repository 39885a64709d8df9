//===--- PreambleCacheTest.cpp - preamble scanning and cache manifests ----===//

#include "PreambleCache.h"

#include "llvm/Support/VirtualFileSystem.h"
#include "gtest/gtest.h"

#include <map>

using namespace torchtidy::driver;

namespace {

std::string names(const LeadingIncludes &L) {
  std::string S;
  for (const LeadingInclude &I : L.Includes)
    S += (I.Angled ? "<" : "\"") + I.Name + (I.Angled ? ">" : "\"") + " ";
  return S;
}

TEST(PreambleScan, ReadsIncludesThroughCommentsAndBlankLines) {
  const LeadingIncludes L = scanLeadingIncludes(R"(// Copyright
/* a block
   comment */
#include <torch/torch.h>

#  include   <vector>  // why
#include "model.h"
int x;
#include <map>
)");
  EXPECT_EQ(names(L), "<torch/torch.h> <vector> \"model.h\" ");
  EXPECT_FALSE(L.Complete);
}

TEST(PreambleScan, StopsAtTheFirstMacroConditionalOrContinuation) {
  EXPECT_EQ(
      names(scanLeadingIncludes("#include <a>\n#define X 1\n#include <b>\n")),
      "<a> ");
  EXPECT_EQ(names(scanLeadingIncludes(
                "#include <a>\n#ifdef X\n#include <b>\n#endif\n")),
            "<a> ");
  EXPECT_EQ(names(scanLeadingIncludes("#include <a> \\\n  <b>\n")), "");
  EXPECT_EQ(names(scanLeadingIncludes("#include <a> /* x */ int y;\n")), "");
  // A line comment continued by a backslash hides its next line, whatever
  // that line holds; the includes after it still count.
  EXPECT_EQ(names(scanLeadingIncludes(
                "// RUN: a \\\n// RUN: b \\\n#include <x>\n#include <a>\n")),
            "<a> ");
  EXPECT_EQ(names(scanLeadingIncludes("// c \\\nint y;\n#include <a>\n")),
            "<a> ");
  EXPECT_EQ(names(scanLeadingIncludes("#include <a>\n// c \\\n#define X\n"
                                      "#include <b>\n")),
            "<a> <b> ");
  EXPECT_EQ(names(scanLeadingIncludes("#include MACRO_HEADER\n")), "");
  EXPECT_EQ(names(scanLeadingIncludes("int main() {}\n#include <a>\n")), "");
  EXPECT_EQ(names(scanLeadingIncludes("/* never closed\n#include <a>\n")), "");
}

TEST(PreambleScan, HeaderWithGuardOrPragmaOnceIsReadThrough) {
  const LeadingIncludes Guarded = scanLeadingIncludes(
      "#ifndef M_H\n#define M_H\n#include <a>\n#include <b>\n#endif // M_H\n");
  EXPECT_EQ(names(Guarded), "<a> <b> ");
  EXPECT_TRUE(Guarded.Complete);
  const LeadingIncludes Once =
      scanLeadingIncludes("#pragma once\n#include <a>\n");
  EXPECT_TRUE(Once.Complete);
  // A guard with code inside ends the preamble at the code.
  const LeadingIncludes Code = scanLeadingIncludes(
      "#ifndef M_H\n#define M_H\n#include <a>\nstruct S;\n#endif\n");
  EXPECT_EQ(names(Code), "<a> ");
  EXPECT_FALSE(Code.Complete);
  // `#ifndef` that is not a guard (no matching #define) is a conditional.
  EXPECT_EQ(names(scanLeadingIncludes("#ifndef A\n#include <a>\n#endif\n")),
            "");
}

TEST(SystemPreamble, FollowsQuotedIncludesIntoHeaders) {
  std::map<std::string, std::string> Files = {
      {"/p/src/model.h", "#pragma once\n#include <torch/torch.h>\nstruct M;\n"},
      {"/p/include/util.h", "#pragma once\n#include <vector>\n"},
      {"/p/include/all.h",
       "#pragma once\n#include \"util.h\"\n#include <map>\n"},
  };
  auto Read = [&](llvm::StringRef P) -> std::optional<std::string> {
    auto It = Files.find(P.str());
    if (It == Files.end())
      return std::nullopt;
    return It->second;
  };
  // model.h's preamble ends at its code: nothing after it in main.cpp.
  EXPECT_EQ(systemPreamble("/p/src/main.cpp",
                           "#include \"model.h\"\n#include <iostream>\n",
                           {"/p/include"}, Read),
            "#include <torch/torch.h>\n");
  // Headers of includes only are read through, in the compiler's order;
  // util.h is found through the quote directories.
  EXPECT_EQ(
      systemPreamble(
          "/p/src/b.cpp",
          "#include <cstdio>\n#include \"all.h\"\n#include <set>\nint x;\n",
          {"/p/include"}, Read),
      "#include <cstdio>\n#include <vector>\n#include <map>\n#include <set>\n");
  // A header that cannot be found ends the preamble.
  EXPECT_EQ(systemPreamble("/p/src/c.cpp",
                           "#include <a>\n#include \"nope.h\"\n#include <b>\n",
                           {"/p/include"}, Read),
            "#include <a>\n");
  // A header seen before is not read again (an include cycle ends).
  Files["/p/include/cyc.h"] =
      "#pragma once\n#include \"cyc.h\"\n#include <c>\n";
  EXPECT_EQ(systemPreamble("/p/src/d.cpp", "#include \"cyc.h\"\n",
                           {"/p/include"}, Read),
            "#include <c>\n");
}

TEST(PreambleScan, PrecompiledPartLeavesOutTheStandardHeadersAtItsEnd) {
  EXPECT_EQ(precompiledPart("#include <torch/torch.h>\n#include <string>\n"
                            "#include <vector>\n"),
            "#include <torch/torch.h>\n");
  // A library or C header after LibTorch stays; so do the standard headers
  // before it.
  EXPECT_EQ(precompiledPart("#include <vector>\n#include <torch/torch.h>\n"
                            "#include <opencv2/opencv.hpp>\n#include <map>\n"),
            "#include <vector>\n#include <torch/torch.h>\n"
            "#include <opencv2/opencv.hpp>\n");
  EXPECT_EQ(precompiledPart("#include <torch/torch.h>\n#include <math.h>\n"),
            "#include <torch/torch.h>\n#include <math.h>\n");
  // Standard headers alone: the first stays.
  EXPECT_EQ(precompiledPart("#include <vector>\n#include <map>\n"),
            "#include <vector>\n");
  EXPECT_EQ(precompiledPart("#include <torch/torch.h>\n#include <map>"),
            "#include <torch/torch.h>\n");
  EXPECT_EQ(precompiledPart(""), "");
}

TEST(PreambleManifest, RoundTripsAndRejectsGarbage) {
  PreambleManifest M;
  M.Status = PreambleManifest::Usable;
  M.Inputs.push_back({"/usr/include/a b.h", 12, 1700000000123456789});
  M.Inputs.push_back({"/c/x.pch", 99, 5});
  std::optional<PreambleManifest> Back = PreambleManifest::parse(M.serialize());
  ASSERT_TRUE(Back);
  EXPECT_EQ(Back->Status, PreambleManifest::Usable);
  ASSERT_EQ(Back->Inputs.size(), 2U);
  EXPECT_EQ(Back->Inputs[0].Path, "/usr/include/a b.h");
  EXPECT_EQ(Back->Inputs[0].MTime, 1700000000123456789);
  EXPECT_EQ(Back->Inputs[1].Size, 99U);
  for (const auto Status :
       {PreambleManifest::Failed, PreambleManifest::ReadsUserHeaders,
        PreambleManifest::NotReincludable}) {
    M.Status = Status;
    Back = PreambleManifest::parse(M.serialize());
    ASSERT_TRUE(Back);
    EXPECT_EQ(Back->Status, Status);
  }
  EXPECT_FALSE(PreambleManifest::parse(""));
  EXPECT_FALSE(
      PreambleManifest::parse("torch-tidy-preamble 3\nstatus maybe\n"));
  EXPECT_FALSE(PreambleManifest::parse(
      "torch-tidy-preamble 3\nstatus usable\ninput x 1 /a\n"));
  // Entries of an older format are not used: 1's PCHs carry the headers'
  // vtable uses, 2's were served without the probe for headers that
  // cannot be included again.
  EXPECT_FALSE(
      PreambleManifest::parse("torch-tidy-preamble 1\nstatus usable\n"));
  EXPECT_FALSE(
      PreambleManifest::parse("torch-tidy-preamble 2\nstatus usable\n"));
  EXPECT_TRUE(
      PreambleManifest::parse("torch-tidy-preamble 3\nstatus usable\n"));
}

TEST(PreambleManifest, StaleWhenAnInputChangesOrGoes) {
  const llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> FS(
      new llvm::vfs::InMemoryFileSystem);
  FS->addFile("/h/a.h", 100, llvm::MemoryBuffer::getMemBuffer("int a;"));
  FS->addFile("/h/b.h", 100, llvm::MemoryBuffer::getMemBuffer("int b;"));
  PreambleManifest M;
  M.Status = PreambleManifest::Usable;
  for (const char *P : {"/h/a.h", "/h/b.h"}) {
    PreambleManifest::Input In;
    ASSERT_TRUE(statInput(*FS, P, In));
    M.Inputs.push_back(In);
  }
  EXPECT_TRUE(M.upToDate(*FS));
  PreambleManifest Grown = M;
  Grown.Inputs[1].Size += 1;
  EXPECT_FALSE(Grown.upToDate(*FS));
  PreambleManifest Touched = M;
  Touched.Inputs[0].MTime -= 1;
  EXPECT_FALSE(Touched.upToDate(*FS));
  PreambleManifest Gone = M;
  Gone.Inputs.push_back({"/h/deleted.h", 1, 1});
  EXPECT_FALSE(Gone.upToDate(*FS));
}

TEST(PreambleCacheKey, DependsOnFlagsDirectoryIncludesAndBodies) {
  const std::vector<std::string> Flags = {"clang++", "-std=c++17", "-isystem",
                                          "/t"};
  const std::string K = PreambleCache::key(Flags, "/w", "#include <a>\n");
  EXPECT_EQ(K.size(), 40U);
  EXPECT_EQ(K, PreambleCache::key(Flags, "/w", "#include <a>\n"));
  EXPECT_NE(K, PreambleCache::key(Flags, "/w2", "#include <a>\n"));
  EXPECT_NE(K, PreambleCache::key(Flags, "/w", "#include <b>\n"));
  std::vector<std::string> More = Flags;
  More.emplace_back("-DX");
  EXPECT_NE(K, PreambleCache::key(More, "/w", "#include <a>\n"));
  // Argument boundaries count: "-I" "x" is not "-Ix".
  EXPECT_NE(PreambleCache::key({"-I", "x"}, "/w", ""),
            PreambleCache::key({"-Ix"}, "/w", ""));
  // A PCH without the headers' skippable bodies is another entry.
  EXPECT_EQ(K, PreambleCache::key(Flags, "/w", "#include <a>\n",
                                  /*SkipLibraryBodies=*/false));
  EXPECT_NE(K, PreambleCache::key(Flags, "/w", "#include <a>\n",
                                  /*SkipLibraryBodies=*/true));
}

TEST(PreambleCache, ParsesWithoutThePCHOnlyWhileABuildHasJustBegun) {
  // A build of 15 s on record: a file met in its first 5 s is parsed
  // without the PCH (which takes about as long as the rest of the build),
  // one met later waits for it.
  EXPECT_TRUE(PreambleCache::parseInsteadOfWaiting(0.5, 15));
  EXPECT_TRUE(PreambleCache::parseInsteadOfWaiting(4.9, 15));
  EXPECT_FALSE(PreambleCache::parseInsteadOfWaiting(5.1, 15));
  EXPECT_FALSE(PreambleCache::parseInsteadOfWaiting(12, 15));
  // No build on record: the first seconds of a build.
  EXPECT_TRUE(PreambleCache::parseInsteadOfWaiting(1, 0));
  EXPECT_FALSE(PreambleCache::parseInsteadOfWaiting(6, 0));
}

TEST(PreambleCache, BuildsOnlyWithRoomForAPCH) {
  // clang ends the process when it cannot write a PCH: with less than
  // MinFreeBytes free the file is parsed without one.
  EXPECT_FALSE(PreambleCache::roomToBuild(0));
  EXPECT_FALSE(PreambleCache::roomToBuild(uint64_t{20} << 20));
  EXPECT_FALSE(PreambleCache::roomToBuild(PreambleCache::MinFreeBytes - 1));
  EXPECT_TRUE(PreambleCache::roomToBuild(PreambleCache::MinFreeBytes));
  EXPECT_TRUE(PreambleCache::roomToBuild(uint64_t{64} << 30));
}

} // namespace
