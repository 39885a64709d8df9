//===--- UncheckedIndexCheck.cpp - torch-tidy -----------------------------===//

#include "UncheckedIndexCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexRanges.h"
#include "torchtidy/analysis/LLVMCompat.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"
#include "utils/OptionsUtils.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <functional>

using torchtidy::IndexOpSite;
using torchtidy::IndexOrigin;

namespace clang::tidy::libtorch {

namespace {

/// The runtime shim's index check a fix-it writes, and its header.
const torchtidy::MacroRow &writtenIndexCheck() {
  static const torchtidy::MacroRow &Row =
      *torchtidy::firstMacroWith(torchtidy::op::ChecksIndex);
  return Row;
}

/// How a message names \p E: its text without comments, or, where that
/// lies inside a macro body, the variable or member it names or the
/// constant it folds to; "" when there is none of these.
std::string displayText(const Expr *E, const ASTContext &Ctx) {
  std::string Text = quotedText(E, Ctx);
  if (!Text.empty() || !E)
    return Text;
  E = torchtidy::peel::peel(E->IgnoreUnlessSpelledInSource(),
                            torchtidy::peel::Parens);
  const ValueDecl *D = nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    D = DRE->getDecl();
  else if (const auto *ME = dyn_cast<MemberExpr>(E))
    D = ME->getMemberDecl();
  if (D && D->getIdentifier())
    return D->getName().str();
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx))
    return llvm::toString(R.Val.getInt(), 10);
  return "";
}

