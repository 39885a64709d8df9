//===--- ResultsCacheTest.cpp - keys, entries, replays, eviction ----------===//

#include "ResultsCache.h"
#include "CacheDirectory.h"
#include "RunSummary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <chrono>

using namespace torchtidy::driver;
using clang::tidy::ClangTidyError;

namespace {

/// A scratch directory, removed at the end of the test.
class ScratchDir {
public:
  ScratchDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("results-test", Path));
  }
  ~ScratchDir() { (void)llvm::sys::fs::remove_directories(Path); }
  std::string file(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }
  void write(llvm::StringRef Name, llvm::StringRef Text) const {
    std::error_code EC;
    llvm::raw_fd_ostream OS(file(Name), EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

private:
  llvm::SmallString<128> Path;
};

void setTime(const std::string &Path, std::chrono::system_clock::time_point T) {
  int FD = 0;
  ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
      Path, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
  ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(FD, T));
  (void)llvm::sys::Process::SafelyCloseFileDescriptor(FD);
}

ClangTidyError sampleError() {
  ClangTidyError E("libtorch-unregistered-buffer", ClangTidyError::Warning,
                   "/build", /*IsWarningAsError=*/true);
  E.Message.Message = "tensor member 'w' is never registered";
  E.Message.FilePath = "/src/a.cpp";
  E.Message.FileOffset = 42;
  clang::tooling::FileByteRange R;
  R.FilePath = "/src/a.cpp";
  R.FileOffset = 40;
  R.Length = 3;
  E.Message.Ranges.push_back(R);
  // A fix-it over several files: their order is the StringMap's, which the
  // printer and the exporter follow, so it must come back the same.
  for (const char *F :
       {"/src/a.cpp", "/src/model.h", "/src/b.h", "/src/c.h", "/src/d.h"}) {
    llvm::cantFail(E.Message.Fix[F].add(
        clang::tooling::Replacement(F, 10, 0, "register_buffer(\"w\", ")));
    llvm::cantFail(
        E.Message.Fix[F].add(clang::tooling::Replacement(F, 20, 2, ")")));
  }
  E.Notes.emplace_back("'w' is declared here");
  E.Notes.back().FilePath = "/src/model.h";
  E.Notes.back().FileOffset = 7;
  E.EnabledDiagnosticAliases.emplace_back("libtorch-alias");
  return E;
}

std::vector<std::string> fixOrder(const ClangTidyError &E) {
  std::vector<std::string> Files;
  for (const auto &F : E.Message.Fix)
    Files.push_back(F.first().str());
  return Files;
}

TEST(ResultsCache, DiagnosticsRoundTripThroughJSONExactly) {
  CachedRun Run;
  Run.Errors.push_back(sampleError());
  Run.Stats.ErrorsDisplayed = 1;
  Run.Stats.ErrorsIgnoredNOLINT = 2;
  Run.Stats.ErrorsIgnoredNonUserCode = 3;
  Run.FrontendOutput = "1 warning generated.\n";
  std::string Text;
  llvm::raw_string_ostream(Text) << toJSON(Run);
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  ASSERT_TRUE(bool(Parsed));
  CachedRun Back;
  ASSERT_TRUE(fromJSON(*Parsed, Back));
  ASSERT_EQ(Back.Errors.size(), 1U);
  const ClangTidyError &A = Run.Errors[0], &B = Back.Errors[0];
  EXPECT_EQ(B.DiagnosticName, A.DiagnosticName);
  EXPECT_EQ(B.DiagLevel, A.DiagLevel);
  EXPECT_EQ(B.BuildDirectory, A.BuildDirectory);
  EXPECT_TRUE(B.IsWarningAsError);
  EXPECT_EQ(B.EnabledDiagnosticAliases, A.EnabledDiagnosticAliases);
  EXPECT_EQ(B.Message.Message, A.Message.Message);
  EXPECT_EQ(B.Message.FileOffset, 42U);
  ASSERT_EQ(B.Message.Ranges.size(), 1U);
  EXPECT_EQ(B.Message.Ranges[0].Length, 3U);
  EXPECT_EQ(fixOrder(B), fixOrder(A));
  EXPECT_TRUE(B.Message.Fix == A.Message.Fix);
  ASSERT_EQ(B.Notes.size(), 1U);
  EXPECT_EQ(B.Notes[0].FilePath, "/src/model.h");
  EXPECT_EQ(Back.Stats.ErrorsIgnoredNOLINT, 2u);
  EXPECT_EQ(Back.Stats.ErrorsIgnoredNonUserCode, 3U);
  EXPECT_EQ(Back.FrontendOutput, Run.FrontendOutput);
  // Anything else is refused, not half read.
  CachedRun Bad;
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"errors", 1}}, Bad));
  ClangTidyError BadError("", ClangTidyError::Warning, "", false);
  EXPECT_FALSE(
      fromJSON(llvm::json::Object{{"name", "x"}, {"level", 7}}, BadError));
}

