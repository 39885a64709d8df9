//===--- Registration.cpp - Which module members are registered -----------===//

#include "torchtidy/analysis/Registration.h"
#include "RegistrationImpl.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

using namespace clang;
using torchtidy::registration::countReads;
using torchtidy::registration::fieldBehind;
using torchtidy::registration::isContainerMutator;
using torchtidy::registration::isNullValue;
using torchtidy::registration::stripValue;
using torchtidy::registration::thisField;

namespace torchtidy {

namespace {

/// Walks the building code of one module class and records facts.
class BuildingCodeWalker : public RecursiveASTVisitor<BuildingCodeWalker> {
public:
  BuildingCodeWalker(const CXXRecordDecl *RD,
                     llvm::MapVector<const FieldDecl *, MemberFacts> &Members)
      : RD(RD), Members(Members) {}

  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  /// Walks \p FD (a constructor, reset() or a member function they call).
  void walk(const FunctionDecl *FD) {
    if (!Queued.insert(FD).second)
      return;
    Worklist.push_back(FD);
  }

  /// Runs the walk; false when some building code is not in this TU
  /// (missing() says which).
  bool run(llvm::SmallVectorImpl<const FunctionDecl *> &Walked) {
    while (!Worklist.empty()) {
      const FunctionDecl *FD = Worklist.front();
      Worklist.erase(Worklist.begin());
      Walked.push_back(FD);
      Current = FD;
      markPlainAssignments(FD);
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          visitInitializer(Init);
      if (Stmt *Body = FD->getBody())
        TraverseStmt(Body);
    }
    Current = nullptr;
    resolveAliases();
    return Missing.empty();
  }

  /// The member functions called from building code that have no body in
  /// this TU, in the order met.
  llvm::ArrayRef<const FunctionDecl *> missing() const { return Missing; }

  void visitDefaultMemberInitializer(const FieldDecl *FD) {
    const Expr *Init = FD->getInClassInitializer();
    if (!Init)
      return;
    Current = nullptr;
    noteWrite(FD, MemberWrite::DefaultMemberInit, Init, Init, /*Plain=*/false);
    storeValue(FD, Init, Init);
    TraverseStmt(const_cast<Expr *>(Init));
  }

  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    // `for (auto &layer : layers_) register_module(name, layer);`
    if (const FieldDecl *FD = fieldBehind(S->getRangeInit()))
      if (const VarDecl *LoopVar = S->getLoopVariable())
        LoopVars[LoopVar] = FD;
    return RecursiveASTVisitor::TraverseCXXForRangeStmt(S);
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (isRegistrationCall(Call)) {
      visitRegistration(Call);
      return true;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
        visitAssignment(Op, Op->getArg(0), Op->getArg(1));
      return true;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
      visitMemberCall(MC);
      return true;
    }
    if (const auto *DM = dyn_cast<CXXDependentScopeMemberExpr>(
            peel::peel(Call->getCallee(), peel::ParenImpCasts)))
      if (DM->isImplicitAccess() ||
          isa<CXXThisExpr>(peel::peel(DM->getBase(), peel::ParenImpCasts)))
        followByName(DM->getMember());
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() == BO_Assign)
      visitAssignment(BO, BO->getLHS(), BO->getRHS());
    return true;
  }

  /// `auto b = register_module(name, Block(...));`: b holds a registered
  /// module, and a member it is stored into is registered.
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->getInit() && isRegistrationExpr(VD->getInit()))
      RegisteredVars.insert(VD);
    return true;
  }

