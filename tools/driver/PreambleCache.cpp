//===--- PreambleCache.cpp - one precompiled preamble per project ---------===//

#include "PreambleCache.h"
#include "CacheDirectory.h"
#include "DriverCompat.h"
#include "LibraryBodies.h"
#include "ResultsCache.h"

#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaConsumer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

namespace torchtidy::driver {

namespace {

/// A line of the form `#name rest`: the directive's name and the rest.
std::optional<std::pair<llvm::StringRef, llvm::StringRef>>
parseDirective(llvm::StringRef Line) {
  llvm::StringRef L = Line.trim();
  if (!L.consume_front("#"))
    return std::nullopt;
  L = L.ltrim();
  const size_t NameEnd = L.find_first_of(" \t<\"");
  return std::make_pair(L.take_front(NameEnd),
                        L.drop_front(std::min(NameEnd, L.size())).trim());
}

bool blankOrLineComment(llvm::StringRef Rest) {
  Rest = Rest.trim();
  return Rest.empty() || Rest.starts_with("//");
}

/// `<name>` or `"name"`, with only a line comment after it.
std::optional<LeadingInclude> parseIncludeOperand(llvm::StringRef Rest) {
  if (Rest.size() < 3 || (Rest[0] != '<' && Rest[0] != '"'))
    return std::nullopt;
  const char Close = Rest[0] == '<' ? '>' : '"';
  const size_t End = Rest.find(Close, 1);
  if (End == llvm::StringRef::npos || End == 1 ||
      !blankOrLineComment(Rest.drop_front(End + 1)))
    return std::nullopt;
  return LeadingInclude{Rest[0] == '<', Rest.slice(1, End).str()};
}

} // namespace

LeadingIncludes scanLeadingIncludes(llvm::StringRef Source) {
  Source.consume_front("\xEF\xBB\xBF");
  LeadingIncludes Out;
  bool InBlockComment = false;
  // An include guard (`#ifndef X` `#define X` first, `#endif` last) is no
  // code: a header of includes only is read through.
  enum { NoGuard, GuardOpened, GuardDefined } Guard = NoGuard;
  std::string GuardName;
  bool SeenDirective = false, GuardClosed = false;
  // A line comment that ends in a backslash goes on over the next line
  // (the lines are spliced before comments are recognised), as a long RUN
  // line of a test does.
  bool ContinuedComment = false;
  while (!Source.empty()) {
    auto [Line, Rest] = Source.split('\n');
    Source = Rest;
    const bool Continued = Line.rtrim().ends_with("\\");
    if (ContinuedComment) {
      ContinuedComment = Continued;
      continue;
    }
    llvm::StringRef T = Line.trim();
    if (Continued && !InBlockComment && T.starts_with("//")) {
      ContinuedComment = true;
      continue;
    }
    // Any other continued line could hide anything; the preamble ends
    // before it.
    if (Continued)
      return Out;
    if (InBlockComment || T.starts_with("/*")) {
      const size_t End = T.find("*/", InBlockComment ? 0 : 2);
      InBlockComment = End == llvm::StringRef::npos;
      if (InBlockComment)
        continue;
      T = T.drop_front(End + 2).trim();
    }
    if (blankOrLineComment(T))
      continue;
    if (GuardClosed)
      return Out; // something after the guard's #endif
    auto Directive = parseDirective(T);
    if (!Directive)
      return Out;
    auto [Name, Operand] = *Directive;
    const bool First = !SeenDirective;
    SeenDirective = true;
    if (Name == "include") {
      std::optional<LeadingInclude> Inc = parseIncludeOperand(Operand);
      if (!Inc || Guard == GuardOpened)
        return Out;
      Out.Includes.push_back(std::move(*Inc));
      continue;
    }
    if (Name == "pragma" && Operand == "once")
      continue;
    if (Name == "ifndef" && First) {
      Guard = GuardOpened;
      GuardName = Operand.str();
      continue;
    }
    if (Name == "define" && Guard == GuardOpened && Operand == GuardName) {
      Guard = GuardDefined;
      continue;
    }
    if (Name == "endif" && Guard == GuardDefined &&
        blankOrLineComment(Operand)) {
      GuardClosed = true;
      continue;
    }
    return Out;
  }
  Out.Complete = !InBlockComment && (Guard == NoGuard || GuardClosed);
  return Out;
}

std::string systemPreamble(
    llvm::StringRef File, llvm::StringRef Source,
    llvm::ArrayRef<std::string> QuoteDirs,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> Read) {
  std::string Out;
  llvm::StringSet<> Visited;
  Visited.insert(File);
  // Appends the leading system includes of one file, following its leading
  // quoted includes; false when the preamble ends inside it.
  std::function<bool(llvm::StringRef, llvm::StringRef, unsigned)> Walk =
      [&](llvm::StringRef Path, llvm::StringRef Text, unsigned Depth) {
        const LeadingIncludes Scan = scanLeadingIncludes(Text);
        for (const LeadingInclude &Inc : Scan.Includes) {
          if (Inc.Angled) {
            Out += "#include <" + Inc.Name + ">\n";
            continue;
          }
          if (Depth >= 16)
            return false;
          // Where the compiler looks for "name": beside the includer, then
          // the -iquote and -I directories.
          std::optional<std::string> Found, Content;
          llvm::SmallVector<std::string, 8> Candidates;
          if (llvm::sys::path::is_absolute(Inc.Name)) {
            Candidates.push_back(Inc.Name);
          } else {
            llvm::SmallString<256> Beside(llvm::sys::path::parent_path(Path));
            llvm::sys::path::append(Beside, Inc.Name);
            Candidates.push_back(std::string(Beside));
            for (const std::string &D : QuoteDirs) {
              llvm::SmallString<256> P(D);
              llvm::sys::path::append(P, Inc.Name);
              Candidates.push_back(std::string(P));
            }
          }
          for (std::string const &C : Candidates) {
            llvm::SmallString<256> P(C);
            llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
            Content = Read(P);
            if (Content) {
              Found = std::string(P);
              break;
            }
          }
          if (!Found)
            return false;
          if (!Visited.insert(*Found).second)
            continue; // guarded, or it would not compile
          if (!Walk(*Found, *Content, Depth + 1))
            return false;
        }
        return Scan.Complete;
      };
  Walk(File, Source, 0);
  return Out;
}

std::string leadingSystemIncludes(llvm::StringRef Source) {
  return systemPreamble("", Source, {}, [](llvm::StringRef) {
    return std::optional<std::string>();
  });
}

std::string precompiledPart(llvm::StringRef Preamble) {
  // Lines end in '\n' (systemPreamble); the last may not.
  llvm::StringRef Kept = Preamble;
  while (true) {
    const llvm::StringRef Body = Kept.drop_back(Kept.ends_with("\n") ? 1 : 0);
    const size_t LineStart = Body.rfind('\n');
    if (LineStart == llvm::StringRef::npos)
      break; // the first line stays
    llvm::StringRef Name = Body.drop_front(LineStart + 1).trim();
    if (!Name.consume_front("#include <") || !Name.consume_back(">") ||
        Name.contains('/') || Name.contains('.'))
      break;
    Kept = Kept.take_front(LineStart + 1);
  }
  return Kept.str();
}

void setUpAsClangTidy(clang::CompilerInvocation &Invocation) {
  Invocation.getPreprocessorOpts().SetUpStaticAnalyzer = true;
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

// 2: the PCH no longer carries the headers' own vtable uses.
// 3: a PCH whose headers cannot be included again is not served (earlier
//    entries were never probed for it).
static constexpr llvm::StringLiteral ManifestMagic = "torch-tidy-preamble 3";

std::string PreambleManifest::serialize() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << ManifestMagic << "\nstatus "
     << (Status == Usable             ? "usable"
         : Status == ReadsUserHeaders ? "user-headers"
         : Status == NotReincludable  ? "not-reincludable"
                                      : "failed")
     << "\n";
  for (const Input &I : Inputs)
    OS << "input " << I.Size << " " << I.MTime << " " << I.Path << "\n";
  return S;
}

std::optional<PreambleManifest> PreambleManifest::parse(llvm::StringRef Text) {
  llvm::StringRef Line;
  std::tie(Line, Text) = Text.split('\n');
  if (Line != ManifestMagic)
    return std::nullopt;
  PreambleManifest M;
  std::tie(Line, Text) = Text.split('\n');
  if (!Line.consume_front("status "))
    return std::nullopt;
  if (Line == "usable")
    M.Status = Usable;
  else if (Line == "user-headers")
    M.Status = ReadsUserHeaders;
  else if (Line == "not-reincludable")
    M.Status = NotReincludable;
  else if (Line == "failed")
    M.Status = Failed;
  else
    return std::nullopt;
  while (!Text.empty()) {
    std::tie(Line, Text) = Text.split('\n');
    if (Line.empty())
      continue;
    Input I;
    llvm::StringRef SizeS, TimeS;
    if (!Line.consume_front("input "))
      return std::nullopt;
    std::tie(SizeS, Line) = Line.split(' ');
    std::tie(TimeS, Line) = Line.split(' ');
    if (SizeS.getAsInteger(10, I.Size) || TimeS.getAsInteger(10, I.MTime) ||
        Line.empty())
      return std::nullopt;
    I.Path = Line.str();
    M.Inputs.push_back(std::move(I));
  }
  return M;
}

bool statInput(llvm::vfs::FileSystem &FS, llvm::StringRef Path,
               PreambleManifest::Input &Out) {
  llvm::ErrorOr<llvm::vfs::Status> St = FS.status(Path);
  if (!St)
    return false;
  Out.Path = Path.str();
  Out.Size = St->getSize();
  Out.MTime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  St->getLastModificationTime().time_since_epoch())
                  .count();
  return true;
}