TEST(ResultsCache, KeyPartsAreHashedApartAndInOrder) {
  CacheKey A, B, C;
  A.add("the compile command", {"-I", "x"});
  B.add("the compile command", {"-Ix"});
  EXPECT_NE(A.hash(), B.hash());
  C.add("the compile command", {"-I", "x"});
  EXPECT_EQ(A.hash(), C.hash());
  C.add("the line filter", {});
  EXPECT_NE(A.hash(), C.hash());
  ASSERT_EQ(C.parts().size(), 2U);
  EXPECT_EQ(C.parts()[1].first, "the line filter");
}

CacheKey keyWith(llvm::StringRef Flags, llvm::StringRef Checks = "-*,lib*") {
  CacheKey K;
  K.add("torch-tidy", torchTidyIdentity());
  K.add("the compile command", {Flags.str()});
  K.add("the checks or their options", {Checks.str()});
  return K;
}

TEST(ResultsCache, HitsOnlyWhileEveryInputIsUnchanged) {
  const ScratchDir D;
  D.write("a.cpp", "#include \"m.h\"\n");
  D.write("m.h", "struct M {};\n");
  D.write("sys.h", "int s;\n");
  auto FS = llvm::vfs::getRealFileSystem();
  ResultsCache Cache(D.file("cache"), FS);
  CachedRun Run;
  Run.Errors.push_back(sampleError());
  Run.FrontendOutput = "1 warning generated.\n";
  const CacheKey Key = keyWith("-std=c++17");
  const std::vector<FileStamp> Inputs = {
      {D.file("a.cpp")},
      {D.file("m.h")},
      {D.file("sys.h"), 0, 0, "", /*System=*/true}};
  ASSERT_TRUE(Cache.store(Key, D.file("a.cpp"), Run, Inputs));

  ResultsCache::Lookup L = Cache.lookup(Key, D.file("a.cpp"));
  ASSERT_TRUE(L.Run) << L.Why;
  EXPECT_EQ(L.Run->Errors.size(), 1U);
  EXPECT_EQ(L.Run->FrontendOutput, Run.FrontendOutput);
  EXPECT_EQ(L.Retimed, 0U);

  // A new time, the same content: a hit, and the entry takes the time.
  setTime(D.file("m.h"),
          std::chrono::system_clock::now() - std::chrono::hours(1));
  L = Cache.lookup(Key, D.file("a.cpp"));
  ASSERT_TRUE(L.Run) << L.Why;
  EXPECT_EQ(L.Retimed, 1U);
  EXPECT_EQ(Cache.lookup(Key, D.file("a.cpp")).Retimed, 0U);

  // A time too recent to vouch for the content (the file may be written
  // again within the same tick): a hit by the hash, the time not recorded,
  // so the next lookup hashes again; once older, it is recorded.
  setTime(D.file("m.h"),
          std::chrono::system_clock::now() + std::chrono::hours(1));
  for (int Run = 0; Run < 2; ++Run) {
    L = Cache.lookup(Key, D.file("a.cpp"));
    ASSERT_TRUE(L.Run) << L.Why;
    EXPECT_EQ(L.Retimed, 1U);
    EXPECT_EQ(L.Unrecorded, 1U);
  }
  setTime(D.file("m.h"),
          std::chrono::system_clock::now() - std::chrono::minutes(30));
  L = Cache.lookup(Key, D.file("a.cpp"));
  EXPECT_EQ(L.Retimed, 1U);
  EXPECT_EQ(L.Unrecorded, 0U);
  EXPECT_EQ(Cache.lookup(Key, D.file("a.cpp")).Retimed, 0U);

  // Another key: a miss that names the part that changed.
  L = Cache.lookup(keyWith("-std=c++20"), D.file("a.cpp"));
  EXPECT_FALSE(L.Run);
  EXPECT_EQ(L.Why, "no entry: the compile command changed since this file's "
                   "last run");
  L = Cache.lookup(keyWith("-std=c++17", "-*,x"), D.file("a.cpp"));
  EXPECT_EQ(L.Why, "no entry: the checks or their options changed since this "
                   "file's last run");
  EXPECT_EQ(Cache.lookup(keyWith("other.cpp"), D.file("other.cpp")).Why,
            "no entry (no run of this file before)");

  // The same size, another content (the time moved with it).
  D.write("m.h", "struct N {};\n");
  setTime(D.file("m.h"),
          std::chrono::system_clock::now() - std::chrono::hours(2));
  L = Cache.lookup(Key, D.file("a.cpp"));
  EXPECT_FALSE(L.Run);
  EXPECT_EQ(L.Why, D.file("m.h") + " changed");

  // A system header, shared with other entries, changes or goes.
  ASSERT_TRUE(Cache.store(
      Key, D.file("a.cpp"), Run,
      {{D.file("a.cpp")}, {D.file("m.h")}, {D.file("sys.h"), 0, 0, "", true}}));
  ASSERT_TRUE(Cache.lookup(Key, D.file("a.cpp")).Run);
  (void)llvm::sys::fs::remove(D.file("sys.h"));
  EXPECT_EQ(Cache.lookup(Key, D.file("a.cpp")).Why,
            D.file("sys.h") + " is gone");
}

