//===--- UncheckedKernelLaunchCheck.cpp - torch-tidy ----------------------===//

#include "UncheckedKernelLaunchCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/KernelLaunches.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/ProjectSummaries.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"
#include "utils/OptionsUtils.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::libtorch {

namespace {

/// The launch check a fix-it writes after a launch, and its header.
const torchtidy::MacroRow &writtenLaunchCheck() {
  static const torchtidy::MacroRow &Row =
      *torchtidy::firstMacroWith(torchtidy::op::WrittenAfterLaunch);
  return Row;
}
/// The function whose stream a fix-it passes a launch (the table's
/// CurrentStream row, at::cuda's name for c10::cuda's), and its header.
llvm::StringRef currentStreamName() {
  static const llvm::StringRef Name =
      torchtidy::firstOpWith(torchtidy::op::CurrentStream)->Name;
  return Name;
}
/// The namespace a fix-it names it in, and the header that declares it there.
constexpr llvm::StringLiteral CurrentStreamScope = "at::cuda";
constexpr const char *CurrentStreamHeader = "<ATen/cuda/CUDAContext.h>";

const char *dimensionName(unsigned Dim) {
  return Dim == 0 ? "x" : Dim == 1 ? "y" : "z";
}

/// at::cuda's currentStreamName() is declared in the translation unit.
bool declaresCurrentStream(ASTContext &Ctx) {
  return torchtidy::lookupQualified(Ctx, CurrentStreamScope,
                                    currentStreamName()) != nullptr;
}

} // namespace

UncheckedKernelLaunchCheck::UncheckedKernelLaunchCheck(
    StringRef Name, ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      LaunchCheckMacros(Options.get("LaunchCheckMacros", "")),
      RequireLaunchCheck(Options.get("RequireLaunchCheck", false)),
      ReportDefaultStream(Options.get("ReportDefaultStream", true)),
      ReportUnprovenArguments(Options.get("ReportUnprovenArguments", false)),
      Inserter(Options.getLocalOrGlobal("IncludeStyle",
                                        utils::IncludeSorter::IS_LLVM),
               areDiagsSelfContained()) {}

void UncheckedKernelLaunchCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "LaunchCheckMacros", LaunchCheckMacros);
  Options.store(Opts, "RequireLaunchCheck", RequireLaunchCheck);
  Options.store(Opts, "ReportDefaultStream", ReportDefaultStream);
  Options.store(Opts, "ReportUnprovenArguments", ReportUnprovenArguments);
  Options.store(Opts, "IncludeStyle", Inserter.getStyle());
}

namespace {

/// Records the first place user code makes its file a PyTorch extension or
/// an op library (UncheckedKernelLaunchCheck::StreamEvidence).
class ExtensionEvidence : public PPCallbacks {
public:
  ExtensionEvidence(const SourceManager &SM, UncheckedKernelLaunchCheck &Check)
      : SM(SM), Check(Check) {}

  // torch.utils.cpp_extension builds every file of an extension with
  // -DTORCH_EXTENSION_NAME=<name>. Including <torch/extension.h> is no
  // evidence: programs of their own include it too (SchNet_LibTorch_CUDA).
  void MacroDefined(const Token &Name, const MacroDirective *) override {
    const IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II ||
        !(torchtidy::macroFacts(II->getName()) &
          torchtidy::op::NamesExtension) ||
        Check.OtherStreams)
      return;
    const SourceLocation Loc = Name.getLocation();
    if (SM.isWrittenInCommandLineFile(Loc) || SM.isWrittenInBuiltinFile(Loc))
      Check.OtherStreams = UncheckedKernelLaunchCheck::StreamEvidence{
          SourceLocation(),
          "TORCH_EXTENSION_NAME is defined on the command line, as "
          "torch.utils.cpp_extension builds a PyTorch extension, whose ops "
          "Python calls under torch.cuda.stream"};
    else
      record(Loc, "it defines TORCH_EXTENSION_NAME: a PyTorch extension, "
                  "whose ops Python calls under torch.cuda.stream");
  }

  void MacroExpands(const Token &Name, const MacroDefinition &, SourceRange,
                    const MacroArgs *) override {
    const IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II)
      return;
    const StringRef N = II->getName();
    if (torchtidy::macroFacts(N) & torchtidy::op::RegistersOps)
      record(Name.getLocation(),
             ("it registers ops with " + N +
              ": their callers choose the stream they run on")
                 .str());
  }