bool PreambleManifest::upToDate(llvm::vfs::FileSystem &FS) const {
  for (const Input &I : Inputs) {
    Input Now;
    if (!statInput(FS, I.Path, Now) || Now.Size != I.Size ||
        Now.MTime != I.MTime)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Building a PCH
//===----------------------------------------------------------------------===//

namespace {

/// Clears the vtables the headers themselves used from the PCH, before it
/// is written. Sema defines the vtables a translation unit used at its end,
/// instantiating every virtual member of each class template among them; a
/// PCH does not, and hands its list to every file that includes it. For
/// <torch/torch.h> that is about 1.5 s of each file's 2 s: clone(),
/// pretty_print(), reset() of dozens of torch::nn modules, in system
/// headers, where the checks never look. A file's own code still marks the
/// vtables it needs (a user module deriving from torch::nn::Cloneable), so
/// those are defined as in a compile.
class HeaderVTableDropper : public clang::SemaConsumer {
public:
  void InitializeSema(clang::Sema &S) override { Sema = &S; }
  void ForgetSema() override { Sema = nullptr; }
  void HandleTranslationUnit(clang::ASTContext &) override {
    if (!Sema)
      return;
    Sema->VTableUses.clear();
    Sema->VTablesUsed.clear();
  }

private:
  clang::Sema *Sema = nullptr;
};

class BuildPCHAction : public clang::GeneratePCHAction {
public:
  BuildPCHAction(std::shared_ptr<InputCollector> Inputs, bool SkipBodies)
      : Inputs(std::move(Inputs)), SkipBodies(SkipBodies) {}
  bool BeginSourceFileAction(clang::CompilerInstance &CI) override {
    Inputs->attachToPreprocessor(CI.getPreprocessor());
    return GeneratePCHAction::BeginSourceFileAction(CI);
  }
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI,
                    llvm::StringRef InFile) override {
    std::unique_ptr<clang::ASTConsumer> Writer =
        GeneratePCHAction::CreateASTConsumer(CI, InFile);
    if (!Writer)
      return nullptr;
    std::vector<std::unique_ptr<clang::ASTConsumer>> Consumers;
    Consumers.push_back(std::make_unique<HeaderVTableDropper>());
    Consumers.push_back(std::move(Writer));
    if (SkipBodies)
      Consumers.push_back(libraryBodySkipper(CI));
    return std::make_unique<clang::MultiplexConsumer>(std::move(Consumers));
  }

private:
  std::shared_ptr<InputCollector> Inputs;
  bool SkipBodies;
};

class BuildPCHFactory : public clang::tooling::FrontendActionFactory {
public:
  BuildPCHFactory(std::string Output, std::shared_ptr<InputCollector> Inputs,
                  bool SkipBodies)
      : Output(std::move(Output)), Inputs(std::move(Inputs)),
        SkipBodies(SkipBodies) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<BuildPCHAction>(Inputs, SkipBodies);
  }
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> PCHOps,
                     clang::DiagnosticConsumer *Diags) override {
    setUpAsClangTidy(*Invocation);
    Invocation->getFrontendOpts().ProgramAction = clang::frontend::GeneratePCH;
    Invocation->getFrontendOpts().OutputFile = Output;
    // Template instantiations the headers need are made once, here, instead
    // of at the end of every file that uses the PCH.
    Invocation->getLangOpts().PCHInstantiateTemplates = true;
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(PCHOps), Diags);
  }