TEST(ResultsCache, SystemInputsAreStoredOnceForAllEntries) {
  const ScratchDir D;
  D.write("a.cpp", "a");
  D.write("b.cpp", "b");
  D.write("sys.h", "int s;\n");
  auto FS = llvm::vfs::getRealFileSystem();
  ResultsCache Cache(D.file("cache"), FS);
  for (const char *F : {"a.cpp", "b.cpp"})
    ASSERT_TRUE(Cache.store(keyWith(F), D.file(F), CachedRun(),
                            {{D.file(F)}, {D.file("sys.h"), 0, 0, "", true}}));
  unsigned Lists = 0, Entries = 0;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Cache.resultsDir(), EC), End;
       It != End && !EC; It.increment(EC)) {
    const llvm::StringRef Name = llvm::sys::path::filename(It->path());
    Lists += Name.starts_with("inputs-");
    Entries += Name.ends_with(".json");
  }
  EXPECT_EQ(Lists, 1U);
  EXPECT_EQ(Entries, 2U);
}

TEST(CacheDirectory, ParsesSizes) {
  EXPECT_EQ(parseCacheSize("2G"), uint64_t(2) << 30);
  EXPECT_EQ(parseCacheSize("500M"), uint64_t(500) << 20);
  EXPECT_EQ(parseCacheSize("64k"), uint64_t(64) << 10);
  EXPECT_EQ(parseCacheSize("1234"), 1234U);
  EXPECT_FALSE(parseCacheSize(""));
  EXPECT_FALSE(parseCacheSize("G"));
  EXPECT_FALSE(parseCacheSize("lots"));
  EXPECT_FALSE(parseCacheSize("-1M"));
  EXPECT_FALSE(parseCacheSize("99999999999999999999G"));
}

