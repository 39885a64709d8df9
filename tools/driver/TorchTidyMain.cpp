//===--- TorchTidyMain.cpp - the torch-tidy driver ------------------------===//
//
// clang-tidy with the libtorch module linked in. With clang-tidy's own
// arguments it is clang-tidy (clangTidyMain). torch-tidy adds:
//   -p <build> with no files   every file of compile_commands.json
//   -j N, --jobs=N             parallel workers (default: the core count)
//   --shard=i/n                the i-th of n deterministic shares of the files
//   --changed-lines[=diff]     only diagnostics on lines a unified diff adds
//                              (from the file, or stdin without one)
//   --sarif=out.sarif          SARIF 2.1.0 of all diagnostics
//   --sarif-docs-base=URL      where the libtorch checks' pages are
//   --progress/--no-progress   progress line (default: on a terminal)
//   --cache-dir=DIR            preamble and results caches (default:
//                              <-p dir>/torch-tidy-cache)
//   --cache-max-size=SIZE      bound of that directory (default 2G)
//   --no-preamble-cache        parse every file's includes
//   --no-results-cache         analyse every file, changed or not
//   --full-traversal           let the checks visit the system headers' AST,
//                              and parse every function body of the headers
//   --skip-system-headers      every check, not only the libtorch ones,
//                              visits only declarations outside system
//                              headers (clang-tidy 22's default)
//   --cache-verbose            say what the caches and the traversal scope
//                              do for each file, and how long its project
//                              summary took
//   --no-summaries             a project run does not link the files'
//                              summaries (docs/summaries.md)
// The first five run the files in worker processes (this same driver, one
// file each), so a crash on one file costs that file only. Every run that
// analyses files ends with a summary line on stderr (RunSummary.h).
//
//===----------------------------------------------------------------------===//

#include "ChangedLines.h"
#include "ClangTidyForceLinker.h" // IWYU pragma: keep (links the modules)
#include "FastRun.h"
#include "ProjectRunner.h"
#include "RunSummary.h"
#include "Sarif.h"
#include "TorchTidyVersion.h"
#include "tool/ClangTidyMain.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>

namespace clang::tidy {
extern volatile int LibTorchModuleAnchorSource;
[[maybe_unused]] static int LibTorchModuleAnchorDestination =
    LibTorchModuleAnchorSource;
} // namespace clang::tidy

using namespace torchtidy::driver;

namespace {

/// clang-tidy options that take a value, so `-opt value` consumes two
/// arguments. (A list, not StringSwitch::Cases: LLVM 22 deprecates the form
/// LLVM 19 has.)
bool takesValue(llvm::StringRef Opt) {
  return llvm::is_contained(
      {"p", "checks", "config", "config-file", "export-fixes", "extra-arg",
       "extra-arg-before", "format-style", "header-filter",
       "exclude-header-filter", "line-filter", "load", "store-check-profile",
       "vfsoverlay", "warnings-as-errors",
       "removed-arg" /* clang-tidy 22 and later */},
      Opt.ltrim('-'));
}

bool isInformational(llvm::StringRef Opt) {
  return llvm::is_contained({"list-checks", "dump-config", "explain-config",
                             "verify-config", "help", "help-hidden", "version",
                             "h"},
                            Opt.ltrim('-'));
}

int usage(const llvm::Twine &Message) {
  llvm::errs() << "torch-tidy: " << Message << "\n";
  return ExitFailure;
}

/// Takes the driver's speed options (FastRun.h) out of \p Argv, which
/// clangTidyMain would reject, into fastRunOptions(); returns them as given,
/// for the workers of a project run. \p WorkerReport is set for a worker of
/// a project run (ProjectRunner.cpp), which reports there instead of
/// printing a summary.
llvm::Expected<std::vector<std::string>>
takeFastRunOptions(std::vector<const char *> &Argv, std::string &WorkerReport) {
  FastRunOptions &Fast = fastRunOptions();
  std::vector<std::string> Taken;
  std::vector<const char *> Rest;
  bool AfterDashDash = false;
  for (const char *Arg : Argv) {
    const llvm::StringRef A(Arg);
    AfterDashDash |= A == "--";
    llvm::StringRef Opt = A.ltrim('-');
    if (AfterDashDash || Rest.empty() || A == Opt) {
      Rest.push_back(Arg);
      continue;
    }
    if (Opt.consume_front("cache-dir=")) {
      llvm::SmallString<256> P(Opt);
      // On failure (no working directory) the path stays as given.
      (void)llvm::sys::fs::make_absolute(P);
      llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
      Fast.CacheDir = std::string(P);
      Taken.push_back("--cache-dir=" + Fast.CacheDir);
    } else if (Opt.consume_front("cache-max-size=")) {
      std::optional<uint64_t> Bytes = parseCacheSize(Opt);
      if (!Bytes)
        return llvm::createStringError(
            "--cache-max-size needs a size such as 2G, 500M or 64K, not '" +
            Opt.str() + "'");
      Fast.CacheMaxBytes = *Bytes;
      Taken.push_back(A.str());
    } else if (Opt == "no-preamble-cache") {
      Fast.PreambleCache = false;
      Taken.push_back(A.str());
    } else if (Opt == "no-results-cache") {
      Fast.ResultsCache = false;
      Taken.push_back(A.str());
    } else if (Opt == "full-traversal") {
      Fast.UserScope = false;
      Taken.push_back(A.str());
    } else if (Opt == "skip-system-headers") {
      Fast.UserScopeForAllChecks = true;
      Taken.push_back(A.str());
    } else if (Opt == "cache-verbose") {
      Fast.CacheVerbose = true;
      Taken.push_back(A.str());
    } else if (Opt.consume_front("worker-report=")) {
      WorkerReport = Opt.str();
      Fast.Worker = true;
    } else if (Opt.consume_front("summaries-in=")) {
      Fast.SummariesIn = Opt.str();
    } else if (Opt == "no-summaries") {
      Fast.Summaries = false;
      Taken.push_back(A.str());
    } else {
      Rest.push_back(Arg);
    }
  }
  Argv = std::move(Rest);
  return Taken;
}

/// --version: clang-tidy's lines (the LLVM version of the libraries, which
/// tools that check `clang-tidy --version` read), then torch-tidy's own.
void printTorchTidyVersion(llvm::raw_ostream &OS) {
  OS << "torch-tidy version " << TORCHTIDY_VERSION << "\n"
     << "  built against LLVM " << LLVM_VERSION_STRING << "\n"
     << "  libtorch checks tested against LibTorch "
     << TORCHTIDY_TESTED_LIBTORCH_VERSION << "\n"
     << "  " << torchtidy::driver::libtorchFindsSentence() << "\n";
}

} // namespace