private:
  MemberFacts *factsFor(const FieldDecl *FD, bool Create) {
    auto *It = Members.find(FD);
    if (It != Members.end())
      return &It->second;
    if (!Create)
      return nullptr;
    const MemberClass C = classifyMemberType(FD->getType());
    if (C.K == MemberClass::None)
      return nullptr;
    MemberFacts &F = Members[FD];
    F.Class = C;
    return &F;
  }

  void markRegistered(const FieldDecl *FD, const Expr *At) {
    if (MemberFacts *F = factsFor(FD, /*Create=*/true))
      if (!F->Registered) {
        F->Registered = true;
        F->RegisteredAt = At;
      }
  }

  void noteWrite(const FieldDecl *FD, MemberWrite::Kind How, const Expr *Site,
                 const Expr *Value, bool Plain) {
    // Writes are tracked for this class's own members; members of bases
    // only matter if registered here.
    if (FD->getParent() != RD)
      return;
    MemberFacts *F = factsFor(FD, /*Create=*/false);
    if (!F)
      return;
    MemberWrite W;
    W.How = How;
    W.Site = Site;
    W.Value = Value;
    W.Function = Current;
    W.IsTopLevelAssignment = Plain;
    W.IsNull = Value && isNullValue(Value);
    F->Writes.push_back(W);
  }

  /// A value stored into member FD: registered, aliased, or neither.
  void storeValue(const FieldDecl *FD, const Expr *Value, const Expr *Site) {
    if (!Value)
      return;
    if (isRegistrationExpr(Value)) {
      markRegistered(FD, Site);
      return;
    }
    if (const VarDecl *V = peel::referencedVar(stripValue(Value)))
      Aliases.push_back({FD, V, Site});
  }

  void visitRegistration(const CallExpr *Call) {
    if (Call->getNumArgs() < 2)
      return;
    const Expr *Arg = Call->getArg(1);
    if (const FieldDecl *FD = fieldBehind(Arg)) {
      markRegistered(FD, Call);
      return;
    }
    if (const VarDecl *V = peel::referencedVar(stripValue(Arg))) {
      RegisteredVars.insert(V);
      auto It = LoopVars.find(V);
      if (It != LoopVars.end())
        markRegistered(It->second, Call);
    }
  }

  void visitAssignment(const Expr *Site, const Expr *LHS, const Expr *RHS) {
    if (const FieldDecl *FD = thisField(LHS)) {
      noteWrite(FD, MemberWrite::Assignment, Site, RHS,
                PlainAssignments.count(Site));
      storeValue(FD, RHS, Site);
      return;
    }
    // `layers_[i] = register_module(...)`.
    if (const FieldDecl *FD = fieldBehind(LHS)) {
      MemberFacts *F = factsFor(FD, /*Create=*/false);
      if (F && F->Class.InContainer) {
        noteWrite(FD, MemberWrite::Assignment, Site, nullptr, false);
        storeValue(FD, RHS, Site);
      }
    }
  }

  void visitMemberCall(const CXXMemberCallExpr *MC) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    const Expr *Object = MC->getImplicitObjectArgument();
    if (!MD || !Object)
      return;
    if (isa<CXXThisExpr>(peel::peel(Object, peel::ParenImpCasts))) {
      follow(MD);
      return;
    }
    const FieldDecl *FD = thisField(Object);
    if (!FD || !isContainerMutator(MD))
      return;
    MemberFacts *F = factsFor(FD, /*Create=*/false);
    if (!F || !F->Class.InContainer)
      return;
    noteWrite(FD, MemberWrite::ContainerFill, MC, nullptr, false);
    for (const Expr *Arg : MC->arguments())
      storeValue(FD, Arg, MC);
  }

  void visitInitializer(const CXXCtorInitializer *Init) {
    if (!Init->isMemberInitializer() || !Init->isWritten())
      return;
    const FieldDecl *FD = Init->getMember();
    const Expr *Value = Init->getInit();
    noteWrite(FD, MemberWrite::ConstructorInit, Value, Value, false);
    storeValue(FD, Value, Value);
    TraverseStmt(const_cast<Expr *>(Value));
  }

  /// A member function of this class (or a user base) called from building
  /// code is building code too.
  void follow(const CXXMethodDecl *MD) {
    const CXXRecordDecl *Parent = MD->getParent();
    if (!Parent || isModuleBaseClass(Parent))
      return;
    if (Parent != RD && !RD->isDerivedFrom(Parent))
      return;
    if (MD->isPureVirtual())
      return;
    const FunctionDecl *Def = nullptr;
    if (!MD->hasBody(Def)) {
      if (!MD->isDefaulted() && !MD->isDeleted() &&
          !llvm::is_contained(Missing, MD))
        Missing.push_back(MD);
      return;
    }
    walk(Def);
  }

  void followByName(DeclarationName Name) {
    for (const NamedDecl *ND : RD->lookup(Name))
      if (const auto *MD = dyn_cast<CXXMethodDecl>(ND->getUnderlyingDecl()))
        follow(MD);
      else if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(ND))
        if (const auto *TMD = dyn_cast<CXXMethodDecl>(FTD->getTemplatedDecl()))
          follow(TMD);
  }

  void markPlainAssignments(const FunctionDecl *FD) {
    const auto *MD = dyn_cast<CXXMethodDecl>(FD);
    if (!MD || (!isa<CXXConstructorDecl>(MD) &&
                !(hasOpName(MD, op::Named::reset) && MD->getParent() == RD)))
      return;
    const auto *Body = dyn_cast_or_null<CompoundStmt>(FD->getBody());
    if (!Body)
      return;
    for (const Stmt *S : Body->body()) {
      const auto *E = dyn_cast<Expr>(S);
      if (!E)
        continue;
      E = peel::peel(E, peel::FullExprs | peel::Parens);
      if (isa<BinaryOperator>(E) || isa<CXXOperatorCallExpr>(E))
        PlainAssignments.insert(E);
    }
  }

  void resolveAliases() {
    // `rnn = layer; register_module("rnn", layer);` share one Impl (and
    // `mask_ = t; register_buffer("mask", t);` one TensorImpl).
    for (const auto &[FD, V, Site] : Aliases)
      if (RegisteredVars.count(V))
        markRegistered(FD, Site);
  }

  const CXXRecordDecl *RD;
  llvm::MapVector<const FieldDecl *, MemberFacts> &Members;
  llvm::SmallVector<const FunctionDecl *, 8> Worklist;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Queued;
  const FunctionDecl *Current = nullptr;
  llvm::DenseSet<const Expr *> PlainAssignments;
  llvm::DenseMap<const VarDecl *, const FieldDecl *> LoopVars;
  llvm::DenseSet<const VarDecl *> RegisteredVars;
  struct Alias {
    const FieldDecl *Field;
    const VarDecl *Var;
    const Expr *Site;
  };
  llvm::SmallVector<Alias, 4> Aliases;
  llvm::SmallVector<const FunctionDecl *, 2> Missing;
};

