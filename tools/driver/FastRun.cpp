//===--- FastRun.cpp - torch-tidy's way of running clang-tidy -------------===//

#include "FastRun.h"
#include "CudaCommand.h"
#include "DriverCompat.h"
#include "LaunchSpelling.h"
#include "LibraryBodies.h"
#include "PreambleCache.h"
#include "ResultsCache.h"
#include "ThirdPartyIncludes.h"

#include "ClangTidy.h"
#include "ClangTidyDiagnosticConsumer.h"
#include "ClangTidyModule.h"
#include "ClangTidyOptions.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/UserCode.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <type_traits>

using namespace clang;
using namespace clang::tidy;
using namespace clang::tooling;

namespace torchtidy::driver {

FastRunOptions &fastRunOptions() {
  static FastRunOptions Options;
  return Options;
}

FastRunSummary &fastRunSummary() {
  static FastRunSummary Summary;
  return Summary;
}

namespace {

void logLine(llvm::StringRef What, llvm::StringRef File) {
  if (fastRunOptions().CacheVerbose)
    llvm::errs() << "torch-tidy: " << What << ": " << File << "\n";
}

/// clang-tidy keeps its statistics (what it suppressed and why) to itself:
/// only its diagnostic consumer writes them. A replayed run adds what the
/// analysis added, through this accessor; an explicit instantiation may
/// name a private member (C++17 [temp.explicit]p12), and a renamed member
/// fails the build here, never silently.
ClangTidyStats &contextStats(ClangTidyContext &Context);
template <ClangTidyStats ClangTidyContext::*Member> struct ContextStatsAccess {
  friend ClangTidyStats &contextStats(ClangTidyContext &Context) {
    return Context.*Member;
  }
};
template struct ContextStatsAccess<&ClangTidyContext::Stats>;

ClangTidyStats operator-(const ClangTidyStats &A, const ClangTidyStats &B) {
  ClangTidyStats D;
  D.ErrorsDisplayed = A.ErrorsDisplayed - B.ErrorsDisplayed;
  D.ErrorsIgnoredCheckFilter =
      A.ErrorsIgnoredCheckFilter - B.ErrorsIgnoredCheckFilter;
  D.ErrorsIgnoredNOLINT = A.ErrorsIgnoredNOLINT - B.ErrorsIgnoredNOLINT;
  D.ErrorsIgnoredNonUserCode =
      A.ErrorsIgnoredNonUserCode - B.ErrorsIgnoredNonUserCode;
  D.ErrorsIgnoredLineFilter =
      A.ErrorsIgnoredLineFilter - B.ErrorsIgnoredLineFilter;
  return D;
}

void addStats(ClangTidyStats &To, const ClangTidyStats &D) {
  To.ErrorsDisplayed += D.ErrorsDisplayed;
  To.ErrorsIgnoredCheckFilter += D.ErrorsIgnoredCheckFilter;
  To.ErrorsIgnoredNOLINT += D.ErrorsIgnoredNOLINT;
  To.ErrorsIgnoredNonUserCode += D.ErrorsIgnoredNonUserCode;
  To.ErrorsIgnoredLineFilter += D.ErrorsIgnoredLineFilter;
}

/// Collects the top-level declarations written outside system headers and,
/// before the checks run, makes them the AST's traversal scope. Declarations
/// of the user's own headers are kept: a module class declared in model.h is
/// checked as before. Where the parse leaves out the headers' bodies no
/// check reads (libraryBodySkipper, most of what parsing LibTorch's headers
/// costs), the line it logs counts them.
class UserScopeConsumer : public ASTConsumer {
public:
  explicit UserScopeConsumer(std::string File) : File(std::move(File)) {}

  /// The count of the bodies left out, for libraryBodySkipper.
  unsigned *skippedBodies() {
    SkipBodies = true;
    return &Skipped;
  }

  bool HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group) {
      ++Seen;
      // The checks' own notion of user code (UserCode.h), so that the scope
      // holds exactly what they would analyse.
      if (torchtidy::isUserDecl(D) && !torchtidy::isImplicitInstantiation(D))
        Scope.push_back(D);
    }
    return true;
  }