/// An expression that can be repeated in the fix-it without changing what
/// the program does: variables, members, literals, `-1`.
bool isRepeatable(const Expr *E, unsigned Depth = 0) {
  if (!E || Depth > torchtidy::limits::RepeatableDepth ||
      E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return false;
  E = torchtidy::peel::peel(E, torchtidy::peel::ParenImpCasts);
  if (isa<DeclRefExpr, IntegerLiteral, CXXThisExpr>(E))
    return true;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl, VarDecl>(ME->getMemberDecl()) &&
           (ME->isImplicitAccess() || isRepeatable(ME->getBase(), Depth + 1));
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() == UO_Minus &&
           isRepeatable(UO->getSubExpr(), Depth + 1);
  return false;
}

/// How the check describes one kind of sink.
struct SinkWords {
  std::string What;  // "Embedding 'emb'", "index_select on 'x'"
  std::string Bound; // "num_embeddings", "x.size(0)"
  std::string Size;  // the size for the fix-it, "" when it cannot be spelled
  StringRef Unit;    // "an id", "an index", "a class id"
  StringRef Effect;  // what happens on CUDA
  StringRef Noun;    // "index", "target"
};

SinkWords describe(const IndexOpSite &Site, const ASTContext &Ctx) {
  SinkWords W;
  W.Noun = "index";
  W.Unit = "an index";
  W.Effect = "an illegal memory access on CUDA";
  const std::string Src = displayText(Site.Source, Ctx);
  const bool SrcOk = isRepeatable(Site.Source);
  // Inside a macro the tensor may have no name: "on a tensor", "size(0)".
  const std::string On = Src.empty() ? " on a tensor" : " on '" + Src + "'";
  // `(a * b).size(0)`: the receiver of a member access in parentheses.
  std::string Receiver = Src;
  if (!Src.empty() && needsParensForMember(Site.Source))
    Receiver = "(" + Src + ")";
  const std::string Of = Src.empty() ? "" : Receiver + ".";
  switch (Site.K) {
  case IndexOpSite::Embedding:
  case IndexOpSite::EmbeddingBag:
    W.Unit = "an id";
    W.What = Site.Name.str() + (Src.empty() ? "" : " of '" + Src + "'");
    break;
  case IndexOpSite::LossTarget:
    W.Noun = "target";
    W.Unit = "a class id";
    W.Effect = "a device-side assert on CUDA";
    W.What = Site.Name.str();
    break;
  default:
    W.What = Site.Name.str() + On;
    break;
  }
  // The bound, as the table's row for the op says.
  auto Spelled = [&](std::string Text, bool Repeatable) {
    W.Bound = Text;
    if (SrcOk && Repeatable)
      W.Size = std::move(Text);
  };
  auto SizeOf = [&](const Expr *Dim) {
    const std::string DimText = Dim ? displayText(Dim, Ctx) : "0";
    Spelled(Of + opCallText(torchtidy::op::Named::size,
                            DimText.empty() ? "dim" : DimText),
            !Dim || isRepeatable(Dim));
  };
  switch (Site.Bound) {
  case torchtidy::IndexBound::NumEmbeddings: {
    const std::string Mod = displayText(Site.Module, Ctx);
    W.What = Site.Name.str() + (Mod.empty() ? "" : " '" + Mod + "'");
    W.Bound = "num_embeddings";
    const QualType T = Site.Module->getType().getNonReferenceType();
    const bool Arrow = torchtidy::getHolderModule(T) || T->isPointerType() ||
                       torchtidy::getSharedPtrModule(T);
    if (isRepeatable(Site.Module))
      W.Size = Mod + (Arrow ? "->" : ".") + "options.num_embeddings()";
    break;
  }
  case torchtidy::IndexBound::Rows:
    SizeOf(nullptr);
    break;
  case torchtidy::IndexBound::Classes:
    Spelled(Of + opCallText(torchtidy::op::Named::size, "1"), true);
    break;
  case torchtidy::IndexBound::Numel:
    Spelled(Of + opCallText(torchtidy::op::Named::numel), true);
    break;
  case torchtidy::IndexBound::DimArgOrNumel:
    if (!Site.BoundDim) {
      Spelled(Of + opCallText(torchtidy::op::Named::numel), true);
      break;
    }
    SizeOf(Site.BoundDim);
    break;
  case torchtidy::IndexBound::DimArg:
    SizeOf(Site.BoundDim);
    break;
  }
  return W;
}

/// The statement of the innermost `{ ... }` of \p Body that holds \p Target,
/// if the fix-it can go before it. A walk down the body, not the parent map:
/// building that walks all of <torch/torch.h>.
const Stmt *enclosingBlockStatement(const Stmt *Body, const Stmt *Target) {
  const Stmt *Found = nullptr;
  // Depth-first, with the closest statement of a block on the path.
  std::function<bool(const Stmt *, const Stmt *, unsigned)> Walk =
      [&](const Stmt *S, const Stmt *BlockChild, unsigned Depth) {
        if (!S || Depth > torchtidy::limits::StatementNesting)
          return false;
        if (S == Target) {
          Found = BlockChild;
          return true;
        }
        if (isa<LambdaExpr>(S))
          return false; // another function
        const bool IsBlock = isa<CompoundStmt>(S);
        for (const Stmt *Child : S->children())
          if (Walk(Child, IsBlock ? Child : BlockChild, Depth + 1))
            return true;
        return false;
      };
  Walk(Body, nullptr, 0);
  if (!Found || isa<SwitchCase, LabelStmt>(Found))
    return nullptr;
  return Found;
}

} // namespace

UncheckedIndexCheck::UncheckedIndexCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      CheckLossTargets(Options.get("CheckLossTargets", true)),
      ReportParameters(Options.get("ReportParameters", false)),
      GuardFunctions(Options.get("GuardFunctions", "")),
      Inserter(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void UncheckedIndexCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "CheckLossTargets", CheckLossTargets);
  Options.store(Opts, "ReportParameters", ReportParameters);
  Options.store(Opts, "GuardFunctions", GuardFunctions);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

void UncheckedIndexCheck::registerPPCallbacks(const SourceManager &,
                                              Preprocessor *PP,
                                              Preprocessor *) {
  Inserter.registerPreprocessor(PP);
}

