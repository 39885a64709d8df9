//===--- ProjectSummaries.cpp - what other translation units say ---------===//

#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/CudaErrorRecovery.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexGuards.h"
#include "torchtidy/analysis/IndexRanges.h"
#include "torchtidy/analysis/KernelLaunches.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Registration.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ASTLambda.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace clang;

namespace torchtidy {

//===----------------------------------------------------------------------===//
// One translation unit
//===----------------------------------------------------------------------===//

std::string usrOf(const Decl *D) {
  llvm::SmallString<128> USR;
  if (!D || index::generateUSRForDecl(D->getCanonicalDecl(), USR))
    return "";
  return std::string(USR);
}

bool isDeclaredElsewhere(const FunctionDecl *FD) {
  if (!FD || FD->hasBody() || FD->isImplicit() || FD->isDeleted() ||
      FD->isDependentContext() || !FD->isExternallyVisible() ||
      isa<CXXDestructorDecl>(FD))
    return false;
  // A template's instantiation is defined where it is used, if anywhere.
  if (FD->getTemplateSpecializationKind() != TSK_Undeclared)
    return false;
  return isUserDecl(FD);
}

namespace {
class Places {
public:
  explicit Places(const SourceManager &SM) : SM(SM) {}

  SourcePlace of(SourceLocation Loc) {
    SourcePlace P;
    Loc = SM.getExpansionLoc(Loc);
    if (Loc.isInvalid())
      return P;
    const FileID FID = SM.getFileID(Loc);
    auto [It, Inserted] = Names.try_emplace(FID.getHashValue());
    if (Inserted) {
      if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
        llvm::SmallString<256> Path(FE->getName());
        (void)llvm::sys::fs::make_absolute(Path); // as it is on failure
        llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
        It->second = std::string(Path);
      }
    }
    P.File = It->second;
    P.Line = SM.getExpansionLineNumber(Loc);
    P.Column = SM.getExpansionColumnNumber(Loc);
    return P;
  }

private:
  const SourceManager &SM;
  std::map<unsigned, std::string> Names;
};

std::string nameOf(const FunctionDecl *FD) {
  return FD->getQualifiedNameAsString();
}

/// The steps of \p Chain, whose first call is in \p Root.
std::vector<SummaryStep> stepsOf(const FunctionDecl *Root,
                                 llvm::ArrayRef<CallStep> Chain,
                                 Places &Where) {
  std::vector<SummaryStep> Out;
  const FunctionDecl *Caller = Root;
  for (const CallStep &C : Chain) {
    Out.push_back(
        {nameOf(Caller), nameOf(C.Callee), Where.of(C.Call->getExprLoc())});
    Caller = C.Callee;
  }
  return Out;
}

/// What CUDA evidence of this unit (not a Summary) is, for a note.
std::string describeEvidence(const CudaEvidence &E) {
  if (E.K == CudaEvidence::ModuleCall && E.Module)
    return "a call of module class '" + E.Module->getNameAsString() +
           "', which its file moves to a CUDA device";
  return describeCudaOp(E.Operation);
}

/// What a launcher's launch is, for a note: "kernel 'k'", or the call of a
/// launcher of another file.
std::string describeLaunch(const Expr *Launch) {
  if (const auto *L = dyn_cast<CUDAKernelCallExpr>(Launch)) {
    const std::string Name = kernelName(L);
    return Name.empty() ? "a kernel" : "kernel '" + Name + "'";
  }
  if (const auto *Call = dyn_cast<CallExpr>(Launch))
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      return "'" + Callee->getQualifiedNameAsString() + "'";
  return "a kernel";
}

/// An index op, for a note: "index_select on 'emb'", "Embedding 'tok_'".
/// \p E as written, "" when it is not in one file (a macro's argument).
std::string sourceText(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return "";
  const CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      Ctx.getSourceManager(), Ctx.getLangOpts());
  if (R.isInvalid())
    return "";
  return Lexer::getSourceText(R, Ctx.getSourceManager(), Ctx.getLangOpts())
      .trim()
      .str();
}

