//===--- ProjectRunner.cpp - torch-tidy over many files -------------------===//

#include "ProjectRunner.h"
#include "CacheDirectory.h"
#include "DriverCompat.h"
#include "RunSummary.h"
#include "Sarif.h"

#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/ProjectSummaries.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/DiagnosticsYaml.h" // IWYU pragma: keep (YAML traits)
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

namespace torchtidy::driver {

std::vector<std::string> selectShard(const std::vector<std::string> &Files,
                                     unsigned Index, unsigned Count) {
  std::vector<std::string> Out;
  for (size_t K = 0; K < Files.size(); ++K)
    if (K % Count + 1 == Index)
      Out.push_back(Files[K]);
  return Out;
}

namespace {

struct Job {
  std::string File;
  std::string OutputPath, FixesPath, ReportPath;
  /// The linked summaries of a second analysis (ProjectSummaries.h).
  std::string SummariesIn;
  llvm::sys::ProcessInfo Process;
  bool Started = false, Finished = false, Printed = false;
  int ReturnCode = 0;
  std::string Output;
  std::vector<clang::tooling::Diagnostic> Diagnostics;
  bool ParseFailed = false;
  /// Why the worker did not finish with its findings (failureOf); empty
  /// when it did.
  std::string Failure;
};

bool looksLikeCudaCommand(const clang::tooling::CompileCommand &C) {
  return !C.CommandLine.empty() &&
         llvm::sys::path::filename(C.CommandLine.front()).contains("nvcc");
}

/// Where a line of \p Out starts with \p Prefix (npos when none does): LLVM's
/// own messages, not a finding's source snippet that quotes them.
size_t lineStarting(llvm::StringRef Out, llvm::StringRef Prefix) {
  if (Out.starts_with(Prefix))
    return 0;
  const size_t At = Out.find(("\n" + Prefix).str());
  return At == llvm::StringRef::npos ? At : At + 1;
}

/// Why the worker of \p J did not finish with its findings, for the line
/// that names its file, or "" when it did. It failed when it crashed, when
/// LLVM ended it (report_fatal_error exits 1: "LLVM ERROR: IO failure on
/// output stream" on a full disk), or when it exited non-zero with neither
/// findings nor a compiler error to say why: a worker that could not write
/// its output says nothing at all. Its findings are missing, which must not
/// pass for a file without any.
std::string failureOf(const Job &J) {
  const llvm::StringRef Out(J.Output);
  if (const size_t Fatal = lineStarting(Out, "LLVM ERROR:");
      Fatal != llvm::StringRef::npos)
    return Out.substr(Fatal).split('\n').first.trim().str();
  if (J.ReturnCode < 0)
    return "it crashed";
  if (Out.contains("Stack dump") || Out.contains("PLEASE submit a bug report"))
    return "it crashed (exit status " + std::to_string(J.ReturnCode) + ")";
  if (J.ReturnCode != 0 && !J.ParseFailed && J.Diagnostics.empty())
    return "it exited " + std::to_string(J.ReturnCode) +
           (Out.trim().empty() ? " and wrote nothing" : "") +
           ", with no findings and no compiler error";
  return "";
}

void readResults(Job &J) {
  if (auto Buf = llvm::MemoryBuffer::getFile(J.OutputPath))
    J.Output = (*Buf)->getBuffer().str();
  if (auto Buf = llvm::MemoryBuffer::getFile(J.FixesPath)) {
    clang::tooling::TranslationUnitDiagnostics TUD;
    llvm::yaml::Input YIn((*Buf)->getBuffer());
    YIn >> TUD;
    if (!YIn.error())
      J.Diagnostics = std::move(TUD.Diagnostics);
  }
  // Paths in the export are as the compile command spelled them; make them
  // absolute, so that one header seen from two directories is one file.
  auto Absolute = [](std::string &Path, llvm::StringRef Dir) {
    if (Path.empty() || llvm::sys::path::is_absolute(Path))
      return;
    llvm::SmallString<256> P(Path);
    compat::makeAbsolute(Dir, P);
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    Path = std::string(P);
  };
  for (auto &D : J.Diagnostics) {
    Absolute(D.Message.FilePath, D.BuildDirectory);
    for (auto &N : D.Notes)
      Absolute(N.FilePath, D.BuildDirectory);
    llvm::StringMap<clang::tooling::Replacements> Fixed;
    for (auto &[File, Reps] : D.Message.Fix) {
      std::string Path = File.str();
      Absolute(Path, D.BuildDirectory);
      for (const clang::tooling::Replacement &R : Reps)
        llvm::consumeError(Fixed[Path].add(clang::tooling::Replacement(
            Path, R.getOffset(), R.getLength(), R.getReplacementText())));
    }
    D.Message.Fix = std::move(Fixed);
  }
  const llvm::StringRef Out(J.Output);
  J.ParseFailed = Out.contains("Error while processing") ||
                  Out.contains("Found compiler error");
  for (const auto &D : J.Diagnostics)
    if (D.DiagnosticName == "clang-diagnostic-error")
      J.ParseFailed = true;
  J.Failure = failureOf(J);
}

/// Links the summaries the workers reported (ProjectSummaries.h) and
/// prepares a second analysis of each file whose checks asked about a
/// function that another file's summary says something of: its linked
/// summaries go to a file of \p TempDir, and the job starts afresh.
/// \p Earlier, when set, holds what the last whole-project run said, for a
/// run of part of the project: the functions of the files it does not
/// analyse. Returns the jobs to run again, in file order; \p Linked gets
/// the linked summaries.
std::vector<size_t> analyseAgainWithSummaries(
    std::vector<Job> &Jobs, llvm::StringRef TempDir,
    std::optional<torchtidy::LinkedSummaries> Earlier,
    std::map<std::string, torchtidy::FunctionSummary> &Linked) {
  std::vector<torchtidy::TranslationUnitSummary> Units(Jobs.size());
  for (size_t K = 0; K < Jobs.size(); ++K) {
    // A file without a summary (it crashed, other checks ran) links
    // nothing and is not analysed again.
    const std::string Text = readWorkerSummary(Jobs[K].ReportPath);
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
    llvm::json::Path::Root Root;
    if (!V) {
      llvm::consumeError(V.takeError());
      continue;
    }
    if (!fromJSON(*V, Units[K], Root))
      Units[K] = {};
  }
  // After this run's own: a function summarised now is as it is now.
  if (Earlier) {
    Units.emplace_back();
    Units.back().Functions = std::move(Earlier->Functions);
  }
  Linked = torchtidy::linkSummaries(Units, torchtidy::limits::SummaryLinkDepth);
  std::vector<size_t> Again;
  for (size_t K = 0; K < Jobs.size(); ++K) {
    const torchtidy::LinkedSummaries For =
        torchtidy::summariesFor(Units[K], Linked);

    if (For.Functions.empty())
      continue;
    Job &J = Jobs[K];
    std::string Path = (TempDir + "/" + std::to_string(K) + ".summaries").str();
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    OS << llvm::json::Value(toJSON(For));
    if (!writeFileAtomically(Path, Text))
      continue; // the first analysis stands
    J.SummariesIn = std::move(Path);
    J.Started = J.Finished = J.Printed = false;
    J.ReturnCode = 0;
    J.Output.clear();
    J.Diagnostics.clear();
    J.ParseFailed = false;
    J.Failure.clear();
    Again.push_back(K);
  }
  return Again;
}

/// Writes the linked summaries that say something, with the hashes of the
/// files they name, to the cache directory \p CacheDir
/// (ProjectSummariesFileName); best effort: a run of one file then finds
/// none, as before summaries.
void writeProjectSummaries(
    llvm::StringRef CacheDir,
    const std::map<std::string, torchtidy::FunctionSummary> &Linked) {
  if (llvm::sys::fs::create_directories(CacheDir))
    return;
  llvm::SmallString<256> Path(CacheDir);
  llvm::sys::path::append(Path, torchtidy::ProjectSummariesFileName);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(toJSON(torchtidy::projectSummariesFile(Linked)));
  (void)writeFileAtomically(Path, Text);
}

} // namespace

int runProject(ProjectOptions O) {
  llvm::raw_ostream &Err = llvm::errs();
  std::vector<std::string> Files = O.Files;
  unsigned NvccFiles = 0;
  if (Files.empty()) {
    std::string Error;
    auto DB = clang::tooling::CompilationDatabase::autoDetectFromDirectory(
        O.BuildPath, Error);
    if (!DB) {
      Err << "torch-tidy: cannot read a compilation database from '"
          << O.BuildPath << "': " << Error << "\n";
      return ExitFailure;
    }
    llvm::StringSet<> Seen;
    for (const auto &C : DB->getAllCompileCommands()) {
      llvm::SmallString<256> Path(C.Filename);
      if (!llvm::sys::path::is_absolute(Path))
        compat::makeAbsolute(C.Directory, Path);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
      // Parsed with clang's CUDA mode (CudaCommand.h).
      if (looksLikeCudaCommand(C) && !Seen.count(Path))
        ++NvccFiles;
      if (Seen.insert(Path).second)
        Files.push_back(std::string(Path));
    }
  }
  std::sort(Files.begin(), Files.end());
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  const size_t InDatabase = Files.size();
  Files = selectShard(Files, O.ShardIndex, O.ShardCount);

  unsigned SkippedUnchanged = 0;
  if (O.Changed) {
    // A changed header is not in the database: then every file may show a
    // finding on its changed lines.
    bool HeaderChanged = false;
    for (const auto &[Name, Ranges] : *O.Changed) {
      bool InFiles = false;
      for (const std::string &F : Files)
        InFiles |= isChangedFile({{Name, Ranges}}, F);
      const llvm::StringRef Ext = llvm::sys::path::extension(Name);
      HeaderChanged |=
          !InFiles && (Ext == ".h" || Ext == ".hpp" || Ext == ".hh" ||
                       Ext == ".hxx" || Ext == ".cuh" || Ext == ".inl");
    }
    if (!HeaderChanged) {
      std::vector<std::string> Kept;
      for (const std::string &F : Files)
        if (isChangedFile(*O.Changed, F))
          Kept.push_back(F);
      SkippedUnchanged = Files.size() - Kept.size();
      Files = std::move(Kept);
    }
  }

  llvm::SmallString<128> TempDir;
  if (const std::error_code EC =
          llvm::sys::fs::createUniqueDirectory("torch-tidy", TempDir)) {
    Err << "torch-tidy: cannot create a temporary directory: " << EC.message()
        << "\n";
    return ExitFailure;
  }

  std::vector<Job> Jobs(Files.size());
  for (size_t K = 0; K < Files.size(); ++K) {
    Jobs[K].File = Files[K];
    Jobs[K].OutputPath = (TempDir + "/" + std::to_string(K) + ".out").str();
    Jobs[K].FixesPath = (TempDir + "/" + std::to_string(K) + ".yaml").str();
    Jobs[K].ReportPath = (TempDir + "/" + std::to_string(K) + ".report").str();
  }
  std::string LineFilter;
  if (O.Changed)
    LineFilter = "--line-filter=" + lineFilterJSON(*O.Changed);

  auto Start = [&](Job &J) {
    // A second analysis starts from nothing: the redirection does not
    // truncate the output (a shorter one would leave the first's tail), and
    // a worker with no findings writes no fixes file (the first's would
    // stand).
    for (const std::string *Path : {&J.OutputPath, &J.FixesPath, &J.ReportPath})
      (void)llvm::sys::fs::remove(*Path);
    std::vector<std::string> Args{O.Self};
    Args.insert(Args.end(), O.TidyArgs.begin(), O.TidyArgs.end());
    Args.push_back("--export-fixes=" + J.FixesPath);
    Args.push_back("--worker-report=" + J.ReportPath);
    if (!J.SummariesIn.empty())
      Args.push_back("--summaries-in=" + J.SummariesIn);
    if (!LineFilter.empty())
      Args.push_back(LineFilter);
    Args.push_back(J.File);
    Args.insert(Args.end(), O.CompilerArgs.begin(), O.CompilerArgs.end());
    const std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
    const std::optional<llvm::StringRef> Redirects[] = {
        llvm::StringRef(""), llvm::StringRef(J.OutputPath),
        llvm::StringRef(J.OutputPath)};
    std::string Error;
    bool Failed = false;
    J.Process = llvm::sys::ExecuteNoWait(O.Self, Refs, std::nullopt, Redirects,
                                         0, &Error, &Failed);
    J.Started = true;
    if (Failed) {
      J.Finished = true;
      J.ReturnCode = -1;
      J.Output = "torch-tidy: cannot start a worker: " + Error + "\n";
      J.Failure = "it could not be started: " + Error;
    }
  };

  // The findings so far, for the progress line: each job's count, which a
  // second analysis replaces.
  std::vector<unsigned> FindingsOf(Jobs.size(), 0);
  unsigned Findings = 0;
  size_t Done = 0, Total = Jobs.size();
  auto ShowProgress = [&]() {
    if (O.Progress)
      Err << "\r\x1b[K[" << Done << "/" << Total << " files] " << Findings
          << " finding" << (Findings == 1 ? "" : "s") << " so far";
  };
  // Runs the jobs \p Which (indices into Jobs, in file order), JobsLimit at
  // a time; with \p Print, prints each one's output in file order as soon
  // as those before it are done, whatever order the workers finish in.
  const unsigned JobsLimit = std::max(1U, O.Jobs);
  auto RunJobs = [&](const std::vector<size_t> &Which, bool Print) {
    size_t Next = 0, Running = 0, Finished = 0, PrintedUpTo = 0;
    ShowProgress();
    while (Finished < Which.size()) {
      while (Running < JobsLimit && Next < Which.size()) {
        Start(Jobs[Which[Next]]);
        if (Jobs[Which[Next]].Finished) {
          ++Finished;
          ++Done;
        } else {
          ++Running;
        }
        ++Next;
      }
      bool Progressed = false;
      for (size_t N = 0; N < Next; ++N) {
        Job &J = Jobs[Which[N]];
        if (!J.Started || J.Finished)
          continue;
        std::string Error;
        const llvm::sys::ProcessInfo R =
            llvm::sys::Wait(J.Process, 0, &Error, nullptr, /*Polling=*/true);
        if (R.Pid != J.Process.Pid)
          continue;
        J.Finished = true;
        J.ReturnCode = R.ReturnCode;
        readResults(J);
        unsigned Count = 0;
        for (const auto &D : J.Diagnostics)
          if (D.DiagnosticName != "clang-diagnostic-error")
            ++Count;
        Findings = Findings - FindingsOf[Which[N]] + Count;
        FindingsOf[Which[N]] = Count;
        --Running;
        ++Finished;
        ++Done;
        Progressed = true;
      }
      while (Print && PrintedUpTo < Which.size() &&
             Jobs[Which[PrintedUpTo]].Finished) {
        if (O.Progress)
          Err << "\r\x1b[K";
        llvm::outs() << Jobs[Which[PrintedUpTo]].Output;
        llvm::outs().flush();
        Jobs[Which[PrintedUpTo]].Printed = true;
        ++PrintedUpTo;
      }
      if (Progressed || Finished == Which.size())
        ShowProgress();
      if (!Progressed && Finished < Which.size())
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };

  RunSummary Summary;
  std::vector<size_t> Everything(Jobs.size());
  for (size_t K = 0; K < Jobs.size(); ++K)
    Everything[K] = K;
  // With the project's summaries, the output of a file analysed again
  // replaces its first; nothing is printed before all are known.
  const bool Link = O.LinkSummaries;
  RunJobs(Everything, /*Print=*/!Link);
  for (const Job &J : Jobs)
    readWorkerReport(J.ReportPath, Summary);
  std::vector<size_t> Again;
  if (Link) {
    // What the whole project says is written, for the runs of one file
    // (the plugin, torch-clangd, torch-tidy on a file), only by a run over
    // every file of the database, so that a part never replaces the whole;
    // a run of a part (a shard, the changed files, files named) reads it for
    // the files it does not analyse, leaving out what is stale.
    const bool Whole = O.Files.empty() && O.ShardCount == 1 && !O.Changed;
    std::optional<torchtidy::LinkedSummaries> Earlier;
    llvm::SmallString<256> SummariesPath(O.CacheDir);
    llvm::sys::path::append(SummariesPath, torchtidy::ProjectSummariesFileName);
    if (!Whole && !O.CacheDir.empty() && llvm::sys::fs::exists(SummariesPath)) {
      std::string Error;
      Earlier = torchtidy::readProjectSummaries(SummariesPath, Error);
      if (!Earlier)
        Err << "torch-tidy: ignoring the summaries '" << SummariesPath
            << "': " << Error << "\n";
    }
    std::map<std::string, torchtidy::FunctionSummary> Linked;
    Again =
        analyseAgainWithSummaries(Jobs, TempDir, std::move(Earlier), Linked);
    if (Whole && !O.CacheDir.empty())
      writeProjectSummaries(O.CacheDir, Linked);
    Total += Again.size();
    RunJobs(Again, /*Print=*/false);
    for (const size_t K : Again)
      readWorkerReport(Jobs[K].ReportPath, Summary);
    for (Job &J : Jobs) {
      if (O.Progress)
        Err << "\r\x1b[K";
      llvm::outs() << J.Output;
      llvm::outs().flush();
      J.Printed = true;
    }
  }
  if (O.Progress)
    Err << "\r\x1b[K";

  // One finding seen from several translation units (in a shared header)
  // counts once, however each unit spelled the header's path
  // (`src/utils/../nn/block.hpp` is `src/nn/block.hpp`).
  auto Normalise = [](std::string &Path) {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    Path = std::string(P);
  };
  std::vector<clang::tooling::Diagnostic> All;
  std::set<std::tuple<std::string, std::string, unsigned, std::string>> Seen;
  unsigned ParseFailures = 0, Crashes = 0;
  bool AnyNonZero = false;
  for (Job &J : Jobs) {
    ParseFailures += J.ParseFailed;
    if (!J.Failure.empty()) {
      ++Crashes;
      Err << "torch-tidy: error: the analysis of '" << J.File
          << "' did not finish: " << J.Failure
          << "; its findings are missing\n";
    }
    AnyNonZero |= J.ReturnCode != 0;
    for (auto &D : J.Diagnostics) {
      Normalise(D.Message.FilePath);
      for (clang::tooling::DiagnosticMessage &N : D.Notes)
        Normalise(N.FilePath);
      if (Seen.insert({D.DiagnosticName, D.Message.FilePath,
                       D.Message.FileOffset, D.Message.Message})
              .second)
        All.push_back(std::move(D));
    }
  }
  std::sort(All.begin(), All.end(),
            [](const clang::tooling::Diagnostic &A,
               const clang::tooling::Diagnostic &B) {
              return std::tie(A.Message.FilePath, A.Message.FileOffset,
                              A.DiagnosticName, A.Message.Message) <
                     std::tie(B.Message.FilePath, B.Message.FileOffset,
                              B.DiagnosticName, B.Message.Message);
            });

  int Status = ExitClean;
  if (!O.Sarif.empty()) {
    SarifOptions SO;
    SO.SourceRoot = O.SourceRoot;
    SO.LibTorchDocsBase = O.SarifDocsBase;
    SO.ToolVersion = TORCHTIDY_VERSION_STRING;
    std::error_code EC;
    llvm::raw_fd_ostream OS(O.Sarif, EC, llvm::sys::fs::OF_TextWithCRLF);
    if (EC) {
      Err << "torch-tidy: cannot write '" << O.Sarif << "': " << EC.message()
          << "\n";
      Status = ExitFailure;
    } else {
      OS << llvm::formatv("{0:2}", buildSarif(All, SO)) << "\n";
    }
  }
  if (!O.ExportFixes.empty()) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(O.ExportFixes, EC, llvm::sys::fs::OF_TextWithCRLF);
    if (EC) {
      Err << "torch-tidy: cannot write '" << O.ExportFixes
          << "': " << EC.message() << "\n";
      Status = ExitFailure;
    } else {
      clang::tooling::TranslationUnitDiagnostics TUD;
      TUD.Diagnostics = All;
      llvm::yaml::Output YOut(OS);
      YOut << TUD;
    }
  }
  Summary.Files = Jobs.size();
  // Best effort: a leftover directory under /tmp harms nothing.
  (void)llvm::sys::fs::remove_directories(TempDir);

  for (const auto &D : All)
    if (D.DiagnosticName != "clang-diagnostic-error")
      ++Summary.FindingsByCheck[D.DiagnosticName];
  if (O.ShardCount > 1)
    Summary.Qualifiers.push_back("(shard " + std::to_string(O.ShardIndex) +
                                 "/" + std::to_string(O.ShardCount) + " of " +
                                 std::to_string(InDatabase) + ")");
  if (SkippedUnchanged)
    Summary.Qualifiers.push_back(std::to_string(SkippedUnchanged) +
                                 " without changed lines skipped");
  if (NvccFiles)
    Summary.Qualifiers.push_back(std::to_string(NvccFiles) +
                                 " compiled by nvcc, parsed as CUDA by clang");
  if (!Again.empty())
    Summary.Qualifiers.push_back(std::to_string(Again.size()) +
                                 " analysed again with other files' "
                                 "summaries");
  Summary.FilesWithErrors = ParseFailures;
  Summary.Crashes = Crashes;
  Summary.Seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - O.Started)
                        .count();
  Err << formatSummary(Summary) << "\n";

  if (ParseFailures || Crashes)
    return ExitFailure;
  if (Status != ExitClean)
    return Status;
  return AnyNonZero ? ExitFindingsAsErrors : ExitClean;
}

} // namespace torchtidy::driver