  void HandleTranslationUnit(ASTContext &Context) override {
    Context.setTraversalScope(Scope);
    // What the checks will traverse, read back from the context: the test
    // that the fast path is in effect (test/tools/traversal-scope.test).
    logLine("traversal scope: " +
                std::to_string(Context.getTraversalScope().size()) + " of " +
                std::to_string(Seen) + " top-level declarations" +
                (SkipBodies
                     ? ", " + std::to_string(Skipped) +
                           " function bodies of system headers not parsed"
                     : std::string()),
            File);
  }

private:
  std::string File;
  bool SkipBodies = false;
  std::vector<Decl *> Scope;
  unsigned Seen = 0;
  unsigned Skipped = 0;
};

/// After the checks (so that it knows what they asked the project about),
/// summarises the translation unit for the project's other files
/// (ProjectSummaries.h), as JSON text into \p Into. --cache-verbose logs
/// how long it took (the checks' own times are --enable-check-profile's).
class SummaryConsumer : public ASTConsumer {
public:
  SummaryConsumer(std::string &Into, std::string File)
      : Into(Into), File(std::move(File)) {}

  void HandleTranslationUnit(ASTContext &Context) override {
    const auto Start = std::chrono::steady_clock::now();
    torchtidy::TranslationUnitSummary S = torchtidy::summarizeTranslationUnit(
        Context, torchtidy::limits::SummaryCallDepth);
    S.Asked = torchtidy::ProjectSummaries::instance().takeAsked();
    Into.clear();
    llvm::raw_string_ostream OS(Into);
    OS << llvm::json::Value(toJSON(S));
    const std::chrono::duration<double> Took =
        std::chrono::steady_clock::now() - Start;
    logLine(llvm::formatv("project summary: {0:f3} s", Took.count()).str(),
            File);
  }

private:
  std::string &Into;
  std::string File;
};

/// Whether every check enabled for a file is one of ours, by the file's
/// `Checks` (cached: a project has few distinct configurations).
class CheckSetFilter {
public:
  explicit CheckSetFilter(ClangTidyContext &Context) : Context(Context) {}

  bool onlyLibTorchChecks(llvm::StringRef File) {
    const ClangTidyOptions Options = Context.getOptionsForFile(File);
    const std::string Checks = Options.Checks.value_or("");
    auto [It, Inserted] = Known.try_emplace(Checks, false);
    if (Inserted) {
      std::vector<std::string> Names =
          compat::enabledCheckNames(Options, Context);
      It->second =
          !Names.empty() && llvm::all_of(Names, [](const std::string &N) {
            return llvm::StringRef(N).starts_with("libtorch-");
          });
    }
    return It->second;
  }

private:
  ClangTidyContext &Context;
  llvm::StringMap<bool> Known;
};

/// Writes to two streams: what the frontend prints goes to stderr as
/// always, and into the results cache's record of the file.
class TeeStream : public llvm::raw_ostream {
public:
  TeeStream(llvm::raw_ostream &Out, std::string &Copy) : Out(Out), Copy(Copy) {
    SetUnbuffered();
  }

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Out.write(Ptr, Size);
    Copy.append(Ptr, Size);
    Pos += Size;
  }
  uint64_t current_pos() const override { return Pos; }

  llvm::raw_ostream &Out;
  std::string &Copy;
  uint64_t Pos = 0;
};

/// What the analysis of a file left for the results cache.
struct Recording {
  std::shared_ptr<InputCollector> Inputs;
  /// The preamble cache's PCH the file used, whose manifest has its inputs.
  std::string OwnPCH;
  std::string FrontendOutput;
  std::string WorkingDir;
  std::string Summary;
};

/// Says why the project's summaries in \p Path are not used.
void ignoringSummaries(llvm::StringRef Path, llvm::StringRef Why) {
  llvm::errs() << "torch-tidy: ignoring the summaries '" << Path << "': " << Why
               << "\n";
}