void UncheckedIndexCheck::checkTranslationUnit(ASTContext &Ctx) {
  Context = &Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  // The sinks in user code (torchtidy/analysis/UserCode.h), grouped by the
  // function (or lambda) around them, so that each function's CFG is built
  // once.
  llvm::MapVector<const FunctionDecl *, llvm::SmallVector<Sink, 4>> Sinks;
  torchtidy::forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    torchtidy::forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      std::optional<IndexOpSite> Site = torchtidy::matchIndexSink(Call);
      if (!Site ||
          !torchtidy::isUserCode(torchtidy::compat::beginLoc(Call), SM))
        return;
      if (Site->K == IndexOpSite::LossTarget && !CheckLossTargets)
        return;
      Sinks[FD].push_back({Call, *Site, FD->getBody()});
    });
  });
  torchtidy::IndexGuardConfig Config;
  for (const StringRef Name : utils::options::parseStringList(GuardFunctions))
    if (!Name.trim().empty())
      Config.GuardFunctions.push_back(Name.trim().str());
  torchtidy::FunctionContexts &Contexts = torchtidy::FunctionContexts::of(Ctx);
  // The project summary's index facts use the same options (IndexGuards.h).
  Contexts.analysis<torchtidy::IndexGuardOptions>().Config = Config;
  auto &Analysis = Contexts.analysis<torchtidy::IndexGuardAnalysis>(Config);
  torchtidy::IndexRangeAnalysis Ranges(Ctx, Analysis, ReportParameters);
  for (const auto &[FD, List] : Sinks) {
    torchtidy::IndexGuardFinder &Finder = Analysis.finder(FD);
    if (!Finder.valid())
      continue;
    for (const Sink &S : List)
      analyze(FD, S, Finder, Ranges);
  }
  checkPassedIds(Ctx, Ranges);
  checkPassedLengths(Ctx, Ranges);
}

void UncheckedIndexCheck::checkPassedIds(
    ASTContext &Ctx, torchtidy::IndexRangeAnalysis &Ranges) {
  SourceManager &SM = Ctx.getSourceManager();
  torchtidy::forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    torchtidy::forEachOwnStmt(FD->getBody(), [&](const Stmt *St) {
      const auto *Call = dyn_cast<CallExpr>(St);
      const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
      if (!Callee || Call->isInstantiationDependent() ||
          CallsReported.count(Call) ||
          !torchtidy::isUserCode(torchtidy::compat::beginLoc(Call), SM))
        return;
      const FunctionDecl *Def = Callee->getDefinition();
      const bool Elsewhere = !Def && torchtidy::isDeclaredElsewhere(Callee);
      if (!Elsewhere && (!Def || !torchtidy::isUserDecl(Def)))
        return;
      const unsigned First =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
      // A function of this file says which parameters reach an index (once
      // per function, memoised): only their arguments are looked at.
      llvm::ArrayRef<torchtidy::IndexedParam> Listed;
      if (Def) {
        Listed = Ranges.indexedParams(Def);
        if (Listed.empty())
          return;
      }
      // Another file's is asked only about arguments that hold ids from
      // outside (a question can make a project run analyse this file
      // again).
      llvm::SmallVector<std::pair<unsigned, torchtidy::OutsideValues>, 1>
          Outside;
      for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
        if (I + First >= Call->getNumArgs())
          break;
        if (Def && llvm::none_of(Listed, [&](const torchtidy::IndexedParam &P) {
              return P.Param == I;
            }))
          continue;
        const Expr *Arg = Call->getArg(I + First);
        if (isa<CXXDefaultArgExpr>(Arg))
          continue;
        if (std::optional<torchtidy::OutsideValues> O =
                Ranges.outsideArgument(FD, Call, Arg))
          Outside.push_back({I, std::move(*O)});
      }
      if (Outside.empty())
        return;
      // The parameter's sink, and the words of the notes on the way.
      struct Reach {
        std::string What;
        std::vector<std::pair<SourceLocation, std::string>> Steps;
        const torchtidy::FunctionSummary::Fact *Summarised = nullptr;
      };
      std::optional<torchtidy::FunctionSummary> Summary;
      if (Elsewhere)
        Summary = torchtidy::ProjectSummaries::instance().lookup(
            Callee, torchtidy::SummaryFact::IndexedParams);
      for (const auto &[Param, O] : Outside) {
        std::optional<Reach> R;
        if (Summary) {
          for (const auto &I : Summary->IndexedParams)
            if (I.Param == Param) {
              R.emplace();
              R->What = I.Sink.What;
              R->Summarised = &I.Sink;
              break;
            }
        } else if (Def) {
          for (const torchtidy::IndexedParam &I : Listed)
            if (I.Param == Param) {
              R.emplace();
              R->What = describe(I.Site, Ctx).What;
              const FunctionDecl *From = Def;
              for (const CallExpr *Via : I.Via)
                if (const FunctionDecl *Next = Via->getDirectCallee()) {
                  R->Steps.emplace_back(Via->getExprLoc(),
                                        "'" + From->getQualifiedNameAsString() +
                                            "' calls '" +
                                            Next->getQualifiedNameAsString() +
                                            "' with them here");
                  From = Next;
                }
              R->Steps.emplace_back(torchtidy::compat::beginLoc(I.Sink),
                                    "they reach " + R->What + " here");
              break;
            }
        }
        if (!R)
          continue;
        const Expr *Arg = Call->getArg(Param + First);
        const std::string Text = displayText(Arg, Ctx);
        const SourceLocation At = torchtidy::compat::beginLoc(Call);
        // A call in a lambda that a dispatch macro copies: once.
        if (!firstReport(At))
          return;
        diag(At, "%0 holds values from outside the program and is passed to "
                 "'%1', which reaches %2 with them without a bounds check; an "
                 "index outside the table's rows is an illegal memory access "
                 "on CUDA")
            << (Text.empty() ? std::string("an argument") : "'" + Text + "'")
            << Callee->getNameAsString() << R->What;
        noteOutside(O);
        for (const auto &[Loc, Words] : R->Steps)
          diag(Loc, Words, DiagnosticIDs::Note);
        if (R->Summarised) {
          for (const torchtidy::SummaryStep &Step : R->Summarised->Via)
            notePlace(Step.At,
                      "'" + Step.Caller + "' calls '" + Step.Callee +
                          "' with them here",
                      At, SM);
          notePlace(R->Summarised->At,
                    "they reach " + R->What +
                        " here (the project's summary of '" + Summary->Name +
                        "')",
                    At, SM);
        }
        return; // one finding a call
      }
    });
  });
}