/// Assignments of registered members in a member function that is not
/// building code.
class LaterWriteWalker : public RecursiveASTVisitor<LaterWriteWalker> {
public:
  LaterWriteWalker(llvm::MapVector<const FieldDecl *, MemberFacts> &Members,
                   const FunctionDecl *FD)
      : Members(Members), FD(FD) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() == BO_Assign)
      note(BO, BO->getLHS(), BO->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *Op) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      note(Op, Op->getArg(0), Op->getArg(1));
    return true;
  }

private:
  void note(const Expr *Site, const Expr *LHS, const Expr *RHS) {
    const FieldDecl *Field = thisField(LHS);
    auto *It = Field ? Members.find(Field) : Members.end();
    if (It == Members.end() || !It->second.Registered ||
        It->second.Class.InContainer)
      return;
    // `m = m.to(x.device())` keeps the registered values.
    if (thisField(peel::peel(RHS, peel::Converted | peel::CopiesAndMoves |
                                      peel::ValuePreservingMethods)) == Field)
      return;
    MemberWrite W;
    W.How = MemberWrite::Assignment;
    W.Site = Site;
    W.Value = RHS;
    W.Function = FD;
    W.IsNull = isNullValue(RHS);
    It->second.LaterWrites.push_back(W);
  }

  llvm::MapVector<const FieldDecl *, MemberFacts> &Members;
  const FunctionDecl *FD;
};

} // namespace