/// Gives the checks the project's summaries (ProjectSummaries.h) this run
/// analyses with: a worker of a project run those it was given
/// (--summaries-in) or none; a run of its own files those that the last
/// whole-project run left in the cache directory, but for the stale ones;
/// a run without a cache directory leaves the checks to look for them next
/// to each file, as the plugin does. Returns the content hash of what was
/// given, for the results cache's key, or "" when nothing was (a file that
/// cannot be read is said on stderr, and the run goes on without it).
std::string loadSummaries(const FastRunOptions &Fast) {
  torchtidy::ProjectSummaries &Project =
      torchtidy::ProjectSummaries::instance();
  Project.clear();
  if (!Fast.Summaries || (Fast.Worker && Fast.SummariesIn.empty())) {
    Project.disable();
    return "";
  }
  torchtidy::LinkedSummaries Linked;
  if (!Fast.SummariesIn.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Fast.SummariesIn);
    if (!Buf) {
      llvm::errs() << "torch-tidy: cannot read the summaries '"
                   << Fast.SummariesIn << "': " << Buf.getError().message()
                   << "\n";
      Project.disable();
      return "";
    }
    llvm::Expected<llvm::json::Value> V =
        llvm::json::parse((*Buf)->getBuffer());
    llvm::json::Path::Root Root;
    if (!V || !fromJSON(*V, Linked, Root)) {
      ignoringSummaries(Fast.SummariesIn, V ? llvm::toString(Root.getError())
                                            : llvm::toString(V.takeError()));
      Project.disable();
      return "";
    }
  } else {
    if (Fast.CacheDir.empty())
      return ""; // the checks look for them
    llvm::SmallString<256> Path(Fast.CacheDir);
    llvm::sys::path::append(Path, torchtidy::ProjectSummariesFileName);
    std::string Error;
    std::optional<torchtidy::LinkedSummaries> Read =
        llvm::sys::fs::exists(Path)
            ? torchtidy::readProjectSummaries(Path, Error)
            : std::nullopt;
    if (!Read && !Error.empty())
      ignoringSummaries(Path, Error);
    if (!Read || Read->Functions.empty()) {
      Project.disable();
      return "";
    }
    Linked = std::move(*Read);
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(toJSON(Linked));
  Project.set(std::move(Linked));
  return contentHash(Text);
}

/// Whether \p Path is in the directory \p Dir.
bool isWithin(llvm::StringRef Path, llvm::StringRef Dir) {
  return !Dir.empty() && Path.size() > Dir.size() && Path.starts_with(Dir) &&
         llvm::sys::path::is_separator(Path[Dir.size()]);
}

class TidyActionFactory : public FrontendActionFactory {
public:
  TidyActionFactory(
      ClangTidyContext &Context,
      llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
      CheckSetFilter &Filter, bool Quiet, Recording *Record, bool LeakAtEnd)
      : ConsumerFactory(Context, std::move(BaseFS)), Filter(Filter),
        Quiet(Quiet), Record(Record), LeakAtEnd(LeakAtEnd) {}

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<Action>(*this);
  }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    setUpAsClangTidy(*Invocation);
    if (Quiet)
      Invocation->getDiagnosticOpts().ShowCarets = false;
    // The process ends after its one file: leave the AST to the exit, as
    // clang's own -cc1 does (-disable-free), instead of freeing it piece by
    // piece.
    if (LeakAtEnd)
      Invocation->getFrontendOpts().DisableFree = true;
    return FrontendActionFactory::runInvocation(
        std::move(Invocation), Files, std::move(PCHContainerOps), DiagConsumer);
  }