private:
  void record(SourceLocation Loc, std::string What) {
    if (Check.OtherStreams || !torchtidy::isUserCode(Loc, SM))
      return;
    Check.OtherStreams = UncheckedKernelLaunchCheck::StreamEvidence{
        SM.getExpansionLoc(Loc), std::move(What)};
  }

  const SourceManager &SM;
  UncheckedKernelLaunchCheck &Check;
};

} // namespace

void UncheckedKernelLaunchCheck::registerPPCallbacks(const SourceManager &SM,
                                                     Preprocessor *PP,
                                                     Preprocessor *) {
  this->PP = PP;
  Inserter.registerPreprocessor(PP);
  PP->addPPCallbacks(std::make_unique<ExtensionEvidence>(SM, *this));
}

/// How \p Other (firstOtherStream) runs work on another stream, for a note.
static std::string otherStreamWhat(const Expr *Other) {
  const NamedDecl *What = nullptr;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Other))
    What = Construct->getConstructor()->getParent();
  else if (const auto *Call = dyn_cast<CallExpr>(Other))
    What = Call->getDirectCallee();
  // The CUDA runtime's cudaStreamCreate...
  if (!What || What->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return "it creates a stream here";
  return "it uses another stream here ('" + What->getQualifiedNameAsString() +
         "')";
}

void UncheckedKernelLaunchCheck::checkTranslationUnit(ASTContext &Ctx) {
  // The launches are collected from user code alone
  // (torchtidy/analysis/UserCode.h).
  Context = &Ctx;
  torchtidy::KernelLaunchConfig Config;
  for (const StringRef M : utils::options::parseStringList(LaunchCheckMacros))
    Config.LaunchCheckMacros.push_back(M.trim().str());
  Config.ReportUnprovenArguments = ReportUnprovenArguments;
  torchtidy::KernelLaunchAnalysis Analysis(*Context, std::move(Config));
  const bool Torch = Analysis.usesLibTorch();
  // Work on a stream of the program's own is evidence too.
  if (ReportDefaultStream && Torch && !OtherStreams)
    if (const Expr *Other = Analysis.firstOtherStream())
      OtherStreams = StreamEvidence{
          Other->getBeginLoc(), otherStreamWhat(Other) +
                                    ": work on it and on the default stream "
                                    "is not ordered"};
  torchtidy::forEachUserFunction(*Context, [&](const FunctionDecl *FD) {
    for (const torchtidy::KernelLaunchSite &Site : Analysis.launches(FD)) {
      if (!torchtidy::isUserCode(Site.Launch->getBeginLoc(),
                                 Context->getSourceManager()))
        continue;
      if (Site.Follow == torchtidy::KernelLaunchSite::After::Unchecked &&
          (Site.Failure.K != torchtidy::LaunchFailure::None ||
           RequireLaunchCheck))
        reportUnchecked(Site);
      if (ReportDefaultStream && Torch && OtherStreams &&
          Site.Stream != torchtidy::KernelLaunchSite::StreamUse::Given)
        reportStream(Site);
    }
    for (const torchtidy::KernelArgIssue &Issue : Analysis.argumentIssues(FD))
      if (torchtidy::isUserCode(Issue.Sink->getBeginLoc(),
                                Context->getSourceManager()))
        reportArgument(Issue);
  });
}

void UncheckedKernelLaunchCheck::endTranslationUnit() {
  FixedAt.clear();
  OtherStreams.reset();
  Context = nullptr;
}

SourceLocation UncheckedKernelLaunchCheck::writtenLoc(SourceLocation Loc,
                                                      bool End) const {
  const SourceManager &SM = Context->getSourceManager();
  for (unsigned I = 0; Loc.isMacroID() && I < torchtidy::limits::MacroDepth;
       ++I) {
    if (!SM.isMacroArgExpansion(Loc))
      return End ? SM.getExpansionRange(Loc).getEnd() : SM.getExpansionLoc(Loc);
    Loc = SM.getImmediateSpellingLoc(Loc);
  }
  return Loc;
}

