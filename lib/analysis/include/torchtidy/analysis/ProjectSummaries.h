//===--- ProjectSummaries.h - what other translation units say -*- C++ -*-===//
//
// clang-tidy sees one translation unit at a time. A project run
// (`torch-tidy -p build`, docs/summaries.md) also has each translation unit
// summarise what its functions with external linkage do, links the
// summaries by USR, and analyses again, with the linked summaries at hand,
// the files whose checks asked about a function they call but cannot see.
// A summary holds small LibTorch facts with the file and line of their
// evidence, never an AST; a check that finds no summary behaves as it does
// without a project run (say nothing rather than guess).
//
// Summaries of this version hold ten facts: the CUDA work a function does
// (CudaWork.h), and the CUDA work it does on a CUDA device for sure
// (CudaErrorRecovery.h's evidence), in its own body, through the functions
// of its translation unit it calls, or through functions of other
// translation units (linked); and whether the values it returns come from
// outside the program (IndexRanges.h: parsed, read or loaded ids), the
// pointer parameters it passes on to a kernel launch (KernelLaunches.h's
// launchers), the parameters whose values reach an index op unchecked
// (IndexRanges.h's indexedParams), and whether the device it returns is a
// CUDA device on some path (CudaWork.h's returnedCudaDevice); for a
// constructor, the device members it keeps from its parameters, and for a
// method, the CUDA work it does on a device member of its object when that
// member holds a CUDA device (CudaWork.h's keptDevices and
// CudaErrorRecovery.h's memberWork), and the parameters whose length is
// the length of an index into a table of fixed rows (IndexRanges.h's
// lengthParams), and, for a method of a module class, what it does to the
// tensor and submodule members of its object (Registration.h's
// memberEffects), these eight from its own translation unit only.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_PROJECTSUMMARIES_H
#define TORCHTIDY_ANALYSIS_PROJECTSUMMARIES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torchtidy {

/// The version of the summaries' format. Text of another version is
/// refused when read (fromJSON fails), never half understood.
constexpr unsigned SummaryFormatVersion = 7;

/// A place in a file of the project. Not a SourceLocation: the file need
/// not be part of the translation unit that reads the summary.
struct SourcePlace {
  std::string File; ///< absolute
  unsigned Line = 0, Column = 0;
  bool operator==(const SourcePlace &O) const {
    return File == O.File && Line == O.Line && Column == O.Column;
  }
};

/// One call on the way from a function to a fact: \c Caller calls
/// \c Callee at \c At (qualified names, for messages).
struct SummaryStep {
  std::string Caller, Callee;
  SourcePlace At;
  bool operator==(const SummaryStep &O) const {
    return Caller == O.Caller && Callee == O.Callee && At == O.At;
  }
};

/// The rows of a table as a caller in another file can name them
/// (libtorch-unchecked-index's run-time length across files): a constant,
/// or members of the object whose method reads the table (the member's USR,
/// then a field of it), with the constructor parameters they are set from.
struct SummaryRows {
  std::string Text; ///< as the function names them: "config_.context"
  SourcePlace At;   ///< where they are set
  std::optional<int64_t> Constant;
  /// [member] or [member, field of it], USRs; the rows are their value
  /// plus Offset.
  std::vector<std::string> Members;
  int64_t Offset = 0;
  /// A constructor parameter the first member is set from (`block_(block)`,
  /// `config_(config)`): an object's construction gives the rows as that
  /// argument (its field Field, a USR, when set) plus Offset.
  struct FromConstructor {
    std::string Ctor;
    unsigned Param = 0;
    std::string Field;
    int64_t Offset = 0;
  };
  std::vector<FromConstructor> Constructors;
};

/// What one function with external linkage does, as the translation unit
/// that defines it shows it.
struct FunctionSummary {
  std::string USR;
  std::string Name; ///< qualified
  SourcePlace Defined;