void UncheckedIndexCheck::checkPassedLengths(
    ASTContext &Ctx, torchtidy::IndexRangeAnalysis &Ranges) {
  SourceManager &SM = Ctx.getSourceManager();
  torchtidy::forEachUserFunction(Ctx, [&](const FunctionDecl *FD) {
    torchtidy::forEachOwnStmt(FD->getBody(), [&](const Stmt *St) {
      const auto *Call = dyn_cast<CallExpr>(St);
      if (!Call || Call->isInstantiationDependent() ||
          CallsReported.count(Call) ||
          !torchtidy::isUserCode(torchtidy::compat::beginLoc(Call), SM))
        return;
      // The function called: directly, or a module's forward through its
      // holder (`model(x)`).
      const FunctionDecl *Callee = Call->getDirectCallee();
      unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                               isa_and_nonnull<CXXMethodDecl>(Callee)
                           ? 1
                           : 0;
      const Expr *ModuleExpr = nullptr;
      if (const CXXRecordDecl *M =
              torchtidy::moduleForwardCall(Call, &ModuleExpr);
          M && isa<CXXOperatorCallExpr>(Call)) {
        Callee = nullptr;
        for (const CXXMethodDecl *MD : M->methods())
          if (torchtidy::hasOpName(MD, torchtidy::op::Named::forward) &&
              MD->getNumParams() + 1 == Call->getNumArgs()) {
            if (Callee)
              return; // overloads: which one is not known here
            Callee = MD;
          }
        First = 1;
      }
      if (!Callee || Callee->getDefinition() ||
          !torchtidy::isDeclaredElsewhere(Callee))
        return;
      for (unsigned I = 0;
           I < Callee->getNumParams() && I + First < Call->getNumArgs(); ++I) {
        const Expr *Arg = Call->getArg(I + First);
        // Another file's summary is asked only about a growing argument (a
        // question can make a project run analyse this file again).
        std::optional<torchtidy::GrowingLength> G =
            Ranges.growingArgument(FD, Arg);
        if (!G)
          continue;
        std::optional<torchtidy::FunctionSummary> Summary =
            torchtidy::ProjectSummaries::instance().lookup(
                Callee, torchtidy::SummaryFact::LengthParams);
        if (!Summary)
          return;
        for (const auto &L : Summary->LengthParams) {
          if (L.Param != I || L.Dim != G->Dim)
            continue;
          const std::optional<torchtidy::Quantity> Rows =
              Ranges.rowsAtCall(FD, Call, L.Rows);
          if (Ranges.lengthBoundAtCall(FD, Call, *G, L.Offset, Rows))
            continue;
          const SourceLocation At = torchtidy::compat::beginLoc(Call);
          if (!firstReport(At))
            return;
          const std::string Text = displayText(Arg, Ctx);
          const int64_t End = L.Offset - 1;
          const std::string Reach =
              "its length" + (End == 0
                                  ? std::string()
                                  : (End > 0 ? " + " : " - ") +
                                        std::to_string(End > 0 ? End : -End));
          diag(At, "%0 grows in a loop and is passed to '%1', where index %2 "
                   "goes up to %3, but %4 has %5 rows and nothing bounds the "
                   "length by them; an index outside the table's rows is an "
                   "illegal memory access on CUDA")
              << (Text.empty() ? std::string("an argument") : "'" + Text + "'")
              << Summary->Name
              << (L.Index.empty() ? std::string("the index")
                                  : "'" + L.Index + "'")
              << Reach << L.Sink.What << L.Rows.Text;
          diag(G->Cat->getBeginLoc(),
               "its length grows here: each iteration concatenates more "
               "along dim %0",
               DiagnosticIDs::Note)
              << std::to_string(G->Dim);
          notePlace(L.Made,
                    "the index is made here from its length (the project's "
                    "summary of '" +
                        Summary->Name + "')",
                    At, SM);
          notePlace(L.Rows.At,
                    "the table's " + L.Rows.Text + " rows are set here", At,
                    SM);
          CallsReported.insert(Call);
          return; // one finding a call
        }
      }
    });
  });
}