void UncheckedKernelLaunchCheck::reportUnchecked(
    const torchtidy::KernelLaunchSite &Site) {
  const SourceManager &SM = Context->getSourceManager();
  const LangOptions &LO = Context->getLangOpts();
  const SourceLocation Loc = writtenLoc(Site.Launch->getBeginLoc());
  if (!firstReport(Loc, 0))
    return;
  const std::string Kernel = torchtidy::kernelName(Site.Launch);
  const torchtidy::LaunchFailure &F = Site.Failure;
  std::string Why;
  switch (F.K) {
  case torchtidy::LaunchFailure::EmptyGrid:
    Why = (llvm::Twine("the grid's ") + dimensionName(F.Dim) +
           " dimension is computed from '" + quotedText(F.Size, *Context) +
           "', which is 0 for an empty tensor, and a grid of 0 blocks is an "
           "invalid configuration")
              .str();
    break;
  case torchtidy::LaunchFailure::ZeroGrid:
    Why = (llvm::Twine("the grid's ") + dimensionName(F.Dim) +
           " dimension is 0, an invalid configuration")
              .str();
    break;
  case torchtidy::LaunchFailure::OversizedBlock:
    Why = (llvm::Twine("its block has ") + llvm::Twine(F.Threads) +
           " threads, more than the 1024 a block can have")
              .str();
    break;
  case torchtidy::LaunchFailure::None:
    break;
  }
  {
    const DiagnosticBuilder D =
        diag(Loc, "kernel launch%select{| of '%1'}0 is not checked: if it "
                  "fails, its error stays pending and the next unrelated CUDA "
                  "call reports it, far from here%select{|; %3}2; add "
                  "C10_CUDA_KERNEL_LAUNCH_CHECK() after it")
        << !Kernel.empty() << Kernel << !Why.empty() << Why;
    // The fix: a check right after the statement that holds the launch.
    const Stmt *S = Site.Statement;
    const SourceLocation End =
        S ? writtenLoc(S->getEndLoc(), /*End=*/true) : SourceLocation();
    const SourceLocation Begin =
        S ? writtenLoc(S->getBeginLoc()) : SourceLocation();
    if (End.isValid() && End.isFileID() && Begin.isFileID() &&
        SM.getFileID(End) == SM.getFileID(Begin)) {
      SourceLocation After = Lexer::findLocationAfterToken(
          End, tok::semi, SM, LO, /*SkipTrailingWhitespaceAndNewLine=*/false);
      if (After.isInvalid() && (isa<CompoundStmt>(S) || isa<IfStmt>(S) ||
                                isa<ForStmt>(S) || isa<WhileStmt>(S)))
        After = Lexer::getLocForEndOfToken(End, 0, SM, LO);
      if (After.isValid() &&
          FixedAt.insert(SM.getFileOffset(After) + 1).second) {
        auto [File, Offset] = SM.getDecomposedLoc(Begin);
        const StringRef Buffer = SM.getBufferData(File);
        size_t LineStart = Offset == 0 ? 0 : Buffer.rfind('\n', Offset - 1);
        LineStart =
            LineStart == StringRef::npos || Offset == 0 ? 0 : LineStart + 1;
        StringRef Indent = Buffer.slice(LineStart, Offset);
        if (!Indent.trim().empty())
          Indent = "";
        const torchtidy::MacroRow &Written = writtenLaunchCheck();
        D << FixItHint::CreateInsertion(
            After, ("\n" + Indent + Written.Name + "();").str());
        if (PP && !PP->isMacroDefined(Written.Name))
          // A library's header, as extensions include LibTorch's.
          D << Inserter.createIncludeInsertion(
              File, ("<" + Written.Header + ">").str());
      }
    }
  }
  if (F.K == torchtidy::LaunchFailure::EmptyGrid) {
    if (F.Via)
      diag(F.Via->getLocation(),
           "'%0' holds '%1', and nothing before the launch returns early when "
           "it is 0",
           DiagnosticIDs::Note)
          << F.Via->getName() << quotedText(F.Size, *Context);
    else
      diag(writtenLoc(F.Size->getBeginLoc()),
           "nothing before the launch returns early when '%0' is 0",
           DiagnosticIDs::Note)
          << quotedText(F.Size, *Context);
  }
  if (Site.Next)
    diag(writtenLoc(Site.Next->getBeginLoc()),
         "the next statement is not a launch check", DiagnosticIDs::Note);
}