private:
  std::string Output;
  std::shared_ptr<InputCollector> Inputs;
  bool SkipBodies;
};

/// A syntax-only parse with the predefines the PCH was built with (and the
/// driver's parse has), for the probe in PreambleCache::build.
class ProbeFactory : public clang::tooling::FrontendActionFactory {
public:
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<clang::SyntaxOnlyAction>();
  }
  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> Invocation,
                     clang::FileManager *Files,
                     std::shared_ptr<clang::PCHContainerOperations> PCHOps,
                     clang::DiagnosticConsumer *Diags) override {
    setUpAsClangTidy(*Invocation);
    // The probe's error is logged, not printed; nor is its count.
    Invocation->getDiagnosticOpts().ShowCarets = false;
    return FrontendActionFactory::runInvocation(std::move(Invocation), Files,
                                                std::move(PCHOps), Diags);
  }
};

class ErrorCounter : public clang::DiagnosticConsumer {
public:
  std::string First;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level >= clang::DiagnosticsEngine::Error && First.empty()) {
      llvm::SmallString<128> Msg;
      Info.FormatDiagnostic(Msg);
      First = std::string(Msg);
    }
  }
};

bool isCxxSource(llvm::StringRef File) {
  return llvm::is_contained({".cpp", ".cc", ".cxx", ".c++", ".C", ".cp"},
                            llvm::sys::path::extension(File));
}