std::string describeSink(const IndexOpSite &Site, const ASTContext &Ctx) {
  auto Text = [&](const Expr *E) { return sourceText(E, Ctx); };
  std::string Out = Site.Name.str();
  if (const std::string M = Text(Site.Module); !M.empty())
    return Out + " '" + M + "'";
  if (const std::string S = Text(Site.Source); !S.empty())
    return Out + " on '" + S + "'";
  return Out;
}

/// The summary's `memberEffects` of \p MD (Registration.h's memberEffects),
/// members by USR.
std::optional<FunctionSummary::MemberEffectsFact>
memberEffectsOf(const CXXMethodDecl *MD, Places &Where) {
  std::optional<MethodMemberEffects> Effects = memberEffects(MD);
  if (!Effects)
    return std::nullopt;
  FunctionSummary::MemberEffectsFact Out;
  for (const CXXMethodDecl *Callee : Effects->Calls) {
    std::string USR = usrOf(Callee);
    if (USR.empty())
      return std::nullopt; // what it does could not be asked for
    Out.Calls.push_back({std::move(USR), Callee->getQualifiedNameAsString()});
  }
  llvm::MapVector<const FieldDecl *, FunctionSummary::MemberEffect> ByField;
  auto EffectOn =
      [&](const FieldDecl *Field) -> FunctionSummary::MemberEffect * {
    auto [It, Inserted] = ByField.try_emplace(Field);
    if (Inserted) {
      It->second.Member = usrOf(Field);
      It->second.Name = Field->getNameAsString();
    }
    return It->second.Member.empty() ? nullptr : &It->second;
  };
  for (const auto &[Field, Facts] : Effects->Members) {
    FunctionSummary::MemberEffect *E = EffectOn(Field);
    if (!E)
      continue;
    if (Facts.Registered && Facts.RegisteredAt)
      E->Registered = Where.of(Facts.RegisteredAt->getBeginLoc());
    for (const MemberWrite &W : Facts.Writes) {
      if (!W.Site || E->Writes.size() >= limits::SummarisedWrites)
        continue;
      E->Writes.push_back({std::string(memberWriteWords(W.How)),
                           Where.of(W.Site->getBeginLoc()), W.IsNull});
    }
  }
  for (const auto &[Field, Counts] : Effects->Reads)
    if (FunctionSummary::MemberEffect *E = EffectOn(Field)) {
      E->Reads = Counts.first;
      E->MovedReads = Counts.second;
    }
  for (auto &[Field, E] : ByField)
    if (!E.Member.empty())
      Out.Members.push_back(std::move(E));
  return Out;
}

bool isSummarised(const FunctionDecl *FD) {
  if (!FD->isExternallyVisible() || FD->isDependentContext() ||
      FD->isImplicit() || isa<CXXDestructorDecl>(FD))
    return false;
  if (FD->getTemplateSpecializationKind() != TSK_Undeclared)
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && isLambdaCallOperator(MD))
    return false;
  return true;
}
} // namespace