private:
  class Action : public ASTFrontendAction {
  public:
    explicit Action(TidyActionFactory &Parent) : Parent(Parent) {}
    std::unique_ptr<ASTConsumer>
    CreateASTConsumer(CompilerInstance &Compiler,
                      llvm::StringRef File) override {
      if (Recording *R = Parent.Record) {
        // Before the PCH is loaded (BeginSourceFile loads it after creating
        // the consumer): the collector sees its inputs too.
        R->Inputs = std::make_shared<InputCollector>();
        R->Inputs->attachToPreprocessor(Compiler.getPreprocessor());
        // A PCH's reader names the PCH's inputs as the PCH stored them,
        // which need not be a path one can open (clang shortens the names
        // below the PCH's base directory, /usr/bin/../lib/gcc/... may come
        // back as /../lib/gcc/...). The preamble cache's own PCH lists them
        // in its manifest as its build opened them; any other PCH's are
        // taken from the reader (attached when the PCH is loaded, which
        // BeginSourceFile does after creating this consumer).
        const std::string &PCH =
            Compiler.getPreprocessorOpts().ImplicitPCHInclude;
        if (!PCH.empty() && isWithin(PCH, fastRunOptions().CacheDir))
          R->OwnPCH = PCH;
        else
          Compiler.addDependencyCollector(R->Inputs);
        Compiler.setVerboseOutputStream(
            std::make_unique<TeeStream>(llvm::errs(), R->FrontendOutput));
        if (auto Cwd = Compiler.getFileManager()
                           .getVirtualFileSystem()
                           .getCurrentWorkingDirectory())
          R->WorkingDir = *Cwd;
      }
      std::unique_ptr<ASTConsumer> Tidy =
          Parent.ConsumerFactory.createASTConsumer(Compiler, File);
      if (!Tidy || !fastRunOptions().UserScope ||
          !(fastRunOptions().UserScopeForAllChecks ||
            Parent.Filter.onlyLibTorchChecks(File)))
        return Tidy;
      const bool OnlyOurs = Parent.Filter.onlyLibTorchChecks(File);
      std::vector<std::unique_ptr<ASTConsumer>> Consumers;
      auto Scope = std::make_unique<UserScopeConsumer>(File.str());
      // Only the libtorch checks leave system headers' bodies alone: other
      // checks' analyses may read them (the static analyzer inlines calls
      // into them).
      if (OnlyOurs)
        Consumers.push_back(
            libraryBodySkipper(Compiler, Scope->skippedBodies()));
      Consumers.push_back(std::move(Scope));
      Consumers.push_back(std::move(Tidy));
      // Only the libtorch checks ask the project's summaries.
      if (OnlyOurs)
        Consumers.push_back(std::make_unique<SummaryConsumer>(
            Parent.Record ? Parent.Record->Summary
                          : fastRunSummary().UnitSummary,
            File.str()));
      return std::make_unique<MultiplexConsumer>(std::move(Consumers));
    }

  private:
    TidyActionFactory &Parent;
  };

  ClangTidyASTConsumerFactory ConsumerFactory;
  CheckSetFilter &Filter;
  bool Quiet;
  Recording *Record;
  bool LeakAtEnd;
};

/// clang-tidy's per-file ExtraArgsBefore and ExtraArgs from its options.
ArgumentsAdjuster extraArgsAdjuster(ClangTidyContext &Context) {
  return [&Context](const CommandLineArguments &Args, llvm::StringRef File) {
    ClangTidyOptions Options = Context.getOptionsForFile(File);
    CommandLineArguments Out = Args;
    if (Options.ExtraArgsBefore) {
      auto At = Out.begin();
      if (At != Out.end() && !llvm::StringRef(*At).starts_with("-"))
        ++At; // after the compiler's name
      Out.insert(At, Options.ExtraArgsBefore->begin(),
                 Options.ExtraArgsBefore->end());
    }
    if (Options.ExtraArgs)
      Out.insert(Out.end(), Options.ExtraArgs->begin(),
                 Options.ExtraArgs->end());
    return Out;
  };
}

//===----------------------------------------------------------------------===//
// The results cache's side of a run
//===----------------------------------------------------------------------===//

/// Flags that make the frontend print more than its diagnostics (which a
/// replay would not print again).
bool printsBesidesDiagnostics(llvm::StringRef Arg) {
  return Arg == "-v" || Arg == "--verbose" || Arg == "-H" ||
         Arg == "--trace-includes" || Arg == "-###" ||
         Arg.starts_with("-ftime-report") || Arg.starts_with("-ftime-trace") ||
         Arg.starts_with("-print") || Arg.starts_with("--print") ||
         Arg.starts_with("-ast-") || Arg.starts_with("-dump-") || Arg == "-E";
}

