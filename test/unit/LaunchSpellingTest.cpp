#include "LaunchSpelling.h"

#include "llvm/Support/VirtualFileSystem.h"
#include "gtest/gtest.h"

using torchtidy::driver::isCudaSourceName;
using torchtidy::driver::launchRespellingFileSystem;
using torchtidy::driver::respellSpacedLaunches;

namespace {

std::string respelled(llvm::StringRef Text) {
  return respellSpacedLaunches(Text).value_or("(unchanged)");
}

TEST(LaunchSpelling, RespellsSpacedBracketsInPlace) {
  EXPECT_EQ(respelled("k << <g, b >> > (x);"), "k <<< g, b >>>  (x);");
  EXPECT_EQ(respelled("k < << g, b > >> (x);"), "k <<<  g, b >>>  (x);");
  EXPECT_EQ(respelled("k < < < g, b > > > (x);"), "k <<<   g, b >>>   (x);");
  // Any whitespace between the brackets.
  EXPECT_EQ(respelled("k <<  <g, b >>\t> (x);"), "k <<<  g, b >>>\t (x);");
  // One side spaced, the other not.
  EXPECT_EQ(respelled("k << <g, b>>>(x);"), "k <<< g, b>>>(x);");
  // Lines stay where they were.
  EXPECT_EQ(respelled("k <<\n<g,\n b >>\n> (x);"), "k <<<\ng,\n b >>>\n (x);");
  // Brackets of templates and calls inside the configuration.
  EXPECT_EQ(respelled("k<T> << <std::min<int>(n, 256), f(a >> 1) >> > (x);"),
            "k<T> <<< std::min<int>(n, 256), f(a >> 1) >>>  (x);");
  // Two launches.
  EXPECT_EQ(respelled("a << <1, 1 >> > (); b << <2, 2 >> > ();"),
            "a <<< 1, 1 >>>  (); b <<< 2, 2 >>>  ();");
}

TEST(LaunchSpelling, LeavesWhatIsNoSpacedLaunch) {
  EXPECT_FALSE(respellSpacedLaunches("k<<<g, b>>>(x);"));
  EXPECT_FALSE(respellSpacedLaunches("int x = a << b;"));
  // A specialization of operator<<.
  EXPECT_FALSE(respellSpacedLaunches("int y = operator<< <int>(s, 2);"));
  // Comments and literals are not read.
  EXPECT_FALSE(respellSpacedLaunches("// k << <g, b >> > (x);\n"));
  EXPECT_FALSE(respellSpacedLaunches("const char *s = \"k << <g >> >\";"));
  // No end of the configuration before the statement ends.
  EXPECT_FALSE(respellSpacedLaunches("k << <g, b; >> > (x);"));
  // Brackets apart by more than whitespace.
  EXPECT_FALSE(respellSpacedLaunches("k << /*c*/ <g, b >> > (x);"));
}

TEST(LaunchSpelling, CudaNames) {
  EXPECT_TRUE(isCudaSourceName("/p/kernels.cu"));
  EXPECT_TRUE(isCudaSourceName("k.CUH"));
  EXPECT_FALSE(isCudaSourceName("/p/model.cpp"));
  EXPECT_FALSE(isCudaSourceName("/p/cu"));
}

TEST(LaunchSpelling, FileSystemRespellsCudaFilesOnly) {
  auto Mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  const std::string Launch = "void f() { k << <1, 1 >> > (); }\n";
  Mem->addFile("/p/a.cu", 0, llvm::MemoryBuffer::getMemBuffer(Launch));
  Mem->addFile("/p/a.cpp", 0, llvm::MemoryBuffer::getMemBuffer(Launch));
  auto FS = launchRespellingFileSystem(Mem);
  auto Cu = FS->getBufferForFile("/p/a.cu");
  ASSERT_TRUE(Cu);
  EXPECT_EQ((*Cu)->getBuffer(), "void f() { k <<< 1, 1 >>>  (); }\n");
  auto Status = FS->status("/p/a.cu");
  ASSERT_TRUE(Status);
  EXPECT_EQ(Status->getSize(), Launch.size());
  auto Cpp = FS->getBufferForFile("/p/a.cpp");
  ASSERT_TRUE(Cpp);
  EXPECT_EQ((*Cpp)->getBuffer(), Launch);
}

} // namespace