TranslationUnitSummary summarizeTranslationUnit(ASTContext &Ctx,
                                                unsigned MaxCallDepth) {
  TranslationUnitSummary Out;
  const SourceManager &SM = Ctx.getSourceManager();
  Places Where(SM);
  Out.File = Where.of(SM.getLocForStartOfFile(SM.getMainFileID())).File;
  if (Ctx.getDiagnostics().hasUncompilableErrorOccurred())
    return Out;
  // From this unit alone: the linker follows the calls between units.
  CudaWorkFinder Finder(MaxCallDepth, /*FollowSummaries=*/false);
  CudaEvidenceFinder Definite(Ctx, MaxCallDepth, /*FollowSummaries=*/false);
  // The guard analysis of libtorch-unchecked-index's options in this unit
  // (the defaults where the check did not run), the check's own.
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  auto &Guards = Contexts.analysis<IndexGuardAnalysis>(
      Contexts.analysis<IndexGuardOptions>().Config);
  IndexRangeAnalysis Ranges(Ctx, Guards, /*NoCallerIsUnbounded=*/false,
                            /*FollowSummaries=*/false);
  // Launches are in CUDA files only.
  std::optional<KernelLaunchAnalysis> Launches;
  if (Ctx.getLangOpts().CUDA) {
    KernelLaunchConfig Config;
    Config.FollowSummaries = false;
    Launches.emplace(Ctx, std::move(Config));
  }
  std::set<std::string> Seen;
  forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    if (!isSummarised(FD))
      return;
    FunctionSummary F;
    F.USR = usrOf(FD);
    if (F.USR.empty() || !Seen.insert(F.USR).second)
      return;
    F.Name = nameOf(FD);
    F.Defined = Where.of(FD->getLocation());
    std::vector<CudaWorkFinding> Work = Finder.find(FD);
    if (!Work.empty()) {
      const CudaWorkFinding &W = Work.front();
      F.CudaWork = FunctionSummary::Fact{describeCudaOp(W.Op),
                                         Where.of(W.Op.Site->getExprLoc()),
                                         stepsOf(FD, W.Chain, Where)};
    }
    if (std::optional<CudaEvidence> E = Definite.find(FD->getBody(), FD))
      F.DefiniteCudaWork = FunctionSummary::Fact{
          describeEvidence(*E), Where.of(E->Site->getExprLoc()),
          stepsOf(FD, E->Chain, Where)};
    // returnedOutsideValues tests the return type first (a tensor or a
    // container of integers), so other functions cost nothing here.
    if (std::optional<OutsideValues> O = Ranges.returnedOutsideValues(FD))
      F.OutsideValues =
          FunctionSummary::Fact{O->How, Where.of(O->At->getExprLoc()), {}};
    // returnedCudaDevice tests the return type first (a device or
    // TensorOptions).
    if (const Expr *D = returnedCudaDevice(FD)) {
      const std::string Text = sourceText(D, Ctx);
      F.CudaDevice = FunctionSummary::Fact{Text.empty() ? "a CUDA device"
                                                        : "'" + Text + "'",
                                           Where.of(D->getExprLoc()),
                                           {}};
    }
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const KeptDevice &K : keptDevices(Ctor))
        F.KeptDevices.push_back(
            {K.Param, usrOf(K.Member),
             FunctionSummary::Fact{"'" + K.Member->getNameAsString() + "'",
                                   Where.of(K.Init->getExprLoc()),
                                   {}}});
    // Work on a member's device matters only where the work is not on a
    // CUDA device by itself.
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && !F.DefiniteCudaWork)
      if (std::optional<CudaEvidence> E = Definite.memberWork(MD))
        F.MemberDeviceWork = FunctionSummary::MemberWork{
            usrOf(E->Operation.ReceivedMember),
            FunctionSummary::Fact{describeEvidence(*E),
                                  Where.of(E->Site->getExprLoc()),
                                  stepsOf(FD, E->Chain, Where)}};
    if (Launches)
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const Expr *Launch = nullptr;
        if (!Launches->isLauncherParam(FD, I, &Launch) || !Launch)
          continue;
        F.LaunchedParams.push_back(
            {I, FunctionSummary::Fact{describeLaunch(Launch),
                                      Where.of(Launch->getExprLoc()),
                                      {}}});
      }
    for (const IndexedParam &I : Ranges.indexedParams(FD)) {
      // Each call on the way is to a definition (indexedParams follows
      // only those).
      llvm::SmallVector<CallStep, 2> Chain;
      for (const CallExpr *Call : I.Via)
        Chain.push_back({Call, Call->getDirectCallee()});
      F.IndexedParams.push_back(
          {I.Param, FunctionSummary::Fact{describeSink(I.Site, Ctx),
                                          Where.of(compat::beginLoc(I.Sink)),
                                          stepsOf(FD, Chain, Where)}});
    }
    for (const LengthParam &L : Ranges.lengthParams(FD)) {
      SummaryRows Rows = Ranges.summaryRows(FD, L.Table);
      Rows.Text = describeQuantity(L.Table.Rows, Ctx);
      const Expr *RowsAt =
          L.Table.Rows.Origin ? L.Table.Rows.Origin : L.Table.MadeAt;
      if (RowsAt)
        Rows.At = Where.of(RowsAt->getBeginLoc());
      F.LengthParams.push_back(
          {L.Param, L.Dim, L.Offset,
           FunctionSummary::Fact{describeSink(L.Site, Ctx),
                                 Where.of(compat::beginLoc(L.Sink)),
                                 {}},
           sourceText(L.Site.Index, Ctx), Where.of(L.Made->getBeginLoc()),
           std::move(Rows)});
    }
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      F.MemberEffects = memberEffectsOf(MD, Where);
    for (const ExternalCallChain &C : Finder.externalCalls(FD)) {
      const CallStep &Last = C.Chain.back();
      std::string USR = usrOf(Last.Callee);
      if (USR.empty())
        continue;
      F.Calls.push_back(
          {std::move(USR), nameOf(Last.Callee),
           Where.of(Last.Call->getExprLoc()),
           stepsOf(FD, llvm::ArrayRef(C.Chain).drop_back(), Where)});
    }
    if (F.saysSomething() || !F.Calls.empty())
      Out.Functions.push_back(std::move(F));
  });
  llvm::sort(Out.Functions,
             [](const FunctionSummary &A, const FunctionSummary &B) {
               return A.USR < B.USR;
             });
  return Out;
}