/// The tensor and submodule members of \p RD, in declaration order.
static void
classifyMembers(const CXXRecordDecl *RD,
                llvm::MapVector<const FieldDecl *, MemberFacts> &Members) {
  for (const FieldDecl *FD : RD->fields()) {
    const MemberClass C = classifyMemberType(FD->getType());
    if (C.K == MemberClass::None)
      continue;
    Members[FD].Class = C;
  }
}

/// The kind of a write as memberWriteWords says it.
static MemberWrite::Kind writeKindOf(llvm::StringRef Words) {
  if (Words == memberWriteWords(MemberWrite::ConstructorInit))
    return MemberWrite::ConstructorInit;
  if (Words == memberWriteWords(MemberWrite::ContainerFill))
    return MemberWrite::ContainerFill;
  return MemberWrite::Assignment;
}

/// The data members of \p RD and of its bases, by USR.
static void fieldsByUSR(const CXXRecordDecl *RD, unsigned Depth,
                        llvm::StringMap<const FieldDecl *> &Out) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD || Depth > limits::HierarchyDepth)
    return;
  for (const FieldDecl *FD : RD->fields()) {
    const std::string USR = usrOf(FD);
    if (!USR.empty())
      Out.try_emplace(USR, FD);
  }
  for (const CXXBaseSpecifier &B : RD->bases())
    fieldsByUSR(B.getType()->getAsCXXRecordDecl(), Depth + 1, Out);
}

/// A method of \p RD or of its bases whose USR is \p USR, else null.
static const CXXMethodDecl *methodByUSR(const CXXRecordDecl *RD,
                                        llvm::StringRef USR, unsigned Depth) {
  RD = RD ? RD->getDefinition() : nullptr;
  if (!RD || Depth > limits::HierarchyDepth)
    return nullptr;
  for (const CXXMethodDecl *MD : RD->methods())
    if (usrOf(MD) == USR)
      return MD;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (const CXXMethodDecl *MD =
            methodByUSR(B.getType()->getAsCXXRecordDecl(), USR, Depth + 1))
      return MD;
  return nullptr;
}

/// Whether this translation unit can report \p RD's members: its main file
/// holds the class or a member function of it. Only such a unit asks the
/// project's summaries about the class; every file that includes the
/// class's header would otherwise be analysed again for findings that the
/// files with the building code report.
static bool reportableHere(const CXXRecordDecl *RD) {
  const SourceManager &SM = RD->getASTContext().getSourceManager();
  auto InMainFile = [&](const Decl *D) {
    return isInMainFileExpansion(D->getLocation(), SM);
  };
  return InMainFile(RD) ||
         llvm::any_of(RD->methods(), [&](const CXXMethodDecl *MD) {
           const FunctionDecl *Def = nullptr;
           return MD->hasBody(Def) && InMainFile(Def);
         });
}

/// A method or constructor of another file, as its summary says what it
/// does to its class's members.
struct SummarisedMethod {
  const FunctionDecl *FD = nullptr;
  std::string Name; ///< qualified
  SourcePlace Defined;
  FunctionSummary::MemberEffectsFact Effects;
};

/// \p FD's summary, when \p FD is defined in another file of the project
/// and its summary has its member effects. Only those are kept: a whole
/// FunctionSummary, with its optional facts, in the loops below made
/// clang-tidy's optional-access model take 23.7 s of this file's 26 s lint.
static std::optional<SummarisedMethod>
summarisedMethod(const FunctionDecl *FD) {
  if (!isDeclaredElsewhere(FD))
    return std::nullopt;
  std::optional<FunctionSummary> S =
      ProjectSummaries::instance().lookup(FD, SummaryFact::MemberEffects);
  if (!S || !S->MemberEffects)
    return std::nullopt;
  return SummarisedMethod{FD, std::move(S->Name), std::move(S->Defined),
                          std::move(*S->MemberEffects)};
}

