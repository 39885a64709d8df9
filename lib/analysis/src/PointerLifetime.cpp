//===--- PointerLifetime.cpp - Pointers that outlive their memory ---------===//

#include "torchtidy/analysis/PointerLifetime.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/Limits.h"
#include "torchtidy/analysis/Peel.h"
#include "torchtidy/analysis/PointeeTypes.h"
#include "torchtidy/analysis/TorchOps.h"
#include "torchtidy/analysis/TorchTypes.h"
#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <deque>
#include <optional>

using namespace clang;

namespace torchtidy {

namespace {

bool isTensor(QualType T) { return isTensorType(T.getNonReferenceType()); }

/// A place in the CFG: element I of block B.
struct Pos {
  const CFGBlock *B = nullptr;
  unsigned I = 0;
};

/// What the value carried up the expression tree is.
enum class Carried { Pointer, Tensor };

/// The same value, seen through what the AST wraps it in.
bool sameValue(const Expr *A, const Expr *B) {
  return A && B && peelValue(A) == peelValue(B);
}

const Expr *assignmentLHS(const Stmt *S, const Expr **RHS = nullptr) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() != BO_Assign)
      return nullptr;
    if (RHS)
      *RHS = BO->getRHS();
    return BO->getLHS();
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() != OO_Equal || Op->getNumArgs() != 2)
      return nullptr;
    if (RHS)
      *RHS = Op->getArg(1);
    return Op->getArg(0);
  }
  return nullptr;
}

const ValueDecl *referencedDecl(const Expr *E) {
  const auto *DRE =
      dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return DRE ? DRE->getDecl() : nullptr;
}

/// \p S writes variable \p V as a whole (an assignment, or the declaration
/// itself reached again in a loop); the value written in *RHS.
bool definesVar(const Stmt *S, const ValueDecl *V, const Expr **RHS) {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (D == V) {
        if (RHS)
          *RHS = cast<VarDecl>(D)->getInit();
        return true;
      }
    return false;
  }
  const Expr *LHS = assignmentLHS(S, RHS);
  return LHS && referencedDecl(LHS) == V;
}

/// The variable whose lifetime ends at \p E (its scope's end or its
/// destructor), if \p E is such an element.
const VarDecl *lifetimeEnd(const CFGElement &E, const Stmt **Trigger) {
  if (auto L = E.getAs<CFGLifetimeEnds>()) {
    *Trigger = L->getTriggerStmt();
    return L->getVarDecl();
  }
  if (auto D = E.getAs<CFGAutomaticObjDtor>()) {
    *Trigger = D->getTriggerStmt();
    return D->getVarDecl();
  }
  return nullptr;
}

/// A class a LibTorch program keeps tensors in: torch::data::Example, and
/// the standard library's pairs, tuples, optionals and containers.
bool holdsTensors(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  if (RD->isInStdNamespace())
    return true;
  return RD->getIdentifier() &&
         hasQualifiedName(RD, RD->getName(), {"torch", "data"});
}

} // namespace

class PointerLifetime::Impl {
public:
  Impl(const FunctionDecl *FD, ASTContext &Ctx)
      : FD(FD), Ctx(Ctx), Body(FD->getBody()) {
    index(Body, nullptr);
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->isWritten() && Init->getInit()) {
          InitRoots[Init->getInit()] = Init;
          index(Init->getInit(), nullptr);
        }
  }

  std::vector<DanglingPointer> danglingPointers();
  std::vector<BlobEscape> blobEscapes();

  const FunctionDecl *FD;
  ASTContext &Ctx;
  const Stmt *Body;
  std::vector<FromBlobCall> Blobs;