/// Flags that change what the preamble means in ways the cache does not
/// model: another language, forced includes, modules, another driver.
bool hasUnsupportedFlag(const std::vector<std::string> &Args) {
  for (const std::string &A : Args) {
    const llvm::StringRef S(A);
    if (S.starts_with("-x") || S.starts_with("--language") ||
        S.starts_with("-include") || S.starts_with("--include") ||
        S.starts_with("-imacros") || S.starts_with("-fmodules") ||
        S.starts_with("-fcxx-modules") || S.starts_with("--driver-mode=cl") ||
        S.starts_with("-emit-") || S == "-E")
      return true;
  }
  return !Args.empty() && llvm::StringRef(llvm::sys::path::filename(Args[0]))
                              .contains_insensitive("clang-cl");
}

/// \p Path made absolute, as the compiler opened it: `..` stays, since
/// /bin/../lib (the GCC headers' directory as clang finds it on Debian, where
/// /bin is a link to /usr/bin) is /usr/lib, not /lib.
std::string asOpened(llvm::StringRef WorkingDir, llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  compat::makeAbsolute(WorkingDir, P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
  return std::string(P);
}

std::string normalized(llvm::StringRef WorkingDir, llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  compat::makeAbsolute(WorkingDir, P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// How long the last PCH build in \p Dir took (0 when none is on record),
/// for parseInsteadOfWaiting.
constexpr llvm::StringLiteral BuildSecondsFile = "last-preamble-build-seconds";

double lastBuildSeconds(llvm::StringRef Dir) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, BuildSecondsFile);
  auto Buf = llvm::MemoryBuffer::getFile(P);
  double Seconds = 0;
  if (!Buf || (*Buf)->getBuffer().trim().getAsDouble(Seconds))
    return 0;
  return Seconds;
}

void recordBuildSeconds(llvm::StringRef Dir, double Seconds) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, BuildSecondsFile);
  writeFileAtomically(P, llvm::formatv("{0:f2}\n", Seconds).str());
}