/// The key of one file's analysis: everything that decides its findings
/// besides the files it reads (which the entry lists).
CacheKey resultsKey(ClangTidyContext &Context,
                    const std::vector<CompileCommand> &Commands,
                    llvm::StringRef File, llvm::StringRef AbsoluteFile,
                    bool ApplyAnyFix, bool Quiet,
                    llvm::StringRef SummariesHash) {
  CacheKey Key;
  Key.add("torch-tidy", torchTidyIdentity());

  std::vector<std::string> Command{File.str(), AbsoluteFile.str()};
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd))
    Command.push_back(std::string(Cwd));
  for (const CompileCommand &C : Commands) {
    Command.push_back(C.Directory);
    Command.push_back(C.Filename);
    Command.push_back(std::to_string(C.CommandLine.size()));
    Command.insert(Command.end(), C.CommandLine.begin(), C.CommandLine.end());
  }
  // The environment clang's driver reads include directories from.
  for (const char *Var :
       {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
        "OBJCPLUS_INCLUDE_PATH", "CCC_OVERRIDE_OPTIONS", "SDKROOT"})
    Command.push_back(std::string(Var) + "=" +
                      llvm::sys::Process::GetEnv(Var).value_or("<unset>"));
  Key.add("the compile command", Command);

  ClangTidyOptions Options = Context.getOptionsForFile(AbsoluteFile);
  Key.add("the header filter",
          {Options.HeaderFilterRegex.value_or("<unset>"),
           Options.ExcludeHeaderFilterRegex.value_or("<unset>"),
           Options.SystemHeaders ? (*Options.SystemHeaders ? "1" : "0")
                                 : "<unset>"});
  Options.HeaderFilterRegex.reset();
  Options.ExcludeHeaderFilterRegex.reset();
  Options.SystemHeaders.reset();
  Key.add("the checks or their options",
          {configurationAsText(Options),
           Context.canEnableAnalyzerAlphaCheckers() ? "alpha" : "",
           Context.canEnableModuleHeadersParsing() ? "module-headers" : ""});

  std::vector<std::string> Lines;
  for (const FileFilter &F : Context.getGlobalOptions().LineFilter) {
    Lines.push_back(F.Name);
    for (const auto &[From, To] : F.LineRanges)
      Lines.push_back(std::to_string(From) + "-" + std::to_string(To));
    Lines.emplace_back(";");
  }
  Key.add("the line filter", Lines);

  const FastRunOptions &Fast = fastRunOptions();
  Key.add("the driver's options",
          {ApplyAnyFix ? "fix-notes" : "", Quiet ? "quiet" : "",
           Fast.UserScope ? "scope" : "full",
           Fast.PreambleCache ? "preamble" : "no-preamble"});
  // A file analysed again with the project's summaries (ProjectSummaries.h)
  // depends on what they say; without, the key is as it always was.
  if (!SummariesHash.empty())
    Key.add("the project's summaries", {SummariesHash.str()});
  return Key;
}

/// Why the results cache cannot serve this run, or "" when it can.
std::string resultsCacheUnusable(
    ClangTidyContext &Context, const CompilationDatabase &Compilations,
    llvm::ArrayRef<std::string> InputFiles,
    const llvm::vfs::OverlayFileSystem &BaseFS, CheckSetFilter &Filter,
    llvm::StringRef AbsoluteFile, bool EnableCheckProfile,
    llvm::StringRef StoreCheckProfile, std::vector<CompileCommand> &Commands) {
  if (InputFiles.size() != 1)
    return "off for several files in one process (use -j N)";
  if (fastRunOptions().Fixing)
    return "off with --fix";
  if (EnableCheckProfile || !StoreCheckProfile.empty())
    return "off with --enable-check-profile";
  if (!Filter.onlyLibTorchChecks(AbsoluteFile))
    return "off: checks other than libtorch-* are enabled";
  if (std::distance(BaseFS.overlays_begin(), BaseFS.overlays_end()) != 1)
    return "off with --vfsoverlay";
  Commands = Compilations.getCompileCommands(AbsoluteFile);
  if (Commands.empty())
    return "off: no compile command";
  for (const CompileCommand &C : Commands)
    for (const std::string &A : C.CommandLine)
      if (printsBesidesDiagnostics(A))
        return "off with " + A;
  const ClangTidyOptions Options = Context.getOptionsForFile(AbsoluteFile);
  for (const auto *Args : {&Options.ExtraArgs, &Options.ExtraArgsBefore})
    if (*Args)
      for (const std::string &A : **Args)
        if (printsBesidesDiagnostics(A))
          return "off with " + A;
  return "";
}