//===----------------------------------------------------------------------===//
// The project
//===----------------------------------------------------------------------===//

using FactOf = std::optional<FunctionSummary::Fact> FunctionSummary::*;

/// The fact \p Fact of each function of \p ByUSR that has none of its own,
/// found breadth first (so that the chain is a shortest one) through the
/// calls between units, over the units' own facts, MaxLinkDepth calls deep.
static std::map<std::string, FunctionSummary::Fact>
linkFact(const std::map<std::string, FunctionSummary> &ByUSR, FactOf Fact,
         unsigned MaxLinkDepth) {
  std::map<std::string, FunctionSummary::Fact> Found;
  for (const auto &[USR, Root] : ByUSR) {
    if (Root.*Fact)
      continue;
    struct Node {
      const FunctionSummary *S;
      unsigned Depth;
      int Parent;
      const FunctionSummary::ExternalCall *Call; // how Parent calls S
    };
    std::vector<Node> Nodes{{&Root, 0, -1, nullptr}};
    std::set<std::string> Visited{USR};
    for (size_t I = 0; I < Nodes.size(); ++I) {
      const FunctionSummary &S = *Nodes[I].S;
      const std::optional<FunctionSummary::Fact> &OwnFact = S.*Fact;
      if (I > 0 && OwnFact) {
        std::vector<size_t> Path;
        for (int N = static_cast<int>(I); N > 0; N = Nodes[N].Parent)
          Path.push_back(N);
        std::reverse(Path.begin(), Path.end());
        const FunctionSummary::Fact &Own = *OwnFact;
        FunctionSummary::Fact Linked;
        for (const size_t N : Path) {
          const FunctionSummary::ExternalCall &C = *Nodes[N].Call;
          const FunctionSummary &Caller = *Nodes[Nodes[N].Parent].S;
          Linked.Via.insert(Linked.Via.end(), C.Via.begin(), C.Via.end());
          Linked.Via.push_back(
              {C.Via.empty() ? Caller.Name : C.Via.back().Callee, C.Name,
               C.At});
        }
        Linked.Via.insert(Linked.Via.end(), Own.Via.begin(), Own.Via.end());
        Linked.What = Own.What;
        Linked.At = Own.At;
        Found.emplace(USR, std::move(Linked));
        break;
      }
      if (Nodes[I].Depth >= MaxLinkDepth)
        continue;
      for (const FunctionSummary::ExternalCall &C : S.Calls) {
        auto It = ByUSR.find(C.USR);
        if (It != ByUSR.end() && Visited.insert(C.USR).second)
          Nodes.push_back(
              {&It->second, Nodes[I].Depth + 1, static_cast<int>(I), &C});
      }
    }
  }
  return Found;
}