std::optional<PreambleManifest> readManifest(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return std::nullopt;
  return PreambleManifest::parse((*Buf)->getBuffer());
}

} // namespace

PreambleCache::PreambleCache(std::string Dir,
                             llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                             bool Verbose, bool SkipLibraryBodies)
    : Dir(std::move(Dir)), FS(std::move(FS)), Verbose(Verbose),
      SkipLibraryBodies(SkipLibraryBodies) {}

void PreambleCache::log(llvm::StringRef File, llvm::StringRef What) const {
  if (Verbose)
    llvm::errs() << "torch-tidy: preamble cache: " << What << ": " << File
                 << "\n";
}

std::string PreambleCache::key(const std::vector<std::string> &FlagsWithoutFile,
                               llvm::StringRef WorkingDir,
                               llvm::StringRef Includes,
                               bool SkipLibraryBodies) {
  llvm::SHA1 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  Add(ManifestMagic);
  Add(clang::getClangFullVersion());
  Add(WorkingDir);
  Add(Includes);
  for (const std::string &F : FlagsWithoutFile)
    Add(F);
  if (SkipLibraryBodies)
    Add("library bodies skipped");
  auto Digest = H.final();
  return llvm::toHex(Digest, /*LowerCase=*/true);
}

std::vector<std::string>
PreambleCache::adjust(const std::vector<std::string> &Args,
                      llvm::StringRef File) {
  if (!isCxxSource(File) || hasUnsupportedFlag(Args))
    return Args;
  llvm::ErrorOr<std::string> Cwd = FS->getCurrentWorkingDirectory();
  if (!Cwd)
    return Args;
  auto Buf = FS->getBufferForFile(File);
  if (!Buf)
    return Args;
  std::vector<std::string> QuoteDirs, IDirs;
  for (size_t I = 0; I < Args.size(); ++I) {
    const llvm::StringRef A(Args[I]);
    for (auto [Flag, Dirs] : {std::pair{llvm::StringRef("-iquote"), &QuoteDirs},
                              std::pair{llvm::StringRef("-I"), &IDirs}}) {
      if (!A.starts_with(Flag))
        continue;
      llvm::StringRef D = A.drop_front(Flag.size());
      if (D.empty() && I + 1 < Args.size())
        D = Args[++I];
      Dirs->push_back(normalized(*Cwd, D));
      break;
    }
  }
  QuoteDirs.insert(QuoteDirs.end(), IDirs.begin(), IDirs.end());
  const std::string Self = normalized(*Cwd, File);
  const std::string Includes = precompiledPart(
      systemPreamble(Self, (*Buf)->getBuffer(), QuoteDirs,
                     [&](llvm::StringRef Path) -> std::optional<std::string> {
                       if (auto B = FS->getBufferForFile(Path))
                         return (*B)->getBuffer().str();
                       return std::nullopt;
                     }));
  if (Includes.empty()) {
    log(File, "no leading system includes");
    return Args;
  }

  // The command without the file: what the PCH is built with. The TU and
  // the PCH get the same explicit resource directory (clang's own headers),
  // the one clang-tidy would otherwise add to the TU alone.
  std::vector<std::string> Flags;
  bool HasResourceDir = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    const llvm::StringRef A(Args[I]);
    if (I > 0 && !A.starts_with("-") && normalized(*Cwd, A) == Self)
      continue;
    HasResourceDir |= A.starts_with("-resource-dir");
    Flags.push_back(Args[I]);
  }
  if (!HasResourceDir)
    Flags.push_back("-resource-dir=" + compat::clangResourceDir());

  const std::string Key = torchtidy::driver::PreambleCache::key(
      Flags, *Cwd, Includes, SkipLibraryBodies);
  llvm::SmallString<256> Base(Dir);
  llvm::sys::path::append(Base, Key);
  const std::string PCH = (Base + ".pch").str();
  const std::string ManifestPath = (Base + ".manifest").str();

  auto Use = [&](const PreambleManifest &M) -> std::vector<std::string> {
    if (M.Status != PreambleManifest::Usable) {
      log(File, M.Status == PreambleManifest::Failed
                    ? "skipped, its preamble does not compile alone"
                : M.Status == PreambleManifest::NotReincludable
                    ? "skipped, a header of its preamble cannot be included "
                      "again after the PCH (no include guard)"
                    : "skipped, its preamble reads user headers");
      return Args;
    }
    std::vector<std::string> Out = Args;
    if (!HasResourceDir)
      Out.push_back(Flags.back());
    Out.emplace_back("-include-pch");
    Out.push_back(PCH);
    return Out;
  };

  if (auto M = readManifest(ManifestPath); M && M->upToDate(*FS)) {
    log(File, "hit " + Key);
    markUsed(ManifestPath);
    return Use(*M);
  }
  if (const std::error_code EC = llvm::sys::fs::create_directories(Dir)) {
    log(File, "no cache directory '" + Dir + "': " + EC.message());
    return Args;
  }

  // One process builds. The others, which start with it in a project run,
  // analyse their file without the PCH while a build has just begun (so
  // that -j N does not idle for a whole build), and otherwise wait for it.
  compat::FileLock Lock(PCH);
  if (!Lock.owned()) {
    const std::string LockPath = PCH + ".lock";
    llvm::sys::fs::file_status St;
    if (!llvm::sys::fs::status(LockPath, St)) {
      const double Age =
          std::chrono::duration<double>(std::chrono::system_clock::now() -
                                        St.getLastModificationTime())
              .count();
      if (parseInsteadOfWaiting(Age, lastBuildSeconds(Dir))) {
        log(File, "parsed without it, another process began building " + Key +
                      " " + llvm::formatv("{0:f1}", Age).str() + " s ago");
        return Args;
      }
    }
    Lock.waitForOwner(/*MaxSeconds=*/600);
  }
  // Built by the owner we waited for, or by one that let go just before
  // this process took the lock.
  if (auto M = readManifest(ManifestPath); M && M->upToDate(*FS)) {
    log(File, "hit " + Key + " (built by another process)");
    markUsed(ManifestPath);
    return Use(*M);
  }
  if (!Lock.owned()) {
    log(File, "skipped, the process building " + Key + " did not finish");
    return Args;
  }
  if (llvm::ErrorOr<llvm::sys::fs::space_info> Space =
          llvm::sys::fs::disk_space(Dir);
      Space && !roomToBuild(Space->available)) {
    log(File, "skipped, the cache's filesystem has " +
                  std::to_string(Space->available >> 20) +
                  " MiB free (a build needs " +
                  std::to_string(MinFreeBytes >> 20) + ")");
    return Args;
  }
  const auto BuildStart = std::chrono::steady_clock::now();
  if (!build(Flags, Includes, Base, *Cwd)) {
    log(File, "skipped, cannot write the cache entry " + Key);
    return Args;
  }
  Wrote = true;
  recordBuildSeconds(Dir, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - BuildStart)
                              .count());
  if (auto M = readManifest(ManifestPath)) {
    log(File, "built " + Key);
    return Use(*M);
  }
  return Args;
}