/// The reads of \p RD's members (\p Fields: fieldsByUSR's map of RD) in its
/// methods of other files, from their summaries (\p Read holds those
/// already read), added to \p Members; with \p Unknown, a method without
/// one makes every member's reads unknown.
static void readsElsewhere(
    const CXXRecordDecl *RD, const llvm::StringMap<const FieldDecl *> &Fields,
    llvm::ArrayRef<SummarisedMethod> Read,
    llvm::MapVector<const FieldDecl *, MemberFacts> &Members, bool Unknown) {
  for (const CXXMethodDecl *MD : RD->methods()) {
    if (MD->isStatic() || MD->isImplicit() || MD->isPureVirtual() ||
        MD->isDefaulted() || MD->isDeleted() || MD->hasBody() ||
        isa<CXXDestructorDecl>(MD))
      continue;
    const auto *Known = llvm::find_if(
        Read, [&](const SummarisedMethod &R) { return R.FD == MD; });
    std::optional<SummarisedMethod> Looked;
    if (Known == Read.end()) {
      Looked = summarisedMethod(MD);
      if (!Looked) {
        if (Unknown)
          for (auto &[Field, F] : Members)
            F.ReadsUnknown = true;
        continue;
      }
    }
    const SummarisedMethod &S = Looked ? *Looked : *Known;
    for (const FunctionSummary::MemberEffect &E : S.Effects.Members) {
      auto *It = Members.find(Fields.lookup(E.Member));
      if (It == Members.end())
        continue;
      It->second.ReadsElsewhere += E.Reads;
      It->second.MovedReadsElsewhere += E.MovedReads;
    }
  }
}

/// The summaries of the building functions \p Missing of \p RD, which
/// have no body here, and of the member functions they call that have none
/// either, into \p Read; those that have a body here are walked
/// (\p Walker). False when one of them has no summary (or too many are
/// needed).
static bool
summarisedBuilders(const CXXRecordDecl *RD, BuildingCodeWalker &Walker,
                   llvm::SmallVectorImpl<const FunctionDecl *> &Walked,
                   llvm::ArrayRef<const FunctionDecl *> Missing,
                   std::vector<SummarisedMethod> &Read) {
  llvm::SmallVector<const FunctionDecl *, 4> Queue(Missing.begin(),
                                                   Missing.end());
  llvm::SmallPtrSet<const FunctionDecl *, 4> Queued(Missing.begin(),
                                                    Missing.end());
  // Every question is asked, so that a second analysis has every answer.
  bool All = true;
  for (size_t Next = 0; Next < Queue.size(); ++Next) {
    if (Next >= limits::SummarisedBuilders)
      return false;
    std::optional<SummarisedMethod> S = summarisedMethod(Queue[Next]);
    if (!S) {
      All = false;
      continue;
    }
    for (const FunctionSummary::MemberEffectsFact::Call &C : S->Effects.Calls) {
      const CXXMethodDecl *Callee = methodByUSR(RD, C.USR, 0);
      const FunctionDecl *Def = nullptr;
      if (!Callee)
        All = false;
      else if (Callee->hasBody(Def))
        Walker.walk(Def);
      else if (Queued.insert(Callee).second)
        Queue.push_back(Callee);
    }
    Read.push_back(std::move(*S));
    if (!Walker.run(Walked))
      for (const FunctionDecl *M : Walker.missing())
        if (Queued.insert(M).second)
          Queue.push_back(M);
  }
  return All;
}