std::map<std::string, FunctionSummary>
linkSummaries(llvm::ArrayRef<TranslationUnitSummary> Units,
              unsigned MaxLinkDepth) {
  std::map<std::string, FunctionSummary> ByUSR;
  for (const TranslationUnitSummary &U : Units)
    for (const FunctionSummary &F : U.Functions)
      ByUSR.emplace(F.USR, F);
  for (const FactOf Fact :
       {&FunctionSummary::CudaWork, &FunctionSummary::DefiniteCudaWork})
    for (auto &[USR, Linked] : linkFact(ByUSR, Fact, MaxLinkDepth))
      ByUSR[USR].*Fact = std::move(Linked);
  return ByUSR;
}

llvm::StringRef factName(SummaryFact Fact) {
  switch (Fact) {
  case SummaryFact::CudaWork:
    return "cudaWork";
  case SummaryFact::DefiniteCudaWork:
    return "definiteCudaWork";
  case SummaryFact::OutsideValues:
    return "outsideValues";
  case SummaryFact::LaunchedParams:
    return "launchedParams";
  case SummaryFact::IndexedParams:
    return "indexedParams";
  case SummaryFact::CudaDevice:
    return "cudaDevice";
  case SummaryFact::KeptDevices:
    return "keptDevices";
  case SummaryFact::MemberDeviceWork:
    return "memberDeviceWork";
  case SummaryFact::LengthParams:
    return "lengthParams";
  case SummaryFact::MemberEffects:
    return "memberEffects";
  }
  return "";
}

const FunctionSummary::Fact *factOf(const FunctionSummary &F,
                                    SummaryFact Fact) {
  const std::optional<FunctionSummary::Fact> *Held = nullptr;
  switch (Fact) {
  case SummaryFact::CudaWork:
    Held = &F.CudaWork;
    break;
  case SummaryFact::DefiniteCudaWork:
    Held = &F.DefiniteCudaWork;
    break;
  case SummaryFact::OutsideValues:
    Held = &F.OutsideValues;
    break;
  case SummaryFact::CudaDevice:
    Held = &F.CudaDevice;
    break;
  case SummaryFact::MemberDeviceWork:
    return F.MemberDeviceWork ? &F.MemberDeviceWork->Work : nullptr;
  case SummaryFact::LaunchedParams:
  case SummaryFact::IndexedParams:
  case SummaryFact::KeptDevices:
  case SummaryFact::LengthParams:
  case SummaryFact::MemberEffects:
    break;
  }
  return Held && *Held ? &**Held : nullptr;
}

bool hasFact(const FunctionSummary &F, SummaryFact Fact) {
  if (Fact == SummaryFact::LaunchedParams)
    return !F.LaunchedParams.empty();
  if (Fact == SummaryFact::IndexedParams)
    return !F.IndexedParams.empty();
  if (Fact == SummaryFact::KeptDevices)
    return !F.KeptDevices.empty();
  if (Fact == SummaryFact::LengthParams)
    return !F.LengthParams.empty();
  if (Fact == SummaryFact::MemberEffects)
    return F.MemberEffects.has_value();
  return factOf(F, Fact) != nullptr;
}

