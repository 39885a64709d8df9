//===--- UnregisteredMemberCheckBase.cpp - torch-tidy ---------------------===//

#include "UnregisteredMemberCheckBase.h"
#include "SourceText.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang::ast_matchers;

namespace clang::tidy::libtorch {
namespace {
// The cheapest tests first: the torch headers define thousands of classes,
// and every one of them passes through this matcher.
AST_MATCHER(CXXRecordDecl, isUserClassWithBases) {
  if (!Node.isThisDeclarationADefinition() || Node.isImplicit() ||
      Node.getNumBases() == 0)
    return false;
  return torchtidy::isUserDecl(&Node);
}
// A method defined outside its class, in user code: in torch-clangd only the
// main file's declarations are traversed, and a module declared in a header
// is reached through its constructors and reset() in the .cpp.
AST_MATCHER(CXXMethodDecl, isUserOutOfLineDefinition) {
  return Node.isThisDeclarationADefinition() && Node.isOutOfLine() &&
         !Node.isImplicit() && torchtidy::isUserDecl(&Node);
}
} // namespace

UnregisteredMemberCheckBase::UnregisteredMemberCheckBase(
    StringRef Name, ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      IgnoredMembers(Options.get("IgnoredMembers", "")) {
  if (!IgnoredMembers.empty()) {
    llvm::Regex R("^(" + IgnoredMembers + ")$");
    std::string Error;
    if (R.isValid(Error))
      IgnoredMembersRegex.emplace(std::move(R));
    else
      configurationDiag("invalid regular expression in %0.IgnoredMembers "
                        "'%1': %2; the option is ignored")
          << Name << IgnoredMembers << Error;
  }
}

void UnregisteredMemberCheckBase::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IgnoredMembers", IgnoredMembers);
}

void UnregisteredMemberCheckBase::registerMatchers(MatchFinder *Finder) {
  // A module class derives from something, and is defined in user code.
  Finder->addMatcher(cxxRecordDecl(isUserClassWithBases()).bind("record"),
                     this);
  Finder->addMatcher(cxxMethodDecl(isUserOutOfLineDefinition()).bind("method"),
                     this);
}

void UnregisteredMemberCheckBase::check(
    const MatchFinder::MatchResult &Result) {
  const auto *RD = Result.Nodes.getNodeAs<CXXRecordDecl>("record");
  if (const auto *MD = Result.Nodes.getNodeAs<CXXMethodDecl>("method")) {
    RD = MD->getParent();
    if (!RD || !RD->isThisDeclarationADefinition() || RD->getNumBases() == 0)
      RD = RD ? RD->getDefinition() : nullptr;
  }
  if (!RD || RD->isLambda() || RD->isUnion() || RD->isInvalidDecl() ||
      RD->getNumBases() == 0)
    return;
  // Reached from the class and from its out-of-line methods: once.
  if (!AnalysedClasses.insert(RD).second)
    return;
  // A class template is analysed once, as written; its instantiations
  // would repeat the same findings.
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    if (!isa<ClassTemplatePartialSpecializationDecl>(Spec) &&
        Spec->getSpecializationKind() != TSK_ExplicitSpecialization)
      return;
  // Code that does not compile may have lost the very call that registers
  // a member; say nothing rather than guess.
  if (Result.Context->getDiagnostics().hasUncompilableErrorOccurred())
    return;
  if (!torchtidy::isModuleClass(RD))
    return;
  Context = Result.Context;

  // Building code of another file is read from the project's summaries.
  const torchtidy::ModuleRegistration &Registration =
      torchtidy::registrationOf(RD, /*FollowSummaries=*/true);
  const bool Complete = Registration.complete();
  for (const auto &[Field, Facts] : Registration.members()) {
    if (Facts.Registered) {
      RegisteredSomewhere.insert(Field);
      // Registered, then replaced by a new value in the same building code.
      if (Field->getParent() == RD && isOwnKind(Facts))
        if (const torchtidy::ReplacedRegistration Replaced =
                torchtidy::replacedAfterRegistration(Facts, *Result.Context))
          if (!(IgnoredMembersRegex && Field->getIdentifier() &&
                IgnoredMembersRegex->match(Field->getName())))
            reportReplaced(Field, RD, Facts, Replaced);
      continue;
    }
    if (!Complete || Field->getParent() != RD || !isReportable(Facts))
      continue;
    if (IgnoredMembersRegex && Field->getIdentifier() &&
        IgnoredMembersRegex->match(Field->getName()))
      continue;
    // Building code of another file: the finding goes to the file that can
    // show it.
    if (!Facts.BuiltElsewhere.empty() && !reportedHere(Field, RD, Facts))
      continue;
    Candidates.push_back({Field, RD, Facts});
  }
}

void UnregisteredMemberCheckBase::onEndOfTranslationUnit() {
  for (const Candidate &C : Candidates) {
    if (RegisteredSomewhere.count(C.Field))
      continue;
    // One count of the unit's member reads, shared by both registration
    // checks.
    if (Context && harmlessByUse(C.Field, C.Facts,
                                 torchtidy::FunctionContexts::of(*Context)
                                     .analysis<torchtidy::MemberUses>()))
      continue;
    report(C.Field, C.Owner, C.Facts);
  }
  Context = nullptr;
  Candidates.clear();
  RegisteredSomewhere.clear();
  AnalysedClasses.clear();
}

const torchtidy::MemberWrite *UnregisteredMemberCheckBase::rewritableWrite(
    const torchtidy::MemberFacts &Facts) {
  if (Facts.Class.InContainer || Facts.Class.ByValue)
    return nullptr;
  const torchtidy::MemberWrite *Only = nullptr;
  for (const torchtidy::MemberWrite &W : Facts.Writes) {
    if (W.IsNull)
      continue;
    if (Only)
      return nullptr;
    Only = &W;
  }
  if (!Only || !Only->IsTopLevelAssignment || !Only->Value)
    return nullptr;
  return Only;
}

void UnregisteredMemberCheckBase::addRegistrationFix(
    DiagnosticBuilder &Diag, const FieldDecl *Field, const CXXRecordDecl *Owner,
    const torchtidy::MemberWrite &W, StringRef Registrar) {
  // Only rewrite what is spelled in the file, not inside a macro.
  const CharSourceRange Range = writtenRange(W.Value, Field->getASTContext());
  if (Range.isInvalid())
    return;
  const StringRef Name = Field->getName();
  StringRef Key = Name.rtrim('_');
  if (Key.empty())
    Key = Name;
  // In a class template with a dependent base, the inherited member needs
  // `this->` to be found.
  const std::string Prefix = Owner->isDependentContext() ? "this->" : "";
  Diag << FixItHint::CreateInsertion(
              Range.getBegin(),
              (Prefix + Registrar + "(\"" + Key + "\", ").str())
       << FixItHint::CreateInsertion(Range.getEnd(), ")");
}

/// The string literal a registration's name is made from (`"rms"` converted
/// to std::string), else null.
static const StringLiteral *literalName(const Expr *E) {
  return dyn_cast_or_null<StringLiteral>(
      torchtidy::peel::peel(E, torchtidy::peel::FromLiteral));
}

void UnregisteredMemberCheckBase::reportReplaced(
    const FieldDecl *Field, const CXXRecordDecl *Owner,
    const torchtidy::MemberFacts &Facts,
    const torchtidy::ReplacedRegistration &Replaced) {
  const bool Module = Facts.Class.K == torchtidy::MemberClass::Submodule;
  const torchtidy::MemberWrite &W = *Replaced.Write;
  {
    auto Diag =
        diag(W.Site->getBeginLoc(),
             "%select{tensor member|submodule}0 %1 of module %2 is registered, "
             "then replaced here by %select{a tensor|a module}0 that is not: "
             "%select{buffers()|children(), parameters()}0, "
             "module->to(device) and torch::save reach the registered one, "
             "and the member holds another; %select{write into it in place "
             "(copy_)%select{ or register the new one|}3|register the new one "
             "with replace_module()}0")
        << Module << Field << Owner << Replaced.OutsideBuilding;
    // `rms = X;` -> `rms = replace_module("rms", X);`.
    if (Module && W.IsTopLevelAssignment && Replaced.Registration &&
        Replaced.Registration->getNumArgs() >= 1)
      if (const StringLiteral *Name =
              literalName(Replaced.Registration->getArg(0)))
        addReplaceFix(Diag, W, Name->getString(), Owner);
  }
  diag(Replaced.Registration->getBeginLoc(), "%0 is registered here",
       DiagnosticIDs::Note)
      << Field;
}

void UnregisteredMemberCheckBase::addReplaceFix(DiagnosticBuilder &Diag,
                                                const torchtidy::MemberWrite &W,
                                                StringRef Name,
                                                const CXXRecordDecl *Owner) {
  const CharSourceRange Range = writtenRange(W.Value, Owner->getASTContext());
  if (Range.isInvalid())
    return;
  const std::string Prefix = Owner->isDependentContext() ? "this->" : "";
  Diag << FixItHint::CreateInsertion(
              Range.getBegin(),
              (Prefix +
               torchtidy::opName(torchtidy::op::Named::replace_module) + "(\"" +
               Name + "\", ")
                  .str())
       << FixItHint::CreateInsertion(Range.getEnd(), ")");
}

SourceLocation UnregisteredMemberCheckBase::reportLocation(
    const FieldDecl *Field, const torchtidy::MemberFacts &Facts) {
  const SourceManager &SM = Field->getASTContext().getSourceManager();
  if (torchtidy::isInMainFileExpansion(Field->getLocation(), SM))
    return Field->getLocation();
  for (const torchtidy::MemberWrite &W : Facts.Writes)
    if (!W.IsNull && W.Site &&
        torchtidy::isInMainFileExpansion(W.Site->getBeginLoc(), SM))
      return W.Site->getBeginLoc();
  return Field->getLocation();
}

bool UnregisteredMemberCheckBase::reportedHere(
    const FieldDecl *Field, const CXXRecordDecl *Owner,
    const torchtidy::MemberFacts &Facts) {
  const SourceManager &SM = Field->getASTContext().getSourceManager();
  if (torchtidy::isInMainFileExpansion(reportLocation(Field, Facts), SM))
    return true;
  // The file with a write of it reports it there.
  for (const torchtidy::MemberWrite &W : Facts.Writes)
    if (!W.IsNull)
      return false;
  // Written nowhere: the file that defines a constructor.
  return llvm::any_of(Owner->ctors(), [&](const CXXConstructorDecl *Ctor) {
    const FunctionDecl *Def = nullptr;
    return Ctor->hasBody(Def) &&
           torchtidy::isInMainFileExpansion(Def->getLocation(), SM);
  });
}

void UnregisteredMemberCheckBase::noteWrites(
    const FieldDecl *Field, const torchtidy::MemberFacts &Facts,
    SourceLocation ReportedAt) {
  if (ReportedAt != Field->getLocation())
    diag(Field->getLocation(), "%0 is declared here", DiagnosticIDs::Note)
        << Field;
  SourceManager &SM = Field->getASTContext().getSourceManager();
  for (const torchtidy::MemberWrite &W : Facts.Writes) {
    if (W.IsNull)
      continue;
    const std::string How =
        (torchtidy::memberWriteWords(W.How) + " here").str();
    if (W.Elsewhere && W.Function) {
      const std::string Text =
          llvm::formatv("'{0}' is {1}, without registration (the project's "
                        "summary of '{2}')",
                        Field->getName(), How,
                        W.Function->getQualifiedNameAsString())
              .str();
      notePlace(*this, *W.Elsewhere, Text, ReportedAt, SM);
      continue;
    }
    if (!W.Site || W.Site->getBeginLoc() == ReportedAt)
      continue;
    diag(W.Site->getBeginLoc(), "%0 is %1, without registration",
         DiagnosticIDs::Note)
        << Field << How;
  }
  // The building functions of other files, which do not register it.
  for (const auto &[Name, Defined] : Facts.BuiltElsewhere)
    notePlace(*this, Defined,
              llvm::formatv("'{0}' builds the module here, in another file, "
                            "and does not register '{1}' (the project's "
                            "summary of '{0}')",
                            Name, Field->getName())
                  .str(),
              ReportedAt, SM);
}

} // namespace clang::tidy::libtorch