/// The building functions \p Missing of \p RD, which have no body here,
/// read from the project's summaries into \p Members: the members each
/// registers and writes (summarisedBuilders). False when one of them has
/// no summary (or too many are needed), or when this translation unit
/// cannot report the class (reportableHere).
static bool
readSummaries(const CXXRecordDecl *RD, BuildingCodeWalker &Walker,
              llvm::SmallVectorImpl<const FunctionDecl *> &Walked,
              llvm::ArrayRef<const FunctionDecl *> Missing,
              llvm::MapVector<const FieldDecl *, MemberFacts> &Members) {
  if (!reportableHere(RD))
    return false;
  std::vector<SummarisedMethod> Read;
  if (!summarisedBuilders(RD, Walker, Walked, Missing, Read))
    return false;
  llvm::StringMap<const FieldDecl *> Fields;
  fieldsByUSR(RD, 0, Fields);
  for (const SummarisedMethod &S : Read)
    for (const FunctionSummary::MemberEffect &E : S.Effects.Members) {
      const FieldDecl *Field = Fields.lookup(E.Member);
      if (!Field)
        continue;
      auto *It = Members.find(Field);
      if (It == Members.end()) {
        if (!E.Registered)
          continue;
        const MemberClass C = classifyMemberType(Field->getType());
        if (C.K == MemberClass::None)
          continue;
        It = Members.insert({Field, MemberFacts{}}).first;
        It->second.Class = C;
      }
      MemberFacts &F = It->second;
      if (E.Registered && !F.Registered) {
        F.Registered = true;
        F.RegisteredElsewhere = *E.Registered;
      }
      // Writes are tracked for this class's own members.
      if (Field->getParent() != RD)
        continue;
      for (const FunctionSummary::MemberEffect::Write &W : E.Writes) {
        MemberWrite MW;
        MW.How = writeKindOf(W.How);
        MW.Function = S.FD;
        MW.IsNull = W.Null;
        MW.Elsewhere = W.At;
        F.Writes.push_back(std::move(MW));
      }
    }
  for (auto &[Field, F] : Members)
    for (const SummarisedMethod &S : Read)
      F.BuiltElsewhere.emplace_back(S.Name, S.Defined);
  readsElsewhere(RD, Fields, Read, Members, /*Unknown=*/true);
  return true;
}

bool ModuleRegistration::analyze(const CXXRecordDecl *RD,
                                 bool FollowSummaries) {
  Complete = walkBuildingCode(RD, FollowSummaries);
  return Complete;
}

bool ModuleRegistration::walkBuildingCode(const CXXRecordDecl *RD,
                                          bool FollowSummaries) {
  Members.clear();
  Walked.clear();
  if (!RD || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  classifyMembers(RD, Members);

  BuildingCodeWalker Walker(RD, Members);
  // Building functions without a body here.
  llvm::SmallVector<const FunctionDecl *, 2> Missing;
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    if (Ctor->isImplicit() || Ctor->isDeleted() || Ctor->isDefaulted())
      continue;
    const FunctionDecl *Def = nullptr;
    if (!Ctor->hasBody(Def)) {
      Missing.push_back(Ctor);
      continue;
    }
    Walker.walk(Def);
  }
  // reset() builds the module too (torch::nn::Cloneable calls it on clone()).
  for (const CXXMethodDecl *MD : RD->methods()) {
    if (!hasOpName(MD, op::Named::reset) || MD->getNumParams() != 0)
      continue;
    const FunctionDecl *Def = nullptr;
    if (!MD->hasBody(Def)) {
      if (!MD->isPureVirtual())
        Missing.push_back(MD);
      continue;
    }
    Walker.walk(Def);
  }
  if (!Missing.empty() && !FollowSummaries)
    return false;
  for (const FieldDecl *FD : RD->fields())
    if (Members.count(FD))
      Walker.visitDefaultMemberInitializer(FD);
  if (!Walker.run(Walked)) {
    if (!FollowSummaries)
      return false;
    for (const FunctionDecl *FD : Walker.missing())
      if (!llvm::is_contained(Missing, FD))
        Missing.push_back(FD);
  }
  if (!Missing.empty()) {
    if (!readSummaries(RD, Walker, Walked, Missing, Members))
      return false;
  } else if (FollowSummaries && reportableHere(RD)) {
    // All the building code is here; the reads of the methods of other
    // files that the project knows count too.
    llvm::StringMap<const FieldDecl *> Fields;
    fieldsByUSR(RD, 0, Fields);
    readsElsewhere(RD, Fields, {}, Members, /*Unknown=*/false);
  }
  // The other member functions: where a registered member is replaced.
  for (const CXXMethodDecl *MD : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (isa<CXXConstructorDecl, CXXDestructorDecl>(MD) || MD->isStatic() ||
        !MD->hasBody(Def) || llvm::is_contained(Walked, Def))
      continue;
    LaterWriteWalker(Members, Def).TraverseStmt(Def->getBody());
  }
  return true;
}