void UncheckedKernelLaunchCheck::reportStream(
    const torchtidy::KernelLaunchSite &Site) {
  const SourceManager &SM = Context->getSourceManager();
  const SourceLocation Loc = writtenLoc(Site.Launch->getBeginLoc());
  if (!firstReport(Loc, 1))
    return;
  const std::string Kernel = torchtidy::kernelName(Site.Launch);
  const bool Null =
      Site.Stream == torchtidy::KernelLaunchSite::StreamUse::NullConstant;
  {
    const DiagnosticBuilder D =
        diag(Loc,
             "kernel launch%select{| of '%1'}0 %select{has no stream argument|"
             "passes a default stream}2: it runs on the legacy default stream, "
             "not on LibTorch's current stream, so it is not ordered with "
             "LibTorch's work on another stream (torch.cuda.stream, "
             "CUDAStreamGuard, DataParallel) and races with it; pass "
             "at::cuda::getCurrentCUDAStream() as the fourth launch argument")
        << !Kernel.empty() << Kernel << Null;
    const CallExpr *Config = Site.Launch->getConfig();
    const std::string CurrentStream =
        (CurrentStreamScope + "::" + currentStreamName() + "()").str();
    bool Fixed = false;
    if (!Config) {
      // No configuration to fix.
    } else if (Null && Config->getNumArgs() >= 4) {
      const CharSourceRange Range = fileRange(Config->getArg(3), *Context);
      if (Range.isValid()) {
        D << FixItHint::CreateReplacement(Range, CurrentStream);
        Fixed = true;
      }
    } else if (!Null &&
               (Site.WrittenConfigArgs == 2 || Site.WrittenConfigArgs == 3)) {
      const SourceLocation Close = writtenLoc(Config->getRParenLoc());
      if (Close.isFileID()) {
        D << FixItHint::CreateInsertion(Close, (Site.WrittenConfigArgs == 2
                                                    ? std::string(", 0, ")
                                                    : std::string(", ")) +
                                                   CurrentStream);
        Fixed = true;
      }
    }
    if (Fixed && !declaresCurrentStream(*Context))
      D << Inserter.createIncludeInsertion(SM.getFileID(Loc),
                                           CurrentStreamHeader);
  }
  if (OtherStreams)
    diag(OtherStreams->Loc.isValid() ? OtherStreams->Loc : Loc,
         "LibTorch may run on another stream when this file's kernels run: %0",
         DiagnosticIDs::Note)
        << OtherStreams->What;
}