LinkedSummaries
summariesFor(const TranslationUnitSummary &Unit,
             const std::map<std::string, FunctionSummary> &Linked) {
  LinkedSummaries Out;
  std::set<std::string> Taken;
  for (const std::string &Question : Unit.Asked) {
    auto [Name, USR] = llvm::StringRef(Question).split(' ');
    auto It = Linked.find(USR.str());
    if (It == Linked.end() || Taken.count(It->first))
      continue;
    bool Answered = false;
    for (const SummaryFact F : AllSummaryFacts)
      Answered |= factName(F) == Name && hasFact(It->second, F);
    if (!Answered)
      continue;
    Taken.insert(It->first);
    FunctionSummary F = It->second;
    F.Calls.clear(); // what the checks read is linked already
    Out.Functions.push_back(std::move(F));
  }
  llvm::sort(Out.Functions,
             [](const FunctionSummary &A, const FunctionSummary &B) {
               return A.USR < B.USR;
             });
  return Out;
}

//===----------------------------------------------------------------------===//
// The file a project run leaves for runs of one file
//===----------------------------------------------------------------------===//

std::string contentHashOf(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return "";
  llvm::BLAKE3 H;
  H.update((*Buf)->getBuffer());
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

/// The files \p F names: where it is defined, its evidence and its calls.
static std::set<std::string> filesOf(const FunctionSummary &F) {
  std::set<std::string> Out{F.Defined.File};
  for (const SummaryFact Fact : AllSummaryFacts) {
    const FunctionSummary::Fact *Held = factOf(F, Fact);
    if (!Held)
      continue;
    Out.insert(Held->At.File);
    for (const SummaryStep &S : Held->Via)
      Out.insert(S.At.File);
  }
  for (const FunctionSummary::LaunchedParam &L : F.LaunchedParams)
    Out.insert(L.Launch.At.File);
  for (const FunctionSummary::IndexedParam &I : F.IndexedParams) {
    Out.insert(I.Sink.At.File);
    for (const SummaryStep &S : I.Sink.Via)
      Out.insert(S.At.File);
  }
  for (const FunctionSummary::KeptDevice &K : F.KeptDevices)
    Out.insert(K.Kept.At.File);
  for (const FunctionSummary::LengthParam &L : F.LengthParams) {
    Out.insert(L.Sink.At.File);
    Out.insert(L.Made.File);
    Out.insert(L.Rows.At.File);
  }
  if (F.MemberEffects)
    for (const FunctionSummary::MemberEffect &E : F.MemberEffects->Members) {
      if (E.Registered)
        Out.insert(E.Registered->File);
      for (const FunctionSummary::MemberEffect::Write &W : E.Writes)
        Out.insert(W.At.File);
    }
  Out.erase("");
  return Out;
}

ProjectSummariesFile
projectSummariesFile(const std::map<std::string, FunctionSummary> &Linked) {
  ProjectSummariesFile Out;
  for (const auto &[USR, F] : Linked) {
    if (!F.saysSomething())
      continue;
    FunctionSummary Kept = F;
    Kept.Calls.clear();
    for (const std::string &Path : filesOf(Kept))
      if (!Out.FileHashes.count(Path))
        Out.FileHashes[Path] = contentHashOf(Path);
    Out.Linked.Functions.push_back(std::move(Kept));
  }
  return Out;
}

std::optional<LinkedSummaries> readProjectSummaries(llvm::StringRef Path,
                                                    std::string &Error) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    Error = Buf.getError().message();
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> V = llvm::json::parse((*Buf)->getBuffer());
  if (!V) {
    Error = llvm::toString(V.takeError());
    return std::nullopt;
  }
  ProjectSummariesFile File;
  llvm::json::Path::Root Root;
  if (!fromJSON(*V, File, Root)) {
    Error = llvm::toString(Root.getError());
    return std::nullopt;
  }
  // A summary holds while every file it names has the content it had.
  std::map<std::string, bool> Unchanged;
  LinkedSummaries Out;
  for (FunctionSummary &F : File.Linked.Functions) {
    bool Holds = true;
    for (const std::string &P : filesOf(F)) {
      auto [It, Inserted] = Unchanged.try_emplace(P, false);
      if (Inserted) {
        auto Recorded = File.FileHashes.find(P);
        It->second = Recorded != File.FileHashes.end() &&
                     !Recorded->second.empty() &&
                     Recorded->second == contentHashOf(P);
      }
      Holds &= It->second;
    }
    if (Holds)
      Out.Functions.push_back(std::move(F));
  }
  return Out;
}