namespace {
/// The module classes' registrations of one translation unit, each
/// analysed on first use (registrationOf).
class Registrations {
public:
  Registrations(ASTContext &, bool FollowSummaries)
      : FollowSummaries(FollowSummaries) {}

  const ModuleRegistration &of(const CXXRecordDecl *RD) {
    if (auto It = ByClass.find(RD); It != ByClass.end())
      return *It->second;
    // Analysed before it goes into the map, which an analysis that asks for
    // another class's registration may grow.
    auto Made = std::make_unique<ModuleRegistration>();
    Made->analyze(RD, FollowSummaries);
    return *ByClass.try_emplace(RD, std::move(Made)).first->second;
  }

private:
  bool FollowSummaries;
  llvm::DenseMap<const CXXRecordDecl *, std::unique_ptr<ModuleRegistration>>
      ByClass;
};
} // namespace

const ModuleRegistration &registrationOf(const CXXRecordDecl *RD,
                                         bool FollowSummaries) {
  static const ModuleRegistration None;
  if (!RD)
    return None;
  // The definition's analysis is every redeclaration's.
  const CXXRecordDecl *Key = RD->hasDefinition() ? RD->getDefinition() : RD;
  return FunctionContexts::of(RD->getASTContext())
      .analysis<Registrations>(FollowSummaries)
      .of(Key);
}

std::optional<MethodMemberEffects> memberEffects(const CXXMethodDecl *MD) {
  const FunctionDecl *Def = nullptr;
  if (!MD || MD->isStatic() || isa<CXXDestructorDecl>(MD) || !MD->hasBody(Def))
    return std::nullopt;
  const CXXRecordDecl *RD = MD->getParent();
  if (!RD || !RD->hasDefinition() || !isModuleClass(RD))
    return std::nullopt;
  RD = RD->getDefinition();
  llvm::MapVector<const FieldDecl *, MemberFacts> All;
  classifyMembers(RD, All);
  BuildingCodeWalker Walker(RD, All);
  Walker.walk(Def);
  llvm::SmallVector<const FunctionDecl *, 4> Walked;
  MethodMemberEffects Out;
  if (!Walker.run(Walked))
    for (const FunctionDecl *FD : Walker.missing())
      Out.Calls.push_back(cast<CXXMethodDecl>(FD));
  for (auto &[Field, Facts] : All)
    if (Facts.Registered || !Facts.Writes.empty())
      Out.Members.insert({Field, std::move(Facts)});
  llvm::DenseMap<const FieldDecl *, std::pair<unsigned, unsigned>> Counts;
  countReads(Def, Counts);
  for (const FieldDecl *Field : RD->fields())
    if (auto It = Counts.find(Field); It != Counts.end() && All.count(Field))
      Out.Reads.insert({Field, It->second});
  return Out;
}

} // namespace torchtidy