void UncheckedIndexCheck::analyze(const FunctionDecl *FD, const Sink &S,
                                  torchtidy::IndexGuardFinder &Finder,
                                  torchtidy::IndexRangeAnalysis &Ranges) {
  // Evidence that the index can leave the table is reported in every mode.
  const torchtidy::IndexEvidence E = Ranges.evidence(FD, S.Call, S.Site);
  if (E) {
    reportEvidence(S, E);
    return;
  }
  // ReportParameters: every index from outside the function with no
  // bounds check on every path, as a team that guards every entry wants;
  // not one whose every value is shown in range.
  if (!ReportParameters || E.InRange)
    return;
  // A clamp or remainder of a table whose size is known, not shown within
  // it, is no bounds check of that table.
  const IndexOrigin Origin = Finder.classify(S.Site.Index, S.Call);
  if (Origin.K != IndexOrigin::Unsafe && !E.Unproven)
    return;
  const SinkWords W = describe(S.Site, *Context);
  const std::string Index = displayText(S.Site.Index, *Context);
  const std::string Subject =
      Index.empty() ? "the " + W.Noun.str() : W.Noun.str() + " '" + Index + "'";
  {
    DiagnosticBuilder Diag =
        diag(torchtidy::compat::beginLoc(S.Call),
             "%0 reaches %1 without a bounds check; %2 outside [0, %3) is %4")
        << Subject << W.What << W.Unit << W.Bound << W.Effect;
    if (!W.Size.empty())
      addFix(Diag, S, W.Size);
  }
  if (Origin.K == IndexOrigin::Unsafe)
    noteOrigin(Origin);
}

void UncheckedIndexCheck::noteOutside(const torchtidy::OutsideValues &O) {
  if (!O.At)
    return;
  const torchtidy::FunctionSummary *S = O.Summary.get();
  const torchtidy::FunctionSummary::Fact *Outside =
      S ? torchtidy::factOf(*S, torchtidy::SummaryFact::OutsideValues)
        : nullptr;
  if (!Outside) {
    diag(O.At->getBeginLoc(), "the values come from %0 here",
         DiagnosticIDs::Note)
        << O.How;
    return;
  }
  // Through a function of another file: the call here, and where its
  // project summary says the values enter.
  const SourceLocation CallAt = O.At->getBeginLoc();
  diag(CallAt, "'%0' is called here", DiagnosticIDs::Note) << S->Name;
  notePlace(Outside->At,
            "the values come from " + Outside->What +
                " here (the project's summary of '" + S->Name + "')",
            CallAt, Context->getSourceManager());
}

