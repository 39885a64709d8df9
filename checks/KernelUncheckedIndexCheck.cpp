//===--- KernelUncheckedIndexCheck.cpp - torch-tidy -----------------------===//

#include "KernelUncheckedIndexCheck.h"
#include "SourceText.h"
#include "torchtidy/analysis/TorchOps.h"

#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroArgs.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"

#include "utils/OptionsUtils.h"

using torchtidy::UncheckedIndexLoad;

namespace clang::tidy::libtorch {

namespace {

/// Records each invocation of a configured assert macro with the
/// identifiers of its arguments: a macro that expands to nothing in some
/// builds leaves no comparison in the AST.
class AssertMacroRecorder : public PPCallbacks {
public:
  AssertMacroRecorder(const SourceManager &SM, KernelUncheckedIndexCheck &Check)
      : SM(SM), Check(Check) {}

  void MacroExpands(const Token &Name, const MacroDefinition &, SourceRange,
                    const MacroArgs *Args) override {
    const IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II || !Args ||
        !llvm::is_contained(Check.Config.AssertMacros, II->getName().str()))
      return;
    torchtidy::AssertMacroUse Use;
    Use.Loc = SM.getFileLoc(Name.getLocation());
    for (unsigned A = 0; A < Args->getNumMacroArguments(); ++A)
      for (const Token *T = Args->getUnexpArgument(A); T->isNot(tok::eof); ++T)
        if (const IdentifierInfo *Id = T->getIdentifierInfo())
          Use.Names.push_back(Id->getName().str());
        else if (T->is(tok::numeric_constant))
          Use.Names.emplace_back("#"); // a constant bound
    Check.Asserts.push_back(std::move(Use));
  }

private:
  const SourceManager &SM;
  KernelUncheckedIndexCheck &Check;
};

} // namespace

KernelUncheckedIndexCheck::KernelUncheckedIndexCheck(StringRef Name,
                                                     ClangTidyContext *Context)
    : UserCodeCheck(Name, Context),
      AssertMacros(Options.get(
          "AssertMacros",
          llvm::join(torchtidy::macrosWith(torchtidy::op::AssertsCondition),
                     ";"))) {
  Config.AssertMacros.clear();
  for (const StringRef M : utils::options::parseStringList(AssertMacros))
    Config.AssertMacros.push_back(M.str());
  Config.HostLoops = Options.get("HostLoops", true);
}

void KernelUncheckedIndexCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "AssertMacros", AssertMacros);
  Options.store(Opts, "HostLoops", Config.HostLoops);
}

void KernelUncheckedIndexCheck::registerPPCallbacks(const SourceManager &SM,
                                                    Preprocessor *PP,
                                                    Preprocessor *) {
  PP->addPPCallbacks(std::make_unique<AssertMacroRecorder>(SM, *this));
}

void KernelUncheckedIndexCheck::checkTranslationUnit(ASTContext &Ctx) {
  for (const UncheckedIndexLoad &U :
       torchtidy::findUncheckedIndexLoads(Ctx, Config, Asserts))
    report(U, Ctx);
}

void KernelUncheckedIndexCheck::report(const UncheckedIndexLoad &U,
                                       ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const SourceLocation Loc = SM.getFileLoc(U.Access->getBeginLoc());
  if (!firstReport(Loc))
    return;
  const std::string Source =
      U.Source ? U.Source->getNameAsString() : std::string("an index array");
  const std::string Value = U.Holder ? "'" + U.Holder->getNameAsString() + "'"
                                     : "'" + quotedText(U.Load, Ctx) + "'";
  const char *Where = U.Device ? "in a kernel" : "in a loop over raw storage";
  {
    auto D =
        diag(Loc,
             "'%0' indexes '%1' with %2, a value read from '%3', and "
             "nothing bounds it %4: one index out of range reads or writes "
             "outside the array (on CUDA: an illegal memory access); "
             "compare it with the array's size first (CUDA_KERNEL_ASSERT, "
             "or TORCH_CHECK on the index tensor before the launch)")
        << quotedText(U.Access, Ctx) << quotedText(U.Array, Ctx) << Value
        << Source << Where;
    // A fix-it where the bound is known: an array the code declares, indexed
    // by a named value.
    if (U.Holder && U.ArrayExtent > 0 && U.Device && U.Statement &&
        U.Statement->getBeginLoc().isFileID()) {
      const std::string Name = U.Holder->getNameAsString();
      const StringRef Indent =
          Lexer::getIndentationForLine(U.Statement->getBeginLoc(), SM);
      D << FixItHint::CreateInsertion(
          U.Statement->getBeginLoc(),
          (torchtidy::firstMacroWith(torchtidy::op::WrittenInKernel)->Name +
           "(" + Name + " >= 0 && " + Name + " < " +
           std::to_string(U.ArrayExtent) + ");\n" + Indent)
              .str());
    }
  }
  diag(SM.getFileLoc(U.Load->getBeginLoc()),
       "the index value is read here from '%0'%1", DiagnosticIDs::Note)
      << Source
      << (!U.Device || !U.Source || !isa<ParmVarDecl>(U.Source) ? ""
          : U.Source->getType()->isPointerType()
              ? ", a pointer parameter of the kernel"
              : ", a parameter of the kernel that holds a pointer to them");
  if (U.LaunchArgument)
    diag(SM.getFileLoc(U.LaunchArgument->getBeginLoc()),
         "the %select{call|launch}1 passes '%0' for it", DiagnosticIDs::Note)
        << quotedText(U.LaunchArgument, Ctx) << U.Device;
}

} // namespace clang::tidy::libtorch