bool PreambleCache::parseInsteadOfWaiting(double BuildAgeSeconds,
                                          double LastBuildSeconds,
                                          double NoRecordSeconds) {
  const double Threshold =
      LastBuildSeconds > 0 ? LastBuildSeconds / 3 : NoRecordSeconds;
  return BuildAgeSeconds < Threshold;
}

bool PreambleCache::reincludes(const std::vector<std::string> &Flags,
                               llvm::StringRef Includes, llvm::StringRef PCH,
                               llvm::StringRef Base,
                               clang::FileManager &Files) const {
  // Every file served includes the preamble's headers again after the PCH,
  // and their include guards (or #pragma once) skip them. A header without
  // either is read a second time: harmless for <cassert>, which is meant to
  // be, "redefinition of" errors and a file without findings for most. A
  // file that is the preamble alone, parsed as a served file is, tells which.
  const std::string Probe = (Base + ".probe.cpp").str();
  if (!writeFileAtomically(Probe, Includes))
    return false;
  std::vector<std::string> CommandLine = Flags;
  CommandLine.emplace_back("-fsyntax-only");
  CommandLine.emplace_back("-include-pch");
  CommandLine.push_back(PCH.str());
  CommandLine.push_back(Probe);
  ProbeFactory Factory;
  clang::tooling::ToolInvocation Invocation(
      CommandLine, &Factory, &Files,
      std::make_shared<clang::PCHContainerOperations>());
  ErrorCounter Errors;
  Invocation.setDiagnosticConsumer(&Errors);
  const bool Clean = Invocation.run() && Errors.getNumErrors() == 0;
  (void)llvm::sys::fs::remove(Probe); // best effort: the probe is done
  if (!Clean)
    log(Base,
        "its headers cannot be included again after the PCH: " + Errors.First);
  return Clean;
}