/// A quantity as a message shows it, without the code's comments.
static std::string quantityText(const torchtidy::Quantity &Q, int64_t Delta,
                                const ASTContext &Ctx) {
  return withoutComments(torchtidy::describeQuantity(Q, Ctx, Delta));
}

void UncheckedIndexCheck::reportEvidence(const Sink &S,
                                         const torchtidy::IndexEvidence &E) {
  using torchtidy::IndexEvidence;
  SinkWords W = describe(S.Site, *Context);
  const std::string Index = displayText(S.Site.Index, *Context);
  const std::string Subject =
      Index.empty() ? "the " + W.Noun.str() : W.Noun.str() + " '" + Index + "'";
  const std::string Rows =
      E.Table.Rows.known() ? quantityText(E.Table.Rows, 0, *Context) : "";
  // Found in a caller: reported where the index is passed, with a note at
  // the op it reaches.
  const bool AtCaller = E.Caller != nullptr;
  if (AtCaller)
    CallsReported.insert(E.Caller);
  const SourceLocation At =
      torchtidy::compat::beginLoc(AtCaller ? E.Caller : S.Call);
  std::string Passed;
  if (AtCaller)
    if (const FunctionDecl *Callee = E.Caller->getDirectCallee())
      Passed = " passed to '" + Callee->getNameAsString() + "'";
  auto Tail = [&](DiagnosticBuilder &D) {
    if (!AtCaller && !W.Size.empty())
      addFix(D, S, W.Size);
  };
  switch (E.K) {
  case IndexEvidence::ConstantOutOfRange: {
    const bool Embedding = S.Site.K == IndexOpSite::Embedding ||
                           S.Site.K == IndexOpSite::EmbeddingBag;
    const bool Loss = S.Site.K == IndexOpSite::LossTarget;
    const std::string What = Embedding ? "an embedding" : W.What;
    const std::string Size =
        Rows.empty() ? "" : " with " + Rows + (Loss ? " classes" : " rows");
    const std::string Value = quantityText(E.Value, 0, *Context);
    {
      DiagnosticBuilder D = diag(At, "%0 %1%2 is out of range for %3%4; %5")
                            << (Embedding ? "id"
                                : Loss    ? "class id"
                                          : "index")
                            << Value << Passed << What << Size << W.Effect;
      Tail(D);
    }
    if (E.ValueAt)
      diag(E.ValueAt->getBeginLoc(),
           E.Range.Sentinel ? "%0 is written into the %1 here"
                            : "id %0 is written here",
           DiagnosticIDs::Note)
          << Value << W.Noun;
    break;
  }
  case IndexEvidence::NegativeStart: {
    const std::string Low = quantityText(E.Range.Lo, 0, *Context);
    {
      DiagnosticBuilder D =
          diag(At, "%0%1 can be %2, outside [0, %3) of %4; %5")
          << Subject << Passed << Low << W.Bound << W.What << W.Effect;
      Tail(D);
    }
    if (E.Range.Interval)
      diag(E.Range.Interval->getBeginLoc(),
           "its values start at %0 here; the shift by %1 makes them start "
           "at %2",
           DiagnosticIDs::Note)
          << quantityText(E.Range.Lo, -E.Range.Shift, *Context)
          << std::to_string(E.Range.Shift) << Low;
    break;
  }
  case IndexEvidence::PastTheEnd: {
    {
      DiagnosticBuilder D = diag(At, "%0%1 can reach %2, outside [0, %3) of "
                                     "%4; %5")
                            << Subject << Passed
                            << quantityText(E.Range.Hi, -1, *Context) << Rows
                            << W.What << W.Effect;
      Tail(D);
    }
    if (E.Range.Interval)
      diag(E.Range.Interval->getBeginLoc(), "its values go up to %0 here",
           DiagnosticIDs::Note)
          << quantityText(E.Range.Hi, -1, *Context);
    break;
  }
  case IndexEvidence::UnboundedLength: {
    const std::string Length = quantityText(E.Range.Hi, 0, *Context);
    {
      DiagnosticBuilder D =
          diag(At, "%0%1 goes up to %2 - 1, a length known only at run time, "
                   "but %3 has %4 rows and nothing bounds %2 by them; %5 "
                   "outside [0, %6) is %7")
          << Subject << Passed << Length << W.What << Rows << W.Unit << W.Bound
          << W.Effect;
      Tail(D);
    }
    if (E.Range.Interval)
      diag(E.Range.Interval->getBeginLoc(), "the %0 is made here from %1",
           DiagnosticIDs::Note)
          << W.Noun << Length;
    if (const Expr *RowsAt =
            E.Table.Rows.Origin ? E.Table.Rows.Origin : E.Table.MadeAt)
      diag(RowsAt->getBeginLoc(), "the table's %0 rows are set here",
           DiagnosticIDs::Note)
          << Rows;
    if (E.UnboundedCaller)
      diag(torchtidy::compat::beginLoc(E.UnboundedCaller),
           "called here with a tensor whose length nothing bounds",
           DiagnosticIDs::Note);
    break;
  }
  case IndexEvidence::External: {
    {
      DiagnosticBuilder D =
          diag(At, "%0%1 holds values from outside the program and reaches "
                   "%2 without a bounds check; %3 outside [0, %4) is %5")
          << Subject << Passed << W.What << W.Unit << W.Bound << W.Effect;
      Tail(D);
    }
    noteOutside(torchtidy::OutsideValues{E.Range.External, E.Range.How,
                                         E.Range.ExternalSummary});
    break;
  }
  case IndexEvidence::IneffectiveGuard: {
    if (E.Problem == IndexEvidence::OtherTensor && E.TestedInstead) {
      DiagnosticBuilder D =
          diag(At, "%0 reaches %1 without a bounds check, but the function "
                   "checks %2 against the same rows: the check meant for "
                   "this index may test the wrong tensor; %3 outside [0, %4) "
                   "is %5")
          << Subject << W.What << E.TestedInstead << W.Unit << W.Bound
          << W.Effect;
      Tail(D);
    } else {
      const char *Why = E.Problem == IndexEvidence::AfterTheUse
                            ? "it comes after the use"
                        : E.Problem == IndexEvidence::WrittenAfter
                            ? "the index is written again after it"
                            : "it is not on every path to the use";
      DiagnosticBuilder D =
          diag(At, "the bounds check of %0 does not protect this use in %1: "
                   "%2; %3 outside [0, %4) is %5")
          << Subject << W.What << Why << W.Unit << W.Bound << W.Effect;
      Tail(D);
    }
    if (E.Guard)
      diag(Context->getSourceManager().getExpansionLoc(E.Guard->getBeginLoc()),
           "the check is here", DiagnosticIDs::Note);
    break;
  }
  case IndexEvidence::OffByOneGuard: {
    {
      DiagnosticBuilder D =
          diag(At, "the bounds check of %0 lets %1 through, but %2 has %1 "
                   "rows: the last valid %3 is %1 - 1; %4")
          << Subject << Rows << W.What << W.Noun << W.Effect;
      Tail(D);
    }
    if (E.Guard)
      diag(Context->getSourceManager().getExpansionLoc(E.Guard->getBeginLoc()),
           "the check is here", DiagnosticIDs::Note);
    break;
  }
  case IndexEvidence::None:
    return;
  }
  if (AtCaller)
    diag(torchtidy::compat::beginLoc(S.Call), "it reaches %0 here",
         DiagnosticIDs::Note)
        << W.What;
  else if (E.Table.MadeAt && E.K == IndexEvidence::ConstantOutOfRange &&
           S.Site.Module)
    diag(E.Table.MadeAt->getBeginLoc(), "the embedding is created here",
         DiagnosticIDs::Note);
}