/// What a hit adds to its log line about files with new times.
std::string retimedNote(const ResultsCache::Lookup &Hit) {
  if (!Hit.Retimed)
    return "";
  std::string Note = " (" + std::to_string(Hit.Retimed) +
                     (Hit.Retimed == 1 ? " file" : " files") +
                     " with a new time, the same content";
  if (Hit.Unrecorded)
    Note += "; " + std::to_string(Hit.Unrecorded) + " too recent to record";
  return Note + ")";
}

/// The files \p Record saw, absolute, without the cache's own (the
/// preamble's .h is made from the files that include it, its PCH from the
/// headers the manifest lists); std::nullopt when they cannot be known.
std::optional<std::vector<FileStamp>> readFiles(const Recording &Record,
                                                llvm::StringRef AbsoluteFile,
                                                llvm::StringRef CacheDir) {
  std::vector<FileStamp> Out;
  llvm::StringSet<> Seen;
  auto Add = [&](llvm::StringRef Name, bool System) {
    // Absolute, with any `..` kept: /bin/../lib is not /lib where /bin is a
    // link (PreambleCache.cpp).
    llvm::SmallString<256> P(Name);
    compat::makeAbsolute(Record.WorkingDir, P);
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
    if (isWithin(P, CacheDir))
      return;
    if (Seen.insert(P).second)
      Out.push_back({std::string(P), 0, 0, "", System});
  };
  Add(AbsoluteFile, false);
  if (Record.Inputs)
    for (const auto &[Name, System] : Record.Inputs->Seen)
      Add(Name, System);
  if (!Record.OwnPCH.empty()) {
    const llvm::StringRef Base(Record.OwnPCH);
    auto Buf = llvm::MemoryBuffer::getFile(Base.drop_back(4) + ".manifest");
    std::optional<PreambleManifest> M =
        Buf ? PreambleManifest::parse((*Buf)->getBuffer()) : std::nullopt;
    if (!M || M->Status != PreambleManifest::Usable)
      return std::nullopt;
    // A usable preamble reads system headers only.
    for (const PreambleManifest::Input &In : M->Inputs)
      Add(In.Path, /*System=*/true);
  }
  return Out;
}

/// Stores the analysis of \p AbsoluteFile under \p Key, unless it must not
/// be: a file that does not compile may compile once a missing header
/// appears, which its inputs cannot show, and a file written while it was
/// analysed may have been read before or after the change. Says why not.
bool storeResults(ResultsCache &Results, const CacheKey &Key,
                  llvm::StringRef AbsoluteFile, const Recording &Record,
                  llvm::vfs::FileSystem &FS, int ToolStatus,
                  const std::vector<ClangTidyError> &Errors,
                  const ClangTidyStats &Stats,
                  std::chrono::system_clock::time_point StartedAt) {
  if (ToolStatus != 0 || llvm::any_of(Errors, [](const ClangTidyError &E) {
        return E.DiagLevel == ClangTidyError::Error;
      })) {
    logLine("results cache: not stored, the file does not compile",
            AbsoluteFile);
    return false;
  }
  std::optional<std::vector<FileStamp>> Read =
      readFiles(Record, AbsoluteFile, fastRunOptions().CacheDir);
  if (!Read) {
    logLine("results cache: not stored, the PCH's manifest is gone",
            AbsoluteFile);
    return false;
  }
  std::vector<FileStamp> Inputs = std::move(*Read);
  const int64_t Started = racyFrom(StartedAt);
  for (FileStamp &S : Inputs) {
    if (!statFile(FS, S)) {
      logLine("results cache: not stored, cannot read " + S.Path, AbsoluteFile);
      return false;
    }
    if (S.MTime >= Started) {
      logLine("results cache: not stored, " + S.Path +
                  " changed during the analysis",
              AbsoluteFile);
      return false;
    }
  }
  if (!Results.store(
          Key, AbsoluteFile,
          CachedRun{Errors, Stats, Record.FrontendOutput, Record.Summary},
          std::move(Inputs))) {
    logLine("results cache: not stored, cannot write to " +
                Results.resultsDir(),
            AbsoluteFile);
    return false;
  }
  return true;
}