  /// One fact: what (CUDA work: the wording of CudaWork.h's describeCudaOp;
  /// values from outside: how they enter, "std::stoll"), where, and the
  /// calls from the function down to it.
  struct Fact {
    std::string What;
    SourcePlace At;
    std::vector<SummaryStep> Via;
  };
  std::optional<Fact> CudaWork;
  /// CUDA work on a CUDA device for sure (libtorch-cuda-error-recovery's
  /// evidence, CudaErrorRecovery.h: not a configurable device; a call of a
  /// module its translation unit moves to CUDA counts), when there is some.
  std::optional<Fact> DefiniteCudaWork;
  /// The values it returns (a tensor, or a container of integers) come
  /// from outside the program on some path, with no bounds check of them
  /// on the way (libtorch-unchecked-index's evidence, IndexRanges.h): how
  /// and where they enter. Not linked: a function that returns what a
  /// function of another file returns says nothing.
  std::optional<Fact> OutsideValues;
  /// A parameter (a raw pointer or an accessor) that the function passes
  /// on to a kernel launch (libtorch-unchecked-kernel-launch's launcher):
  /// the launch, "kernel 'k'", and where it is.
  struct LaunchedParam {
    unsigned Param = 0;
    Fact Launch;
  };
  std::vector<LaunchedParam> LaunchedParams;
  /// A parameter (a tensor, or a container of integers) whose values reach
  /// an index op with no bounds check on the way, in the function or
  /// through the functions of its translation unit it calls
  /// (libtorch-unchecked-index's sinks, IndexRanges.h's indexedParams):
  /// the op, "index_select on 'table'", where it is, and the calls to it.
  struct IndexedParam {
    unsigned Param = 0;
    Fact Sink;
  };
  std::vector<IndexedParam> IndexedParams;
  /// The device it returns (a c10::Device, a device type, TensorOptions) is
  /// a CUDA device on some path (libtorch-cuda-error-recovery's evidence,
  /// CudaWork.h's returnedCudaDevice: `torch::kCUDA`, the CUDA
  /// side of `is_available() ? kCUDA : kCPU`): the device as written, and
  /// where. Not linked: a function that returns what a function of another
  /// file returns says nothing.
  std::optional<Fact> CudaDevice;
  /// A constructor: a device member of its class (a c10::Device, a device
  /// type, TensorOptions, or a reference to one) that it initialises from
  /// a parameter and that no member function of its translation unit
  /// assigns, so that an object keeps the device its construction is given
  /// (CudaWork.h's keptDevices): the parameter, the member's USR, and the
  /// initialiser ("'device_'", where).
  struct KeptDevice {
    unsigned Param = 0;
    std::string Member;
    Fact Kept;
  };
  std::vector<KeptDevice> KeptDevices;
  /// A method: CUDA work on the device a device member of its object holds
  /// (`torch::zeros(n, device_)`), in its body or through the calls on
  /// `this` of its translation unit, which is CUDA work on a CUDA device
  /// for an object whose member holds one (CudaErrorRecovery.h's
  /// memberWork): the member's USR and the work. The member is one that no
  /// member function of the method's translation unit assigns.
  struct MemberWork {
    std::string Member;
    Fact Work;
  };
  std::optional<MemberWork> MemberDeviceWork;
  /// A tensor parameter whose size along Dim, plus Offset, is where an
  /// index made from it (`torch::arange(x.size(1))`) ends, into a table of
  /// fixed rows that nothing in the function relates the length to
  /// (IndexRanges.h's lengthParams): a caller that passes a tensor whose
  /// length grows without bound is evidence of kind 2. The table
  /// ("Embedding 'pos'") and the op, the index as written and where it is
  /// made, and the rows.
  struct LengthParam {
    unsigned Param = 0;
    int64_t Dim = 0;
    int64_t Offset = 0;
    Fact Sink;
    std::string Index;
    SourcePlace Made;
    SummaryRows Rows;
  };
  std::vector<LengthParam> LengthParams;
  /// A method or constructor of a module class (torch::nn::Module): what it
  /// does to each tensor or submodule member of its object that it
  /// registers, writes or reads (Registration.h's memberEffects), so that a
  /// file whose building code calls it, or that declares the class, can
  /// tell the members it leaves unregistered (libtorch-unregistered-buffer
  /// and -submodule). Registrations and writes are its own and those of the
  /// member functions of its translation unit it calls on `this`; reads
  /// are its own body's. The member functions it calls on `this` that have
  /// no body in its translation unit are listed (USR and name): what they
  /// do is in their own summaries, or in the reader's translation unit.
  struct MemberEffect {
    std::string Member; ///< USR
    std::string Name;   ///< as declared: "w"
    /// The register_* call that registers it, when one does.
    std::optional<SourcePlace> Registered;
    struct Write {
      std::string How; ///< "initialised", "assigned", "filled"
      SourcePlace At;
      bool Null = false; ///< `nullptr`: an empty holder or shared_ptr
    };
    std::vector<Write> Writes;
    unsigned Reads = 0, MovedReads = 0;
  };
  struct MemberEffectsFact {
    std::vector<MemberEffect> Members;
    struct Call {
      std::string USR, Name;
    };
    std::vector<Call> Calls;
  };
  std::optional<MemberEffectsFact> MemberEffects;