int main(int OrigArgc, const char **OrigArgv) {
  llvm::cl::AddExtraVersionPrinter(printTorchTidyVersion);
  const auto Started = std::chrono::steady_clock::now();
  std::vector<const char *> ArgvStorage(OrigArgv, OrigArgv + OrigArgc);
  std::string WorkerReport;
  llvm::Expected<std::vector<std::string>> Taken =
      takeFastRunOptions(ArgvStorage, WorkerReport);
  if (!Taken)
    return usage(llvm::toString(Taken.takeError()));
  std::vector<std::string> FastArgs = std::move(*Taken);
  ArgvStorage.push_back(nullptr);
  int Argc = static_cast<int>(ArgvStorage.size()) - 1;
  const char **Argv = ArgvStorage.data();

  ProjectOptions O;
  O.Self = llvm::sys::fs::getMainExecutable(Argv[0],
                                            reinterpret_cast<void *>(&main));
  bool Extended = false, Informational = false, Fix = false;
  std::optional<std::string> ChangedLinesFrom;
  std::optional<bool> Progress;
  std::vector<std::string> Files;
  unsigned Jobs = 0;

  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef A(Argv[I]);
    if (A == "--") {
      for (int K = I; K < Argc; ++K)
        O.CompilerArgs.emplace_back(Argv[K]);
      break;
    }
    auto Value = [&](llvm::StringRef Name, std::string &Out) -> bool {
      // --name=value or --name value (one or two dashes).
      llvm::StringRef Opt = A.ltrim('-');
      if (A == Opt)
        return false;
      if (Opt.consume_front(Name)) {
        if (Opt.consume_front("=")) {
          Out = Opt.str();
          return true;
        }
        if (Opt.empty() && I + 1 < Argc) {
          Out = Argv[++I];
          return true;
        }
      }
      return false;
    };
    std::string V;
    if (A == "-j" || A.starts_with("-j") || Value("jobs", V)) {
      if (V.empty())
        V = A == "-j" ? (I + 1 < Argc ? Argv[++I] : "")
                      : A.drop_front(2).ltrim('=').str();
      if (llvm::StringRef(V).getAsInteger(10, Jobs) || Jobs == 0)
        return usage("-j needs a positive number of jobs, not '" + V + "'");
      Extended = true;
      continue;
    }
    if (Value("shard", V)) {
      auto [IS, NS] = llvm::StringRef(V).split('/');
      if (IS.getAsInteger(10, O.ShardIndex) ||
          NS.getAsInteger(10, O.ShardCount) || O.ShardCount == 0 ||
          O.ShardIndex == 0 || O.ShardIndex > O.ShardCount)
        return usage("--shard needs i/n with 1 <= i <= n, not '" + V + "'");
      Extended = true;
      continue;
    }
    if (A == "--changed-lines" || A == "-changed-lines") {
      ChangedLinesFrom = "-";
      Extended = true;
      continue;
    }
    if (A.starts_with("--changed-lines=") || A.starts_with("-changed-lines=")) {
      ChangedLinesFrom = A.split('=').second.str();
      Extended = true;
      continue;
    }
    if (Value("sarif-docs-base", V)) {
      O.SarifDocsBase = V;
      continue;
    }
    if (Value("sarif", V)) {
      O.Sarif = V;
      Extended = true;
      continue;
    }
    if (A == "--progress" || A == "--no-progress") {
      Progress = A == "--progress";
      continue;
    }
    if (Value("export-fixes", V)) {
      O.ExportFixes = V;
      continue;
    }
    if (Value("p", V)) {
      O.BuildPath = V;
      O.TidyArgs.push_back("-p=" + V);
      continue;
    }
    if (A == "--fix" || A == "-fix" || A == "--fix-errors" ||
        A == "-fix-errors" || A == "--fix-notes" || A == "-fix-notes")
      Fix = true;
    if (A.starts_with("-")) {
      Informational |= isInformational(A.split('=').first);
      O.TidyArgs.push_back(A.str());
      if (!A.contains('=') && takesValue(A) && I + 1 < Argc)
        O.TidyArgs.emplace_back(Argv[++I]);
      continue;
    }
    Files.push_back(A.str());
  }

  const bool ProjectMode =
      Files.empty() && !O.BuildPath.empty() && !Informational;
  fastRunOptions().Fixing = Fix;
  if (fastRunOptions().CacheDir.empty() && !O.BuildPath.empty()) {
    llvm::SmallString<256> P(O.BuildPath);
    (void)llvm::sys::fs::make_absolute(P); // as given on failure
    llvm::sys::path::append(P, "torch-tidy-cache");
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/false);
    fastRunOptions().CacheDir = std::string(P);
  }
  // Workers get the same speed options.
  O.TidyArgs.insert(O.TidyArgs.end(), FastArgs.begin(), FastArgs.end());
  if (Informational || (!Extended && !ProjectMode)) {
    if (Extended)
      return usage("-j, --shard, --changed-lines and --sarif do not combine "
                   "with --list-checks, --dump-config or --help");
    const int Status = clang::tidy::clangTidyMain(Argc, Argv);
    const FastRunSummary &Ran = fastRunSummary();
    if (!Ran.Ran)
      return Status; // nothing was analysed (--help, a usage error...)
    if (!WorkerReport.empty()) {
      writeWorkerReport(WorkerReport, Ran);
      return Status;
    }
    RunSummary S;
    S.Files = Ran.Files;
    S.FindingsByCheck = Ran.FindingsByCheck;
    S.CompilerErrors = Ran.CompilerErrors;
    S.ResultsHits = Ran.ResultsHits;
    S.ResultsMisses = Ran.ResultsMisses;
    S.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              Started)
                    .count();
    llvm::errs() << formatSummary(S) << "\n";
    return Status;
  }

  if (ChangedLinesFrom) {
    auto Buf = *ChangedLinesFrom == "-"
                   ? llvm::MemoryBuffer::getSTDIN()
                   : llvm::MemoryBuffer::getFile(*ChangedLinesFrom);
    if (!Buf)
      return usage("cannot read the diff '" + *ChangedLinesFrom +
                   "': " + Buf.getError().message());
    auto Parsed = parseUnifiedDiff((*Buf)->getBuffer());
    if (!Parsed)
      return usage(llvm::toString(Parsed.takeError()));
    O.Changed = std::move(*Parsed);
    for (const std::string &A : O.TidyArgs)
      if (llvm::StringRef(A).ltrim('-').starts_with("line-filter"))
        return usage("--changed-lines and --line-filter do not combine");
  }
  for (std::string &F : Files) {
    llvm::SmallString<256> P(F);
    (void)llvm::sys::fs::make_absolute(P); // as given on failure
    llvm::sys::path::remove_dots(P, true);
    F = std::string(P);
  }
  O.Files = std::move(Files);
  if (O.BuildPath.empty() && O.CompilerArgs.empty() && !O.Files.empty()) {
    // Like clang-tidy: look for compile_commands.json above the first file.
    O.BuildPath = std::string(llvm::sys::path::parent_path(O.Files.front()));
  }
  O.Jobs = Jobs ? Jobs : std::max(1U, std::thread::hardware_concurrency());
  if (Fix && O.Jobs > 1) {
    // Two workers fixing one shared header would race.
    llvm::errs() << "torch-tidy: --fix runs one file at a time (-j1)\n";
    O.Jobs = 1;
  }
  O.Progress =
      Progress ? *Progress : llvm::sys::Process::StandardErrIsDisplayed();
  llvm::SmallString<256> Cwd;
  if (!llvm::sys::fs::current_path(Cwd))
    O.SourceRoot = std::string(Cwd);
  O.Started = Started;
  O.LinkSummaries = fastRunOptions().Summaries;
  O.CacheDir = fastRunOptions().CacheDir;
  return runProject(std::move(O));
}