private:
  //===--- The function's statements ------------------------------------===//

  /// Records parents (not into lambda bodies: functions of their own) and
  /// collects the raw-pointer calls and the from_blob calls.
  void index(const Stmt *Root, const Stmt *Parent) {
    llvm::SmallVector<std::pair<const Stmt *, const Stmt *>, 32> Stack;
    Stack.push_back({Root, Parent});
    while (!Stack.empty()) {
      auto [S, P] = Stack.pop_back_val();
      if (!S)
        continue;
      if (P)
        Parents[S] = P;
      if (const auto *Call = dyn_cast<CallExpr>(S)) {
        if (rawDataObject(Call))
          RawCalls.push_back(Call);
        if (std::optional<FromBlobCall> B = matchFromBlob(Call))
          Blobs.push_back(*B);
      }
      if (const auto *L = dyn_cast<LambdaExpr>(S)) {
        for (const Expr *Init : L->capture_inits())
          Stack.push_back({Init, S});
        continue;
      }
      for (const Stmt *Child : S->children())
        Stack.push_back({Child, S});
    }
  }

  const Stmt *parent(const Stmt *S) const { return Parents.lookup(S); }

  /// The full-expression statement around \p E: the expression statement,
  /// the declaration, the return.
  const Stmt *statementOf(const Stmt *E) const {
    const Stmt *Cur = E;
    for (unsigned I = 0; I < limits::StatementNesting * 4; ++I) {
      const Stmt *P = parent(Cur);
      if (!P || (!isa<Expr>(P) && !isa<DeclStmt>(P)))
        return isa<Expr>(Cur) || isa<DeclStmt>(Cur) ? Cur : nullptr;
      if (isa<DeclStmt>(P) || isa<ReturnStmt>(P))
        return P;
      Cur = P;
    }
    return nullptr;
  }

  /// \p DRE only names the variable it writes: the left side of an
  /// assignment, or the object of a field written (`args.ptr = p`).
  bool isWriteOnly(const Expr *Ref) const {
    const Stmt *Cur = Ref;
    for (unsigned I = 0; I < limits::PeeledWrappers; ++I) {
      const Stmt *P = parent(Cur);
      if (!P)
        return false;
      if (isa<ParenExpr>(P) ||
          (isa<MemberExpr>(P) && !cast<MemberExpr>(P)->isArrow())) {
        Cur = P;
        continue;
      }
      const Expr *LHS = assignmentLHS(P);
      return LHS && LHS->IgnoreParens() == Cur;
    }
    return false;
  }

  //===--- The CFG --------------------------------------------------------===//

  const CFG *cfg() {
    if (!Fn)
      Fn = FunctionContexts::of(Ctx).get(FD);
    return Fn ? Fn->cfg() : nullptr;
  }

  /// Where \p S is evaluated (a declaration: the CFG's own DeclStmt of its
  /// variable, as the CFG splits `int a, b;`).
  std::optional<Pos> position(const Stmt *S) {
    if (!cfg() || !S)
      return std::nullopt;
    if (CFGPoint P = Fn->pointOf(S))
      return Pos{P.Block, P.Index};
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
      return position(EWC->getSubExpr());
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (CFGPoint P = Fn->declaredAt(VD))
            return Pos{P.Block, P.Index};
    return std::nullopt;
  }

  /// What a walk does at one element.
  enum class Step { Continue, Stop, Advance };

  /// Walks the CFG forward from just after \p Start, in phase \p Phase (0
  /// or 1); \p Visit says whether a path goes on, ends, or enters the next
  /// phase (which it does at most once). Each block is entered once per
  /// phase.
  void
  walk(Pos Start, unsigned Phase,
       llvm::function_ref<Step(const CFGElement &, unsigned Phase)> Visit) {
    struct Item {
      const CFGBlock *B;
      unsigned I;
      unsigned Phase;
    };
    std::deque<Item> Work{{Start.B, Start.I + 1, Phase}};
    llvm::DenseSet<std::pair<unsigned, unsigned>> Entered;
    while (!Work.empty()) {
      Item It = Work.front();
      Work.pop_front();
      bool Ended = false;
      for (unsigned I = It.I; I < It.B->size() && !Ended; ++I) {
        switch (Visit((*It.B)[I], It.Phase)) {
        case Step::Continue:
          break;
        case Step::Stop:
          Ended = true;
          break;
        case Step::Advance:
          if (It.Phase == 0)
            It.Phase = 1;
          break;
        }
      }
      if (Ended)
        continue;
      for (const CFGBlock *Succ : It.B->succs())
        if (Succ && Entered.insert({Succ->getBlockID(), It.Phase}).second)
          Work.push_back({Succ, 0, It.Phase});
    }
  }

  //===--- Where values go ------------------------------------------------===//

  Store holderOfVar(const VarDecl *VD) const {
    Store S;
    S.Holder = VD;
    if (VD->isStaticLocal() || VD->hasGlobalStorage())
      S.K = Store::Global;
    else if (VD->getType()->isReferenceType())
      S.K = Store::OutParam;
    else
      S.K = Store::Local;
    return S;
  }

  /// What writing to \p LHS stores into.
  Store holderOf(const Expr *LHS, unsigned Depth = 0) const {
    Store S;
    if (!LHS || Depth > limits::PeeledWrappers)
      return S;
    LHS = LHS->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(LHS)) {
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
          VD && !DRE->refersToEnclosingVariableOrCapture())
        return holderOfVar(VD);
      if (DRE->refersToEnclosingVariableOrCapture()) {
        S.K = Store::OutParam; // the enclosing function's variable
        S.Holder = DRE->getDecl();
      }
      return S;
    }
    if (const auto *ME = dyn_cast<MemberExpr>(LHS)) {
      const Expr *Base = ME->getBase()->IgnoreParenImpCasts();
      if (isa<CXXThisExpr>(Base)) {
        S.K = Store::Member;
        S.Holder = ME->getMemberDecl();
        return S;
      }
      if (const auto *DRE = dyn_cast<DeclRefExpr>(Base)) {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (VD && !ME->isArrow() && hasAutomaticStorage(VD) &&
            !DRE->refersToEnclosingVariableOrCapture())
          return holderOfVar(VD); // a field of a local struct
        if (isa_and_nonnull<ParmVarDecl>(VD)) {
          S.K = Store::OutParam;
          S.Holder = VD;
          return S;
        }
        if (VD && VD->hasGlobalStorage()) {
          S.K = Store::Global;
          S.Holder = VD;
          return S;
        }
      }
      if (isa<MemberExpr>(Base) && !ME->isArrow())
        return holderOf(Base, Depth + 1);
      S.K = Store::Member;
      S.Holder = ME->getMemberDecl();
      return S;
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(LHS)) {
      if (ASE->getBase()->IgnoreParenImpCasts()->getType()->isArrayType() ||
          isa<MemberExpr>(ASE->getBase()->IgnoreParenImpCasts()))
        return holderOf(ASE->getBase(), Depth + 1);
      return S;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(LHS)) {
      if (Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
        return holderOf(Op->getArg(0), Depth + 1);
      if (Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
        return holderOf(Op->getArg(0), Depth + 1);
      return S;
    }
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(LHS)) {
      if (callFacts(MC) & op::ContainerAccess)
        return holderOf(MC->getImplicitObjectArgument(), Depth + 1);
      return S;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(LHS);
        UO && UO->getOpcode() == UO_Deref)
      if (const auto *VD =
              dyn_cast_or_null<ParmVarDecl>(referencedDecl(UO->getSubExpr()))) {
        S.K = Store::OutParam;
        S.Holder = VD;
      }
    return S;
  }

  /// A constructor argument the object keeps: a raw pointer given to a
  /// class outside the standard library (an image header that wraps it);
  /// a tensor given to a class of tensors or to a parameter of tensor type.
  bool keepsArgument(const CXXConstructExpr *CE, const Stmt *Arg,
                     Carried M) const {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    const CXXRecordDecl *RD = Ctor ? Ctor->getParent() : nullptr;
    if (!RD)
      return false;
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      if (CE->getArg(I) != Arg)
        continue;
      if (M == Carried::Tensor)
        return holdsTensors(RD) || isTensor(CE->getType()) ||
               (I < Ctor->getNumParams() &&
                isTensor(Ctor->getParamDecl(I)->getType()));
      if (RD->isInStdNamespace() || I >= Ctor->getNumParams())
        return false;
      const QualType PT = Ctor->getParamDecl(I)->getType();
      return PT->isPointerType() && !PT->isDependentType();
    }
    return false;
  }

  /// The op \p Call certainly copies the from_blob tensor: `.cuda()` or a
  /// move to a CUDA device of host memory, a conversion to another dtype.
  bool certainlyCopies(const CallExpr *Call, const FromBlobCall &Blob) const {
    const uint64_t Facts = callFacts(Call);
    const DeviceClass BlobDevice =
        Blob.Options ? classifyDevice(Blob.Options) : DeviceClass::NotADevice;
    const bool OnHost =
        BlobDevice == DeviceClass::NotADevice || BlobDevice == DeviceClass::CPU;
    if (Facts & op::MovesToCuda)
      return OnHost;
    if (!(Facts & op::MovesToArgument))
      return false;
    const OptionsDtype BlobDtype = dtypeOfOptions(Blob.Options, Ctx);
    for (const Expr *Arg : Call->arguments()) {
      if (isa<CXXDefaultArgExpr>(Arg) || isTensor(Arg->getType()))
        continue;
      if (OnHost && classifyDevice(Arg) == DeviceClass::CUDA)
        return true;
      const OptionsDtype To = dtypeOfOptions(Arg, Ctx);
      if (To.K == OptionsDtype::Given && BlobDtype.K != OptionsDtype::Unknown) {
        llvm::StringRef From =
            BlobDtype.K == OptionsDtype::Given ? BlobDtype.D.Name : "Float";
        if (To.D.Name != From)
          return true;
      }
    }
    return false;
  }

  /// Where the value of \p E (a raw pointer, or a tensor) goes after the
  /// expression that makes it: up the tree through the wrappers, views and
  /// ops that may not copy, holders (constructors, aggregates, lambdas) and
  /// from_blob (which turns a pointer into a tensor holding it), to a store.
  Store climb(const Expr *E, Carried M, const FromBlobCall *Blob) const {
    Store Out;
    const Stmt *Cur = E;
    for (unsigned Step = 0; Step < limits::OriginDepth * 4; ++Step) {
      const Stmt *P = parent(Cur);
      // The object of a member call: its parent is the callee's MemberExpr.
      if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
        if (const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(parent(ME));
            MC && MC->getCallee()->IgnoreParens() == ME)
          P = MC;
      if (!P) {
        if (const CXXCtorInitializer *Init = InitRoots.lookup(Cur)) {
          if (Init->isAnyMemberInitializer()) {
            Out.K = Store::Member;
            Out.Holder = Init->getAnyMember();
            Out.At = Cur;
          }
        }
        return Out;
      }
      if (isa<Expr>(P) &&
          peel::peelOne(cast<Expr>(P), peel::Converted) == Cur) {
        Cur = P;
        continue;
      }
      if (const auto *CO = dyn_cast<ConditionalOperator>(P)) {
        if (CO->getCond() == Cur)
          return Store{};
        Cur = P;
        continue;
      }
      if (M == Carried::Pointer) {
        if (const auto *BO = dyn_cast<BinaryOperator>(P);
            BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
          Cur = P;
          continue;
        }
      }
      // An assignment (also a class's operator=, which is a call).
      const Expr *RHS = nullptr;
      if (const Expr *LHS = assignmentLHS(P, &RHS); LHS && RHS == Cur) {
        Store H = holderOf(LHS);
        if (H.K == Store::None)
          return H;
        H.At = P;
        H.Through = Out.Through;
        H.MayAliasOp = Out.MayAliasOp;
        return H;
      }
      if (const auto *Call = dyn_cast<CallExpr>(P)) {
        const uint64_t Facts = callFacts(Call);
        const bool IsArg = llvm::is_contained(Call->arguments(), Cur);
        if (Call->getNumArgs() == 1 && IsArg && (Facts & op::PassesThrough)) {
          Cur = P; // std::move
          continue;
        }
        if (M == Carried::Pointer && Call->getNumArgs() >= 1 &&
            Call->getArg(0) == Cur && (Facts & op::WrapsMemory)) {
          // from_blob(p, ...): the tensor holds the pointer.
          Out.Through = Call;
          M = Carried::Tensor;
          Cur = P;
          continue;
        }
        if (M == Carried::Tensor) {
          const StorageStep St = storageStep(Call);
          const bool IsInput = St.Input && sameValue(St.Input, cast<Expr>(Cur));
          if (IsInput &&
              (St.K == StorageStep::View || St.K == StorageStep::MayAlias)) {
            if (St.K == StorageStep::MayAlias) {
              if (Blob && certainlyCopies(Call, *Blob))
                return Store{};
              if (!Out.MayAliasOp)
                Out.MayAliasOp = Call;
            }
            Cur = P;
            continue;
          }
          if (St.K != StorageStep::Unknown)
            return Store{}; // a copy, or another op's operand
        }
        if (IsArg || isa<CXXMemberCallExpr>(Call)) {
          const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
          // A standard container keeps what it is given; a user class's
          // insert(t) (a rollout storage) may copy it into its own tensors.
          const CXXRecordDecl *Into = MC ? MC->getRecordDecl() : nullptr;
          if (IsArg && Into && Into->isInStdNamespace() &&
              (Facts & op::ContainerInsert)) {
            Store H = holderOf(MC->getImplicitObjectArgument());
            if (H.K == Store::None)
              return H;
            H.At = MC;
            H.Through = Out.Through;
            H.MayAliasOp = Out.MayAliasOp;
            return H;
          }
          if (IsArg && M == Carried::Tensor &&
              (Facts & (op::RegistersBuffer | op::RegistersParameter))) {
            Out.K = Store::Module;
            Out.At = Call;
            return Out;
          }
        }
        return Store{};
      }
      if (const auto *CE = dyn_cast<CXXConstructExpr>(P)) {
        if (M == Carried::Tensor && CE->getConstructor() &&
            CE->getConstructor()->isCopyOrMoveConstructor() &&
            isTensor(CE->getType())) {
          Cur = P;
          continue;
        }
        if (!keepsArgument(CE, Cur, M))
          return Store{};
        if (!Out.Through)
          Out.Through = CE;
        Cur = P;
        continue;
      }
      if (isa<InitListExpr>(P) || isa<CXXStdInitializerListExpr>(P) ||
          isa<LambdaExpr>(P)) {
        if (!Out.Through)
          Out.Through = cast<Expr>(P);
        Cur = P;
        continue;
      }
      if (const auto *DS = dyn_cast<DeclStmt>(P)) {
        for (const Decl *D : DS->decls())
          if (const auto *VD = dyn_cast<VarDecl>(D);
              VD && VD->getInit() == Cur) {
            Store H = holderOfVar(VD);
            H.At = DS;
            H.Through = Out.Through;
            H.MayAliasOp = Out.MayAliasOp;
            return H;
          }
        return Store{};
      }
      if (isa<ReturnStmt>(P)) {
        Out.K = Store::Returned;
        Out.At = P;
        return Out;
      }
      return Store{};
    }
    return Store{};
  }

  /// \p RHS holds (a view of, or what may be) the tensor of \p V.
  bool derivesFrom(const Expr *RHS, const ValueDecl *V) const {
    const Expr *E = RHS;
    for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
      StorageStep S = storageStep(E);
      if (S.K == StorageStep::Named)
        return S.Decl == V;
      if (S.K != StorageStep::View && S.K != StorageStep::MayAlias)
        return false;
      E = S.Input;
    }
    return false;
  }

  /// The storage of local tensor \p T may be freed with it: every value it
  /// gets may have been freshly allocated (an op, not a copy of another
  /// tensor), and nothing else may keep its storage (copies, views kept
  /// elsewhere, calls that take it by value).
  bool ownsStorage(const VarDecl *T) const {
    if (!hasAutomaticStorage(T) || isa<ParmVarDecl>(T) ||
        !isTensor(T->getType()))
      return false;
    auto Fresh = [&](const Expr *Value) {
      const Expr *E = Value;
      for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
        StorageStep S = storageStep(E);
        if (S.K == StorageStep::View) {
          E = S.Input;
          continue;
        }
        return S.K == StorageStep::Allocates || S.K == StorageStep::MayAlias;
      }
      return false;
    };
    if (const Expr *Init = T->getInit()) {
      const auto *CE = dyn_cast<CXXConstructExpr>(peelValue(Init));
      const bool DefaultConstructed = CE && CE->getNumArgs() == 0;
      if (!DefaultConstructed && !Fresh(Init))
        return false;
    }
    bool Owns = true;
    forEachOwnStmt(Body, [&](const Stmt *S) {
      if (!Owns)
        return;
      const Expr *RHS = nullptr;
      if (definesVar(S, T, &RHS) && !isa<DeclStmt>(S)) {
        if (!Fresh(RHS) && !derivesFrom(RHS, T))
          Owns = false;
        return;
      }
      const auto *DRE = dyn_cast<DeclRefExpr>(S);
      if (DRE && DRE->getDecl() == T && !isWriteOnly(DRE) &&
          mayKeepStorage(DRE, 0))
        Owns = false;
    });
    return Owns;
  }

  /// Something may keep the storage \p E (a tensor sharing it) refers to:
  /// anything but the object of an op (whose result is not a tensor, is a
  /// copy, or is itself used up) or an argument of a LibTorch function.
  bool mayKeepStorage(const Expr *E, unsigned Depth) const {
    if (Depth > limits::OriginDepth)
      return true;
    const Stmt *Cur = E;
    for (unsigned I = 0; I < limits::PeeledWrappers; ++I) {
      // Up through the compiler's wrappers and member accesses.
      const Stmt *P =
          parent(peel::climb(cast<Expr>(Cur), peel::Compiler,
                             [this](const Stmt *S) { return parent(S); }));
      if (!P)
        return true;
      if (isa<MemberExpr>(P)) {
        Cur = P;
        continue;
      }
      const auto *Call = dyn_cast<CallExpr>(P);
      if (!Call)
        return true;
      const FunctionDecl *Callee = Call->getDirectCallee();
      const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Callee);
      const bool TorchCallee =
          Callee && (isTorchFunction(Callee) || isTensorMethod(MD));
      if (!TorchCallee ||
          (callFacts(Call) & (op::RegistersBuffer | op::RegistersParameter)))
        return true;
      if (!isTensor(Call->getType()))
        return false; // data_ptr, size, item, an ostream...
      const StorageStep St = storageStep(Call);
      if (St.K == StorageStep::Allocates)
        return false;
      if (St.K == StorageStep::Unknown)
        return true;
      // A view (or the same tensor): where does it go?
      return mayKeepStorage(Call, Depth + 1);
    }
    return true;
  }

  const Stmt *enclosingBlock(const Stmt *S) const {
    const Stmt *P = parent(S);
    return isa_and_nonnull<CompoundStmt>(P) ? P : nullptr;
  }

  /// Every use is in \p Stmt's block, after \p Stmt.
  bool usesFollowInBlock(const Stmt *Statement,
                         llvm::ArrayRef<const Stmt *> Uses) const {
    const auto *Block =
        dyn_cast_or_null<CompoundStmt>(enclosingBlock(Statement));
    if (!Block || Uses.empty())
      return false;
    const SourceManager &SM = Ctx.getSourceManager();
    const SourceLocation After = SM.getExpansionLoc(Statement->getEndLoc());
    const SourceLocation End = SM.getExpansionLoc(Block->getRBracLoc());
    for (const Stmt *U : Uses) {
      SourceLocation L = SM.getExpansionLoc(U->getBeginLoc());
      if (!SM.isBeforeInTranslationUnit(After, L) ||
          !SM.isBeforeInTranslationUnit(L, End))
        return false;
    }
    return true;
  }

  bool isFreeOf(const Stmt *S, const VarDecl *P) const {
    if (const auto *Del = dyn_cast<CXXDeleteExpr>(S))
      return referencedDecl(Del->getArgument()) == P;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      return (callFacts(Call) & op::FreesMemory) && Call->getNumArgs() == 1 &&
             referencedDecl(Call->getArg(0)->IgnoreCasts()) == P;
    return false;
  }

  /// The buffer \p Owner (a container) is handed on: std::move'd or swapped.
  bool isHandedOn(const VarDecl *Owner) const {
    bool Found = false;
    forEachOwnStmt(Body, [&](const Stmt *S) {
      const auto *Call = dyn_cast<CallExpr>(S);
      if (Found || !Call)
        return;
      const bool Moves = callFacts(Call) & op::PassesThrough;
      const FunctionDecl *Callee = Call->getDirectCallee();
      const bool Swaps =
          Callee && Callee->getIdentifier() && Callee->getName() == "swap";
      if (!Moves && !Swaps)
        return;
      for (const Expr *Arg : Call->arguments())
        if (referencedDecl(Arg) == Owner)
          Found = true;
      if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
        if (referencedDecl(MC->getImplicitObjectArgument()) == Owner && Swaps)
          Found = true;
    });
    return Found;
  }

  llvm::DenseMap<const Stmt *, const Stmt *> Parents;
  llvm::DenseMap<const Stmt *, const CXXCtorInitializer *> InitRoots;
  std::vector<const CallExpr *> RawCalls;
  /// The shared CFG and its maps, once asked for.
  FunctionContext *Fn = nullptr;
};