  /// Whether the summary has a fact a check can use.
  bool saysSomething() const {
    return CudaWork || DefiniteCudaWork || OutsideValues ||
           !LaunchedParams.empty() || !IndexedParams.empty() || CudaDevice ||
           !KeptDevices.empty() || MemberDeviceWork || !LengthParams.empty() ||
           MemberEffects;
  }

  /// A call to a function that its translation unit declares but does not
  /// define, for linking: the first such call per callee, with the calls of
  /// the translation unit that lead to it.
  struct ExternalCall {
    std::string USR, Name;
    SourcePlace At;
    std::vector<SummaryStep> Via;
  };
  std::vector<ExternalCall> Calls;
};

/// The facts a summary can hold, which a check asks for by name.
enum class SummaryFact {
  CudaWork,
  DefiniteCudaWork,
  OutsideValues,
  LaunchedParams,
  IndexedParams,
  CudaDevice,
  KeptDevices,
  MemberDeviceWork,
  LengthParams,
  MemberEffects
};
/// Every fact, for loops over them.
inline constexpr SummaryFact AllSummaryFacts[] = {
    SummaryFact::CudaWork,      SummaryFact::DefiniteCudaWork,
    SummaryFact::OutsideValues, SummaryFact::LaunchedParams,
    SummaryFact::IndexedParams, SummaryFact::CudaDevice,
    SummaryFact::KeptDevices,   SummaryFact::MemberDeviceWork,
    SummaryFact::LengthParams,  SummaryFact::MemberEffects};
/// The fact's name in the format ("cudaWork", "definiteCudaWork",
/// "outsideValues", "launchedParams", "indexedParams", "cudaDevice",
/// "keptDevices", "memberDeviceWork", "lengthParams", "memberEffects").
llvm::StringRef factName(SummaryFact Fact);
/// Whether \p F holds \p Fact.
bool hasFact(const FunctionSummary &F, SummaryFact Fact);
/// \p F's \p Fact, null when it holds none or the fact is a list
/// (LaunchedParams, IndexedParams, KeptDevices, LengthParams,
/// MemberEffects);
/// MemberDeviceWork's work.
const FunctionSummary::Fact *factOf(const FunctionSummary &F, SummaryFact Fact);

/// What one translation unit says.
struct TranslationUnitSummary {
  std::string File; ///< the main file, absolute
  std::vector<FunctionSummary> Functions;
  /// The questions its checks asked (ProjectSummaries::lookup) about
  /// functions without a body here, as "<fact name> <USR>", sorted: the
  /// facts of other files that can change its findings.
  std::vector<std::string> Asked;
};

/// The summaries a translation unit is analysed with: the linked summaries
/// of the functions it asked about.
struct LinkedSummaries {
  std::vector<FunctionSummary> Functions; ///< sorted by USR
};

llvm::json::Value toJSON(const SourcePlace &P);
llvm::json::Value toJSON(const SummaryStep &S);
llvm::json::Value toJSON(const SummaryRows &R);
llvm::json::Value toJSON(const FunctionSummary &F);
llvm::json::Value toJSON(const TranslationUnitSummary &S);
llvm::json::Value toJSON(const LinkedSummaries &S);
bool fromJSON(const llvm::json::Value &V, SourcePlace &P, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, SummaryStep &S, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::Fact &F,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::ExternalCall &C,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::LaunchedParam &L,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::IndexedParam &P,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::KeptDevice &K,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberWork &W,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, SummaryRows::FromConstructor &C,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, SummaryRows &R, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::LengthParam &L,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V,
              FunctionSummary::MemberEffect::Write &W, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberEffect &E,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V,
              FunctionSummary::MemberEffectsFact::Call &C, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberEffectsFact &E,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, FunctionSummary &F, llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, TranslationUnitSummary &S,
              llvm::json::Path);
bool fromJSON(const llvm::json::Value &V, LinkedSummaries &S, llvm::json::Path);

/// The USR of \p D (clang's index), or "" when it has none.
std::string usrOf(const clang::Decl *D);

/// A user function (declared outside system headers) with external linkage
/// that the translation unit declares but does not define: what it does is
/// in another unit, which a project summary may say.
bool isDeclaredElsewhere(const clang::FunctionDecl *FD);