void UncheckedKernelLaunchCheck::reportArgument(
    const torchtidy::KernelArgIssue &I) {
  const SourceLocation Loc = writtenLoc(I.RawView->getBeginLoc());
  // One diagnostic per view and property.
  if (!firstReport(Loc, 2U + I.P))
    return;
  const std::string View = quotedOrSpelledText(I.RawView, *Context);
  const std::string Tensor = quotedOrSpelledText(I.Tensor, *Context);
  std::string Target;
  if (I.Launcher)
    Target = "'" + I.Launcher->getNameAsString() +
             "', which launches a kernel with it";
  else if (const auto *L = dyn_cast<CUDAKernelCallExpr>(I.Sink))
    Target = "kernel '" + torchtidy::kernelName(L) + "'";
  else
    Target = "a kernel";
  switch (I.P) {
  case torchtidy::KernelArgIssue::NotOnCuda:
    if (I.Evidence)
      diag(Loc, "'%0' passes the storage of '%1' to %2, but '%1' is a CPU "
                "tensor: the kernel dereferences a host pointer on the GPU "
                "(an illegal memory access); create it with the options of "
                "the kernel's other inputs or move it with .cuda()")
          << View << Tensor << Target;
    else
      diag(Loc, "'%0' passes the storage of '%1' to %2, and nothing before "
                "proves that '%1' is on CUDA: a CPU tensor's pointer is an "
                "illegal memory access in the kernel; check it with "
                "TORCH_CHECK(%1.is_cuda()) or TORCHTIDY_CHECK_KERNEL_ARG")
          << View << Tensor << Target;
    break;
  case torchtidy::KernelArgIssue::NotContiguous:
    if (I.Evidence)
      diag(Loc, "'%0' passes the storage of '%1' to %2 as a raw pointer, but "
                "'%1' is not contiguous: the kernel reads it as a dense array "
                "and gets the wrong elements; take the pointer of a "
                "contiguous() copy kept in a named tensor, or pass a packed "
                "accessor")
          << View << Tensor << Target;
    else
      diag(Loc, "'%0' passes the storage of '%1' to %2 as a raw pointer, and "
                "nothing before proves that '%1' is contiguous: the kernel "
                "would read the wrong elements of a strided tensor; check it "
                "with TORCH_CHECK(%1.is_contiguous()) or take the pointer of "
                "a contiguous() copy")
          << View << Tensor << Target;
    break;
  case torchtidy::KernelArgIssue::WrongDtype:
    if (I.DispatchOn)
      diag(Loc, "'%0' %select{asks for|reads the storage of '%1' as}4 "
                "elements of the type that the dispatch on '%2' picks, but "
                "'%1' holds %3 values: whenever '%2' is not %3 it "
                "%select{throws 'expected scalar type' before the "
                "launch|passes the kernel bytes of another type}4; make '%1' "
                "with the options of '%2', or check that '%2' is %3")
          << View << Tensor << quotedOrSpelledText(I.DispatchOn, *Context)
          << I.Detail << (I.TypedView ? 0 : 1);
    else if (!I.Evidence)
      diag(Loc, "'%0' reinterprets the storage of '%1' as '%2' for %3, and "
                "nothing before proves that '%1' holds that type: check its "
                "scalar_type() or use data_ptr<%2>(), which does")
          << View << Tensor << I.Pointee << Target;
    else if (I.TypedView)
      diag(Loc, "'%0' asks for '%2' elements of '%1', which holds %3 values: "
                "it throws 'expected scalar type' before the launch; make "
                "'%1' with the kernel's dtype or convert it with .to()")
          << View << Tensor << I.Pointee << I.Detail;
    else
      diag(Loc, "'%0' passes the storage of '%1', which holds %3 values, to "
                "%4 as '%2' elements: the kernel reinterprets their bytes "
                "(and reads past the buffer when '%2' is wider); make '%1' "
                "with the kernel's dtype or convert it with .to()")
          << View << Tensor << I.Pointee << I.Detail << Target;
    break;
  }
  if (I.Evidence && I.At) {
    const SourceLocation At = writtenLoc(I.At->getBeginLoc());
    const std::string Name = I.Var ? I.Var->getNameAsString() : Tensor;
    switch (I.P) {
    case torchtidy::KernelArgIssue::NotOnCuda:
      diag(At,
           "'%0' is %select{made on the CPU here|made here with no "
           "device, so on the CPU|moved to the CPU here}1",
           DiagnosticIDs::Note)
          << Name
          << (I.Detail == "given no device"    ? 1
              : I.Detail == "moved to the CPU" ? 2
                                               : 0);
      break;
    case torchtidy::KernelArgIssue::NotContiguous:
      diag(At, "'%0' is a strided view made here", DiagnosticIDs::Note) << Name;
      break;
    case torchtidy::KernelArgIssue::WrongDtype:
      diag(At, "'%0' gets dtype %1 here", DiagnosticIDs::Note)
          << Name << I.Detail;
      break;
    }
  }
  if (I.Launcher && I.LauncherLaunch)
    diag(writtenLoc(I.LauncherLaunch->getBeginLoc()),
         "'%0' launches the kernel here", DiagnosticIDs::Note)
        << I.Launcher->getName();
  else if (I.Launcher && I.LauncherSummary)
    // Defined in another file: where its project summary says it launches.
    for (const torchtidy::FunctionSummary::LaunchedParam &L :
         I.LauncherSummary->LaunchedParams)
      if (L.Param == I.LauncherParam) {
        notePlace(L.Launch.At,
                  "'" + I.LauncherSummary->Name + "' passes it to " +
                      L.Launch.What + " here (the project's summary of '" +
                      I.LauncherSummary->Name + "')",
                  Loc, Context->getSourceManager());
        break;
      }
}

} // namespace clang::tidy::libtorch