//===----------------------------------------------------------------------===//
// Dangling raw pointers
//===----------------------------------------------------------------------===//

std::vector<DanglingPointer> PointerLifetime::Impl::danglingPointers() {
  std::vector<DanglingPointer> Out;
  for (const CallExpr *Raw : RawCalls) {
    const Expr *Obj = rawDataObject(Raw);
    // Down the views to what has the storage.
    StorageStep S;
    const Expr *E = Obj;
    for (unsigned I = 0; E && I < limits::OriginDepth; ++I) {
      S = storageStep(E);
      if (S.K != StorageStep::View || !S.Input)
        break;
      E = S.Input;
    }
    DanglingPointer D;
    D.Raw = Raw;
    D.Statement = statementOf(Raw);
    if (S.K == StorageStep::Allocates || S.K == StorageStep::MayAlias) {
      D.C = DanglingPointer::Temporary;
      D.TemporaryTensor = Obj;
      D.AllocOp = S.Op;
      D.MayAlias = S.K == StorageStep::MayAlias;
    } else if (S.K == StorageStep::Named) {
      D.Tensor = dyn_cast<VarDecl>(S.Decl);
      if (!D.Tensor || !ownsStorage(D.Tensor))
        continue;
      D.C = DanglingPointer::OutOfScope;
    } else {
      continue;
    }
    D.Kept = climb(Raw, Carried::Pointer, nullptr);
    if (D.Kept.K == Store::None)
      continue;
    if (D.Kept.escapes()) {
      // A pointer into a local tensor kept in a member outlives the tensor
      // only when the tensor's scope ends first, which it does at the
      // latest when the function returns.
      Out.push_back(D);
      continue;
    }
    // A local holds the pointer: is it used after the storage is gone?
    const ValueDecl *Holder = D.Kept.Holder;
    std::optional<Pos> Start =
        position(D.C == DanglingPointer::Temporary ? Raw : D.Kept.At);
    if (!Start)
      continue;
    const Stmt *Def = D.Kept.At;
    llvm::SmallVector<const Stmt *, 4> Uses;
    const Stmt *Kill = nullptr;
    DanglingPointer::Cause KillCause = DanglingPointer::OutOfScope;
    const bool IsTemporary = D.C == DanglingPointer::Temporary;
    const VarDecl *Tensor = D.Tensor;
    walk(*Start, 0, [&](const CFGElement &El, unsigned Phase) -> Step {
      const Stmt *Trigger = nullptr;
      if (const VarDecl *Ended = lifetimeEnd(El, &Trigger)) {
        if (Ended == Holder)
          return Step::Stop;
        if (!IsTemporary && Ended == Tensor && Phase == 0) {
          if (!Kill) {
            Kill = Trigger;
            KillCause = DanglingPointer::OutOfScope;
          }
          return Step::Advance;
        }
        return Step::Continue;
      }
      auto CS = El.getAs<CFGStmt>();
      if (!CS)
        return Step::Continue;
      const Stmt *St = CS->getStmt();
      if (IsTemporary && Phase == 0) {
        // The temporary dies once its full-expression has stored it.
        const bool IsDef =
            St == Def || (isa<DeclStmt>(Def) && isa<DeclStmt>(St) &&
                          definesVar(St, Holder, nullptr));
        return IsDef ? Step::Advance : Step::Continue;
      }
      const Expr *RHS = nullptr;
      if (definesVar(St, Holder, &RHS))
        return Step::Stop;
      if (!IsTemporary && Phase == 0 && definesVar(St, Tensor, &RHS) &&
          !derivesFrom(RHS, Tensor)) {
        if (!Kill) {
          Kill = St;
          KillCause = DanglingPointer::Reassigned;
        }
        return Step::Advance;
      }
      if (Phase == 1)
        if (const auto *DRE = dyn_cast<DeclRefExpr>(St);
            DRE && DRE->getDecl() == Holder && !isWriteOnly(DRE) &&
            Uses.size() < limits::MaxReturns)
          Uses.push_back(DRE);
      return Step::Continue;
    });
    if (Uses.empty())
      continue;
    llvm::sort(Uses, [&](const Stmt *A, const Stmt *B) {
      return Ctx.getSourceManager().isBeforeInTranslationUnit(A->getBeginLoc(),
                                                              B->getBeginLoc());
    });
    D.Use = Uses.front();
    if (!IsTemporary) {
      D.Kill = Kill;
      D.C = KillCause;
    } else {
      D.BindingFixes = D.Statement && usesFollowInBlock(D.Statement, Uses);
    }
    Out.push_back(D);
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// from_blob tensors that outlive their buffers
//===----------------------------------------------------------------------===//

std::vector<BlobEscape> PointerLifetime::Impl::blobEscapes() {
  std::vector<BlobEscape> Out;
  for (const FromBlobCall &Blob : Blobs) {
    if (Blob.HasDeleter)
      continue;
    BlobEscape R;
    R.Blob = Blob;
    R.Buffer = bufferOrigin(Blob.Data, Body);
    const VarDecl *Owner = R.Buffer.Owner;
    // The buffer of a temporary is gone once the from_blob's statement ends:
    // every later use, and every escape, reads freed memory.
    const bool Temporary = R.Buffer.K == BufferOrigin::Temporary;
    // The walk starts after the temporary died: every use is after it.
    const unsigned From = Temporary ? 1 : 0;
    const bool Automatic = R.Buffer.K != BufferOrigin::Unknown &&
                           R.Buffer.K != BufferOrigin::Pointer && !Temporary &&
                           R.Buffer.Automatic;
    bool Heap = false;
    if (R.Buffer.K == BufferOrigin::Pointer && Owner)
      forEachOwnStmt(Body, [&](const Stmt *S) { Heap |= isFreeOf(S, Owner); });
    if (!Temporary && ((!Automatic && !Heap) || isHandedOn(Owner)))
      continue;

    Store First = climb(Blob.Call, Carried::Tensor, &Blob);
    if (First.K == Store::None)
      continue;
    if (First.escapes()) {
      if (Automatic || Temporary) {
        R.Kept = First;
        Out.push_back(R);
      }
      continue;
    }
    // Locals that hold the tensor, each followed from where it gets it.
    struct Holding {
      const VarDecl *Var;
      const Stmt *At;
      Store Via;
    };
    llvm::SmallVector<Holding, 4> Holders;
    if (const auto *VD = dyn_cast_or_null<VarDecl>(First.Holder))
      Holders.push_back({VD, First.At, First});
    std::optional<BlobEscape> Found;
    for (unsigned H = 0;
         H < Holders.size() && !Found && H < limits::OriginDepth; ++H) {
      const Holding Cur = Holders[H];
      std::optional<Pos> Start = position(Cur.At);
      if (!Start)
        continue;
      const Stmt *Freed = nullptr;
      walk(*Start, From, [&](const CFGElement &El, unsigned Phase) -> Step {
        if (Found)
          return Step::Stop;
        const Stmt *Trigger = nullptr;
        if (const VarDecl *Ended = lifetimeEnd(El, &Trigger)) {
          if (Ended == Cur.Var)
            return Step::Stop;
          if (Ended == Owner && Automatic && Phase == 0) {
            Freed = Trigger;
            return Step::Advance;
          }
          return Step::Continue;
        }
        auto CS = El.getAs<CFGStmt>();
        if (!CS)
          return Step::Continue;
        const Stmt *St = CS->getStmt();
        if (Heap && Phase == 0 && isFreeOf(St, Owner)) {
          Freed = St;
          return Step::Advance;
        }
        const Expr *RHS = nullptr;
        if (definesVar(St, Cur.Var, &RHS) && St != Cur.At &&
            !derivesFrom(RHS, Cur.Var))
          return Step::Stop;
        const auto *DRE = dyn_cast<DeclRefExpr>(St);
        if (!DRE || DRE->getDecl() != Cur.Var || isWriteOnly(DRE))
          return Step::Continue;
        Store Next = climb(DRE, Carried::Tensor, &Blob);
        if (Next.escapes() && (Automatic || Phase == 1)) {
          BlobEscape E = R;
          E.Kept = Next;
          if (!E.Kept.MayAliasOp)
            E.Kept.MayAliasOp = Cur.Via.MayAliasOp;
          E.Freed = Phase == 1 ? Freed : nullptr;
          for (const Holding &Hd : Holders)
            E.Via.push_back(Hd.Var);
          Found = E;
          return Step::Stop;
        }
        if (Phase == 1) {
          BlobEscape E = R;
          E.Kept = Cur.Via;
          E.Use = DRE;
          E.Freed = Freed;
          for (const Holding &Hd : Holders)
            E.Via.push_back(Hd.Var);
          Found = E;
          return Step::Stop;
        }
        if (Next.K == Store::Local && Next.Holder != Cur.Var)
          if (const auto *VD = dyn_cast<VarDecl>(Next.Holder);
              VD && llvm::none_of(Holders, [&](const Holding &Hd) {
                return Hd.Var == VD;
              }))
            Holders.push_back({VD, Next.At, Next});
        return Step::Continue;
      });
    }
    if (Found)
      Out.push_back(*Found);
  }
  return Out;
}

//===----------------------------------------------------------------------===//

static bool containsCall(const FunctionDecl *FD,
                         llvm::function_ref<bool(const CallExpr *)> Pred) {
  bool Found = false;
  auto Visit = [&](const Stmt *S) {
    if (!Found)
      if (const auto *Call = dyn_cast<CallExpr>(S))
        Found = Pred(Call);
  };
  if (!FD || !FD->getBody())
    return false;
  forEachOwnStmt(FD->getBody(), Visit);
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (!Found && Init->isWritten() && Init->getInit())
        forEachOwnStmt(Init->getInit(), Visit);
  return Found;
}

bool containsRawDataCall(const FunctionDecl *FD) {
  return containsCall(FD,
                      [](const CallExpr *Call) { return rawDataObject(Call); });
}

bool containsFromBlob(const FunctionDecl *FD) {
  return containsCall(FD, [](const CallExpr *Call) {
    return callFacts(Call) & op::WrapsMemory;
  });
}

PointerLifetime::PointerLifetime(const FunctionDecl *FD, ASTContext &Ctx)
    : P(std::make_unique<Impl>(FD, Ctx)) {}
PointerLifetime::~PointerLifetime() = default;

std::vector<DanglingPointer> PointerLifetime::danglingPointers() {
  if (!P->Body)
    return {};
  return P->danglingPointers();
}

std::vector<BlobEscape> PointerLifetime::blobEscapes() {
  if (!P->Body)
    return {};
  return P->blobEscapes();
}

const std::vector<FromBlobCall> &PointerLifetime::blobs() const {
  return P->Blobs;
}

} // namespace torchtidy