std::string findProjectSummaries(llvm::StringRef MainFile) {
  llvm::SmallString<256> Dir(MainFile);
  (void)llvm::sys::fs::make_absolute(Dir); // as it is on failure
  llvm::sys::path::remove_filename(Dir);
  for (llvm::StringRef D = Dir; !D.empty();
       D = llvm::sys::path::parent_path(D)) {
    for (const char *Sub : {"torch-tidy-cache", "build/torch-tidy-cache"}) {
      llvm::SmallString<256> P(D);
      llvm::sys::path::append(P, Sub, ProjectSummariesFileName);
      if (llvm::sys::fs::is_regular_file(P))
        return std::string(P);
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// What the checks read
//===----------------------------------------------------------------------===//

ProjectSummaries &ProjectSummaries::instance() {
  static ProjectSummaries The;
  return The;
}

void ProjectSummaries::set(LinkedSummaries Summaries) {
  const std::lock_guard<std::mutex> G(Lock);
  From = Source::Given;
  ByUSR.clear();
  for (FunctionSummary &F : Summaries.Functions)
    ByUSR.emplace(F.USR, std::move(F));
}

void ProjectSummaries::disable() {
  const std::lock_guard<std::mutex> G(Lock);
  From = Source::Off;
  ByUSR.clear();
}

void ProjectSummaries::clear() {
  const std::lock_guard<std::mutex> G(Lock);
  From = Source::Discover;
  ByUSR.clear();
  FileForDir.clear();
  ByFile.clear();
  Asked.clear();
}

const std::map<std::string, FunctionSummary> *
ProjectSummaries::summariesFor(const FunctionDecl *FD) {
  if (From == Source::Given)
    return &ByUSR;
  if (From == Source::Off)
    return nullptr;
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (!Main)
    return nullptr;
  llvm::SmallString<256> Dir(Main->getName());
  llvm::sys::path::remove_filename(Dir);
  auto [DirIt, NewDir] = FileForDir.try_emplace(std::string(Dir));
  if (NewDir)
    DirIt->second = findProjectSummaries(Main->getName());
  if (DirIt->second.empty())
    return nullptr;
  // Read again when a project run wrote the file anew.
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(DirIt->second, St))
    return nullptr;
  const int64_t MTime = St.getLastModificationTime().time_since_epoch().count();
  Found &F = ByFile[DirIt->second];
  if (F.Path.empty() || F.MTime != MTime || F.Size != St.getSize()) {
    F = Found{DirIt->second, MTime, St.getSize(), {}};
    std::string Error;
    if (std::optional<LinkedSummaries> L =
            readProjectSummaries(DirIt->second, Error))
      for (FunctionSummary &S : L->Functions)
        F.ByUSR.emplace(S.USR, std::move(S));
  }
  return &F.ByUSR;
}

std::optional<FunctionSummary> ProjectSummaries::lookup(const FunctionDecl *FD,
                                                        SummaryFact Fact) {
  const std::string USR = usrOf(FD);
  if (USR.empty())
    return std::nullopt;
  const std::lock_guard<std::mutex> G(Lock);
  const std::map<std::string, FunctionSummary> *Map = summariesFor(FD);
  Asked.insert((factName(Fact) + " " + USR).str());
  if (!Map)
    return std::nullopt;
  auto It = Map->find(USR);
  if (It == Map->end() || !hasFact(It->second, Fact))
    return std::nullopt;
  return It->second;
}

std::vector<std::string> ProjectSummaries::takeAsked() {
  const std::lock_guard<std::mutex> G(Lock);
  std::vector<std::string> Out(Asked.begin(), Asked.end());
  Asked.clear();
  return Out;
}

} // namespace torchtidy