std::vector<ClangTidyError>
runClangTidyFast(ClangTidyContext &Context,
                 const CompilationDatabase &Compilations,
                 llvm::ArrayRef<std::string> InputFiles,
                 llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
                 bool ApplyAnyFix, bool EnableCheckProfile,
                 llvm::StringRef StoreCheckProfile, bool Quiet) {
  const auto StartedAt = std::chrono::system_clock::now();
  const FastRunOptions &Fast = fastRunOptions();
  FastRunSummary &Summary = fastRunSummary();
  Summary.Ran = true;
  Summary.Files += InputFiles.size();
  CheckSetFilter Filter(Context);
  const std::string SummariesHash = loadSummaries(Fast);
  Summary.UnitSummary.clear();
  auto Count = [&](std::vector<ClangTidyError> Errors) {
    for (const ClangTidyError &E : Errors)
      if (E.DiagnosticName == "clang-diagnostic-error")
        ++Summary.CompilerErrors;
      else
        ++Summary.FindingsByCheck[E.DiagnosticName];
    return Errors;
  };

  // The results cache: replay an unchanged file, or record this analysis.
  std::optional<ResultsCache> Results;
  std::optional<CacheKey> Key;
  std::string AbsoluteFile;
  if (!Fast.CacheDir.empty() && Fast.ResultsCache && !InputFiles.empty()) {
    llvm::Expected<std::string> Abs =
        getAbsolutePath(*BaseFS, InputFiles.front());
    AbsoluteFile = Abs ? *Abs : InputFiles.front();
    if (!Abs)
      llvm::consumeError(Abs.takeError());
    std::vector<CompileCommand> Commands;
    const std::string Unusable = resultsCacheUnusable(
        Context, Compilations, InputFiles, *BaseFS, Filter, AbsoluteFile,
        EnableCheckProfile, StoreCheckProfile, Commands);
    if (!Unusable.empty()) {
      logLine("results cache: " + Unusable, AbsoluteFile);
    } else {
      Key = resultsKey(Context, Commands, InputFiles.front(), AbsoluteFile,
                       ApplyAnyFix, Quiet, SummariesHash);
      Results.emplace(Fast.CacheDir, BaseFS);
      ResultsCache::Lookup Hit = Results->lookup(*Key, AbsoluteFile);
      if (Hit.Run) {
        logLine("results cache: hit " + Key->hash() + retimedNote(Hit),
                AbsoluteFile);
        ++Summary.ResultsHits;
        llvm::errs() << Hit.Run->FrontendOutput;
        Summary.UnitSummary = Hit.Run->Summary;
        addStats(contextStats(Context), Hit.Run->Stats);
        return Count(std::move(Hit.Run->Errors));
      }
      logLine("results cache: miss " + Key->hash() + ", " + Hit.Why,
              AbsoluteFile);
      ++Summary.ResultsMisses;
    }
  }

  // The parse reads CUDA files with spaced launch brackets respelled
  // (LaunchSpelling.h); fixes, caches and the rest read the files as they
  // are, at the same offsets.
  ClangTool Tool(Compilations, InputFiles,
                 std::make_shared<PCHContainerOperations>(),
                 launchRespellingFileSystem(BaseFS));
  // First: nvcc's commands become clang's (CUDA, host side) before the
  // options' extra arguments join them.
  static const CudaParseOptions Cuda = [] {
    CudaParseOptions O;
    O.CompatInclude = findCudaCompatInclude("torch-tidy");
    return O;
  }();
  Tool.appendArgumentsAdjuster(cudaArgumentsAdjuster(Cuda));
  Tool.appendArgumentsAdjuster(extraArgsAdjuster(Context));
  Tool.appendArgumentsAdjuster(getStripPluginsAdjuster());
  // clang's own headers from the LLVM installation, as clang-tidy gets them
  // (ClangTool would derive them from this executable's path).
  Tool.appendArgumentsAdjuster(
      [](const CommandLineArguments &Args, llvm::StringRef) {
        for (const std::string &A : Args)
          if (llvm::StringRef(A).starts_with("-resource-dir"))
            return Args;
        CommandLineArguments Out = Args;
        Out.push_back("-resource-dir=" + compat::clangResourceDir());
        return Out;
      });
  // LibTorch from a wheel or the zip, Python and pybind11 by -I (setup.py
  // builds, Makefiles) are system headers, as CMake's imported targets make
  // them: outside the traversal scope, and fit for the preamble cache.
  Tool.appendArgumentsAdjuster(
      [&Filter, ThirdParty = thirdPartyIncludesAdjuster(BaseFS)](
          const CommandLineArguments &Args, llvm::StringRef File) {
        return Filter.onlyLibTorchChecks(File) ? ThirdParty(Args, File) : Args;
      });

  std::optional<PreambleCache> Preambles;
  if (!Fast.CacheDir.empty() && Fast.PreambleCache) {
    // Its files' own parse leaves out library bodies under the traversal
    // scope (TidyActionFactory), and so does their PCH.
    Preambles.emplace(Fast.CacheDir, BaseFS, Fast.CacheVerbose,
                      /*SkipLibraryBodies=*/Fast.UserScope);
    Tool.appendArgumentsAdjuster(
        [&](const CommandLineArguments &Args, llvm::StringRef File) {
          return Filter.onlyLibTorchChecks(File) ? Preambles->adjust(Args, File)
                                                 : Args;
        });
  }

  Context.setEnableProfiling(EnableCheckProfile);
  Context.setProfileStoragePrefix(StoreCheckProfile);

  ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr, true, ApplyAnyFix);
  const compat::ContextDiagnostics Diagnostics(Context, DiagConsumer);
  Tool.setDiagnosticConsumer(&DiagConsumer);

  std::optional<Recording> Record;
  if (Key)
    Record.emplace();
  // The profile is written when the checks' consumer is destroyed.
  const bool LeakAtEnd = InputFiles.size() == 1 && !EnableCheckProfile &&
                         StoreCheckProfile.empty();
  const ClangTidyStats StatsBefore = Context.getStats();
  const llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = BaseFS;
  TidyActionFactory Factory(Context, std::move(BaseFS), Filter, Quiet,
                            Record ? &*Record : nullptr, LeakAtEnd);
  const int ToolStatus = Tool.run(&Factory);
  std::vector<ClangTidyError> Errors = DiagConsumer.take();
  bool Wrote = Preambles && Preambles->wroteEntry();

  if (Record)
    Summary.UnitSummary = Record->Summary;
  if (Key && Results && Record)
    Wrote |=
        storeResults(*Results, *Key, AbsoluteFile, *Record, *FS, ToolStatus,
                     Errors, Context.getStats() - StatsBefore, StartedAt);
  if (Wrote)
    evictLeastRecentlyUsed(Fast.CacheDir, Fast.CacheMaxBytes);
  return Count(std::move(Errors));
}

} // namespace

} // namespace torchtidy::driver