void UncheckedIndexCheck::addFix(DiagnosticBuilder &Diag, const Sink &S,
                                 StringRef Size) {
  const Expr *Var = torchtidy::stripValuePreserving(S.Site.Index);
  std::optional<torchtidy::IndexVar> V = torchtidy::directVariable(Var);
  if (!V || !isRepeatable(Var))
    return;
  const Stmt *Statement = enclosingBlockStatement(S.Body, S.Call);
  if (!Statement)
    return;
  // One check per statement: two insertions at one place conflict when
  // clang-apply-replacements merges the exported fixes (the next run offers
  // the other).
  if (!FixedStatements.insert(Statement).second)
    return;
  const SourceManager &SM = Context->getSourceManager();
  const SourceLocation Begin = Statement->getBeginLoc();
  if (Begin.isInvalid() || Begin.isMacroID())
    return;
  // The variable must exist before the statement.
  if (V->Base && !isa<ParmVarDecl>(V->Base) &&
      !SM.isBeforeInTranslationUnit(V->Base->getLocation(), Begin))
    return;
  auto [File, Offset] = SM.getDecomposedLoc(Begin);
  const StringRef Buffer = SM.getBufferData(File);
  size_t LineStart = Buffer.rfind('\n', Offset ? Offset - 1 : 0);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (Offset == 0)
    LineStart = 0;
  const StringRef Indent = Buffer.slice(LineStart, Offset);
  std::string Text = (writtenIndexCheck().Name + "(" +
                      fileText(Var, *Context).trim() + ", " + Size + ");")
                         .str();
  if (Indent.trim().empty())
    Text += "\n" + Indent.str();
  else
    Text += " ";
  Diag << FixItHint::CreateInsertion(Begin, Text)
       << Inserter.createIncludeInsertion(
              File, ("<" + writtenIndexCheck().Header + ">").str());
}