bool PreambleCache::build(const std::vector<std::string> &Flags,
                          llvm::StringRef Includes, llvm::StringRef Base,
                          llvm::StringRef WorkingDir) {
  const std::string Header = (Base + ".h").str();
  const std::string PCH = (Base + ".pch").str();
  const std::string Tmp =
      (PCH + ".tmp." + llvm::Twine(llvm::sys::Process::getProcessId())).str();
  if (!writeFileAtomically(Header, Includes))
    return false;

  std::vector<std::string> CommandLine = Flags;
  CommandLine.emplace_back("-xc++-header");
  CommandLine.push_back(Header);
  auto Inputs = std::make_shared<InputCollector>();
  BuildPCHFactory Factory(Tmp, Inputs, SkipLibraryBodies);
  const llvm::IntrusiveRefCntPtr<clang::FileManager> Files(
      new clang::FileManager(clang::FileSystemOptions(), FS));
  clang::tooling::ToolInvocation Invocation(
      CommandLine, &Factory, Files.get(),
      std::make_shared<clang::PCHContainerOperations>());
  ErrorCounter Errors;
  Invocation.setDiagnosticConsumer(&Errors);
  const bool Ran = Invocation.run() && Errors.getNumErrors() == 0;

  PreambleManifest M;
  M.Status = Ran ? PreambleManifest::Usable : PreambleManifest::Failed;
  if (!Ran && !Errors.First.empty())
    log(Header, "does not compile: " + Errors.First);
  for (const auto &[Name, IsSystem] : Inputs->Seen) {
    const std::string Path = asOpened(WorkingDir, Name);
    if (!IsSystem && Path != asOpened(WorkingDir, Header) &&
        M.Status == PreambleManifest::Usable)
      M.Status = PreambleManifest::ReadsUserHeaders;
    PreambleManifest::Input In;
    if (statInput(*FS, Path, In))
      M.Inputs.push_back(std::move(In));
  }
  // Probed only when it would otherwise be served.
  if (M.Status == PreambleManifest::Usable &&
      !reincludes(Flags, Includes, Tmp, Base, *Files))
    M.Status = PreambleManifest::NotReincludable;
  // A preamble that reads user headers is not served (their classes must
  // be parsed and checked in each file), nor is a failed one or one whose
  // headers cannot be included again; their entries only spare the next
  // file the attempt.
  if (M.Status == PreambleManifest::Usable) {
    PreambleManifest::Input Self;
    if (llvm::sys::fs::rename(Tmp, PCH) || !statInput(*FS, PCH, Self)) {
      (void)llvm::sys::fs::remove(Tmp); // best effort: the build failed
      return false;
    }
    // A PCH deleted or replaced behind the cache's back is stale too.
    M.Inputs.push_back(std::move(Self));
  } else {
    (void)llvm::sys::fs::remove(Tmp); // best effort: nothing to keep
  }
  return writeFileAtomically((Base + ".manifest").str(), M.serialize());
}

} // namespace torchtidy::driver