// The replacement of clang::tidy::runClangTidy: the linker sends
// clangTidyMain's call here (--wrap=<mangled name>, the name read from the
// clang-tidy library at configure time, tools/CMakeLists.txt).
std::vector<ClangTidyError> torchtidyRunClangTidy(
    ClangTidyContext &Context, const CompilationDatabase &Compilations,
    llvm::ArrayRef<std::string> InputFiles,
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
    bool ApplyAnyFix, bool EnableCheckProfile,
    llvm::StringRef StoreCheckProfile
        TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS) asm("__"
                                                   "wrap"
                                                   "_" TORCHTIDY_RUN_CLANG_TIDY_SYMBOL);
// The wrapped symbol is the one runClangTidy the library defines; this is
// its declared type, or the build stops here.
static_assert(std::is_same_v<decltype(&clang::tidy::runClangTidy),
                             decltype(&torchtidyRunClangTidy)>,
              "clang::tidy::runClangTidy changed: update "
              "TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS (DriverCompat.h)");
std::vector<ClangTidyError> torchtidyRunClangTidy(
    ClangTidyContext &Context, const CompilationDatabase &Compilations,
    llvm::ArrayRef<std::string> InputFiles,
    llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> BaseFS,
    bool ApplyAnyFix, bool EnableCheckProfile,
    llvm::StringRef StoreCheckProfile TORCHTIDY_RUN_CLANG_TIDY_EXTRA_PARAMS) {
  return torchtidy::driver::runClangTidyFast(
      Context, Compilations, InputFiles, std::move(BaseFS), ApplyAnyFix,
      EnableCheckProfile, StoreCheckProfile, TORCHTIDY_RUN_CLANG_TIDY_QUIET);
}