void UncheckedIndexCheck::noteOrigin(const IndexOrigin &Origin) {
  auto Loc = [&]() {
    if (Origin.Decl &&
        (Origin.Why == IndexOrigin::Parameter ||
         Origin.Why == IndexOrigin::Global ||
         Origin.Why == IndexOrigin::Element ||
         (Origin.Why == IndexOrigin::Member && !Origin.Evidence)))
      return Origin.Decl->getLocation();
    if (Origin.Evidence)
      return Origin.Evidence->getBeginLoc();
    return Origin.Decl ? Origin.Decl->getLocation() : SourceLocation();
  }();
  if (Loc.isInvalid())
    return;
  std::string Name;
  if (const auto *ND = dyn_cast_or_null<NamedDecl>(Origin.Decl))
    Name = ND->getNameAsString();
  switch (Origin.Why) {
  case IndexOrigin::Parameter:
    diag(Loc, "'%0' is a parameter: its values come from the caller",
         DiagnosticIDs::Note)
        << Name;
    return;
  case IndexOrigin::Member:
    diag(Origin.Decl->getLocation(),
         "'%0' is a data member: its values are set outside this function",
         DiagnosticIDs::Note)
        << Name;
    return;
  case IndexOrigin::Global:
    diag(Loc,
         "'%0' is a global variable: its values are set outside this "
         "function",
         DiagnosticIDs::Note)
        << Name;
    return;
  case IndexOrigin::BatchField:
    diag(Loc,
         "'%0' is a field of a data batch: its values come from the "
         "dataset",
         DiagnosticIDs::Note)
        << displayText(dyn_cast<Expr>(Origin.Evidence), *Context);
    return;
  case IndexOrigin::Element:
    diag(Loc,
         "'%0' is an element of a container: its values are set "
         "outside this function",
         DiagnosticIDs::Note)
        << Name;
    return;
  case IndexOrigin::CallResult:
    if (Origin.Callee.empty())
      diag(Loc,
           "the index comes from a call that does not produce bounded "
           "indices",
           DiagnosticIDs::Note);
    else
      diag(Loc,
           "the index comes from a call to '%0', which does not produce "
           "bounded indices",
           DiagnosticIDs::Note)
          << Origin.Callee;
    return;
  case IndexOrigin::Computed:
    diag(Loc,
         "the index is computed by '%0' here, which can leave the table's "
         "range",
         DiagnosticIDs::Note)
        << Origin.Callee;
    return;
  default:
    return;
  }
}

} // namespace clang::tidy::libtorch