/// The summaries of the user functions with external linkage that \p Ctx
/// defines, each from this translation unit alone: CUDA work within
/// \p MaxCallDepth calls of the unit, values from outside the program
/// that it returns, and the calls that leave it; the index facts with the
/// guard options libtorch-unchecked-index recorded for the unit
/// (IndexGuardOptions; the defaults where it did not run, so a summary made
/// after the checks). A unit that does not compile says nothing (no
/// functions). Asked is left empty.
TranslationUnitSummary summarizeTranslationUnit(clang::ASTContext &Ctx,
                                                unsigned MaxCallDepth);

/// Links the summaries of a project: one summary per USR (the first in the
/// order given), and CUDA work found through calls into other translation
/// units, up to \p MaxLinkDepth calls between units, with the steps.
std::map<std::string, FunctionSummary>
linkSummaries(llvm::ArrayRef<TranslationUnitSummary> Units,
              unsigned MaxLinkDepth);

/// Of \p Linked, what the checks of \p Unit asked about and can use (a
/// function with the fact asked for); empty when the file needs no second
/// analysis.
LinkedSummaries
summariesFor(const TranslationUnitSummary &Unit,
             const std::map<std::string, FunctionSummary> &Linked);

/// The name of the file a whole-project run leaves in its cache directory
/// (`<build>/torch-tidy-cache/summaries.json`) for the runs that analyse one
/// file: the plugin, torch-clangd, `torch-tidy -p build file.cpp`.
inline constexpr const char *ProjectSummariesFileName = "summaries.json";

/// That file: the linked summaries that say something, and the content hash
/// of every file they name, so that a reader can tell which still hold.
struct ProjectSummariesFile {
  LinkedSummaries Linked;
  std::map<std::string, std::string> FileHashes; ///< path -> contentHashOf
};
llvm::json::Value toJSON(const ProjectSummariesFile &F);
bool fromJSON(const llvm::json::Value &V, ProjectSummariesFile &F,
              llvm::json::Path);

/// The BLAKE3 hash of \p Path's content, in hex; "" when it cannot be read.
std::string contentHashOf(llvm::StringRef Path);

/// The file for \p Linked (the functions with a fact, each file they name
/// hashed now).
ProjectSummariesFile
projectSummariesFile(const std::map<std::string, FunctionSummary> &Linked);

/// Reads a ProjectSummariesFile at \p Path and keeps the summaries whose
/// files all still have the content they had (never trusts a stale one);
/// std::nullopt, with \p Error set, when it cannot be read or is of another
/// version.
std::optional<LinkedSummaries> readProjectSummaries(llvm::StringRef Path,
                                                    std::string &Error);

/// Where a run that analyses \p MainFile alone looks for a project's
/// summaries: in each directory above it, `torch-tidy-cache/` and
/// `build/torch-tidy-cache/` (where `torch-tidy -p build` keeps its cache by
/// default), the nearest first; "" when there is none.
std::string findProjectSummaries(llvm::StringRef MainFile);

/// The linked summaries the checks of this process read, and the questions
/// they asked.
///  - The driver's worker of a project run is given them (set) or none
///    (disable), and records the questions for its summary.
///  - Otherwise (the plugin, torch-clangd) they are looked for next to the
///    translation unit's main file (findProjectSummaries) at the first
///    question, read again when the file changes, and the stale ones left
///    out.
/// Without summaries, lookup finds nothing and the checks behave as without
/// a project run.
class ProjectSummaries {
public:
  static ProjectSummaries &instance();

  /// These summaries and no others.
  void set(LinkedSummaries Summaries);
  /// No summaries at all.
  void disable();
  /// Back to looking for a project's summaries file, with nothing asked.
  void clear();

  /// The linked summary of \p FD, a function declared in user code that
  /// the translation unit does not define, when it holds \p Fact; records
  /// the question.
  std::optional<FunctionSummary> lookup(const clang::FunctionDecl *FD,
                                        SummaryFact Fact);

  /// The questions asked since the last call ("<fact name> <USR>"),
  /// sorted.
  std::vector<std::string> takeAsked();

private:
  struct Found {
    std::string Path;
    int64_t MTime = 0;
    uint64_t Size = 0;
    std::map<std::string, FunctionSummary> ByUSR;
  };
  /// The summaries for the translation unit of \p FD (Lock held).
  const std::map<std::string, FunctionSummary> *
  summariesFor(const clang::FunctionDecl *FD);

  enum class Source { Discover, Given, Off };
  std::mutex Lock;
  Source From = Source::Discover;
  std::map<std::string, FunctionSummary> ByUSR; ///< Source::Given
  /// Source::Discover: by the directory of a main file, what it found.
  std::map<std::string, std::string> FileForDir;
  std::map<std::string, Found> ByFile;
  std::set<std::string> Asked;
};

} // namespace torchtidy

#endif