TEST(CacheDirectory, EvictsLeastRecentlyUsedFirstAndKeepsPreamblesInUse) {
  const ScratchDir D;
  ASSERT_FALSE(llvm::sys::fs::create_directories(D.file("results")));
  const std::string Blob(1000, 'x');
  const auto Now = std::chrono::system_clock::now();
  // Results entries used 3, 2 and 1 hours ago; a preamble (three files, one
  // entry) used 4 hours ago and one used a minute ago.
  for (auto [Name, Hours] :
       {std::pair{"results/old.json", 3}, std::pair{"results/mid.json", 2},
        std::pair{"results/new.json", 1}}) {
    D.write(Name, Blob);
    setTime(D.file(Name), Now - std::chrono::hours(Hours));
  }
  for (const char *Ext : {".h", ".pch", ".manifest"}) {
    D.write(std::string("aaaa") + Ext, Blob);
    setTime(D.file(std::string("aaaa") + Ext), Now - std::chrono::hours(4));
    D.write(std::string("bbbb") + Ext, Blob);
    setTime(D.file(std::string("bbbb") + Ext), Now - std::chrono::minutes(1));
  }
  // 9000 bytes; room for 4500: the old preamble (3000) and the two oldest
  // results go, the newest results stay, and the preamble in use stays
  // although the oldest of all would be next.
  const EvictionResult R = evictLeastRecentlyUsed(D.file(""), 4500);
  EXPECT_EQ(R.BytesBefore, 9000U);
  EXPECT_FALSE(llvm::sys::fs::exists(D.file("aaaa.pch")));
  EXPECT_FALSE(llvm::sys::fs::exists(D.file("aaaa.manifest")));
  EXPECT_FALSE(llvm::sys::fs::exists(D.file("results/old.json")));
  EXPECT_FALSE(llvm::sys::fs::exists(D.file("results/mid.json")));
  EXPECT_TRUE(llvm::sys::fs::exists(D.file("results/new.json")));
  EXPECT_TRUE(llvm::sys::fs::exists(D.file("bbbb.pch")));
  EXPECT_EQ(R.BytesAfter, 4000U);
  // Under the limit: nothing goes.
  EXPECT_EQ(evictLeastRecentlyUsed(D.file(""), 1U << 20).EntriesRemoved, 0U);
  // Past the grace, the preamble goes too.
  EXPECT_EQ(
      evictLeastRecentlyUsed(D.file(""), 0, std::chrono::seconds(0)).BytesAfter,
      0U);
}

TEST(RunSummary, SaysFilesFindingsTimeAndCacheHits) {
  RunSummary S;
  S.Files = 20;
  S.FindingsByCheck = {{"libtorch-unchecked-index", 3},
                       {"libtorch-unregistered-buffer", 1}};
  S.Seconds = 12.34;
  S.ResultsHits = 18;
  S.ResultsMisses = 2;
  EXPECT_EQ(formatSummary(S),
            "torch-tidy: 20 files analysed; 4 findings "
            "(libtorch-unchecked-index: 3, libtorch-unregistered-buffer: 1); "
            "12.3 s; results cache: 18 hits, 2 misses");
  RunSummary One;
  One.Files = 1;
  One.Qualifiers = {"(shard 1/2 of 3)", "2 without changed lines skipped"};
  One.FilesWithErrors = 1;
  One.Seconds = 0.04;
  EXPECT_EQ(formatSummary(One),
            "torch-tidy: 1 file analysed (shard 1/2 of 3), 2 without changed "
            "lines skipped; 0 findings; 1 file with compiler errors; 0.0 s; no "
            "results cache");
}

TEST(RunSummary, WorkerReportsAddUp) {
  const ScratchDir D;
  FastRunSummary Hit, Miss;
  Hit.ResultsHits = 1;
  Miss.ResultsMisses = 1;
  writeWorkerReport(D.file("1.report"), Hit);
  writeWorkerReport(D.file("2.report"), Miss);
  RunSummary S;
  readWorkerReport(D.file("1.report"), S);
  readWorkerReport(D.file("2.report"), S);
  readWorkerReport(D.file("missing.report"), S); // a worker that crashed
  EXPECT_EQ(S.ResultsHits, 1U);
  EXPECT_EQ(S.ResultsMisses, 1U);
}

} // namespace
