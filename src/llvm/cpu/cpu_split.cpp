/* One kernel's part of a lowered CPU module (cpu_split.h): a new module
 * holding only what the kernel's work-group function reaches, found by a
 * walk from it, so that taking every kernel's part of a program of N
 * kernels costs the sum of the parts, not N times the module (LLVM's
 * CloneModule declares every global of the source in each copy). */
#include "llvm/cpu/cpu_split.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

using namespace llvm;

namespace {

struct walk {
   SmallPtrSet<GlobalValue *, 32> seen;
   SmallVector<GlobalValue *, 32> order;
   SmallVector<GlobalValue *, 32> todo;
   SmallPtrSet<Constant *, 32> constants;

   void add(GlobalValue *g)
   {
      if (seen.insert(g).second) {
         order.push_back(g);
         todo.push_back(g);
      }
   }

   void constant(Constant *c)
   {
      if (auto *g = dyn_cast<GlobalValue>(c)) {
         add(g);
         return;
      }
      if (!constants.insert(c).second)
         return;
      for (Use &u : c->operands())
         if (auto *op = dyn_cast<Constant>(u.get()))
            constant(op);
   }

   void value(Value *v)
   {
      if (auto *c = dyn_cast<Constant>(v))
         constant(c);
   }
};

/* Whether g's definition goes into the part: functions always (what is
 * internal stays so, a private copy per part), global variables only
 * when they are the part's own (defined) or read-only and internal (a
 * copy changes nothing anyone can observe); every other global variable
 * is defined once, in the common part, and declared here. */
bool define_in_part(const GlobalValue *g, const SmallPtrSetImpl<GlobalValue *> &own)
{
   if (g->isDeclaration())
      return false;
   if (own.count(const_cast<GlobalValue *>(g)))
      return true;
   if (isa<Function>(g))
      return true;
   auto *gv = dyn_cast<GlobalVariable>(g);
   return gv && gv->hasLocalLinkage() && gv->isConstant();
}

} // namespace

extern "C" LLVMModuleRef kiln_cpu_split(LLVMModuleRef src_ref, LLVMValueRef *roots,
                                         unsigned num_roots, bool functions)
{
   Module &src = *unwrap(src_ref);
   walk w;
   SmallPtrSet<GlobalValue *, 8> own;
   for (unsigned i = 0; i < num_roots; i++) {
      auto *g = cast<GlobalValue>(unwrap(roots[i]));
      own.insert(g);
      w.add(g);
   }
   /* What the definitions going into the part reach. */
   while (!w.todo.empty()) {
      GlobalValue *g = w.todo.pop_back_val();
      if (!define_in_part(g, own) || (!functions && isa<Function>(g)))
         continue;
      if (auto *gv = dyn_cast<GlobalVariable>(g)) {
         if (gv->hasInitializer())
            w.constant(gv->getInitializer());
         continue;
      }
      auto *f = cast<Function>(g);
      /* A lazily read module (kiln_cpu_read_lazy) reads bodies as reached. */
      if (f->isMaterializable())
         if (Error e = f->materialize()) {
            consumeError(std::move(e));
            return nullptr;
         }
      if (f->hasPersonalityFn())
         w.constant(f->getPersonalityFn());
      for (BasicBlock &bb : *f)
         for (Instruction &i : bb)
            for (Use &u : i.operands())
               w.value(u.get());
   }

   auto part = std::make_unique<Module>(src.getModuleIdentifier(), src.getContext());
   part->setDataLayout(src.getDataLayout());
   part->setTargetTriple(src.getTargetTriple());
   part->setSourceFileName(src.getSourceFileName());
   if (NamedMDNode *flags = src.getModuleFlagsMetadata()) {
      NamedMDNode *to = part->getOrInsertModuleFlagsMetadata();
      for (MDNode *op : flags->operands())
         to->addOperand(op);
   }

   ValueToValueMapTy vmap;
   /* Declarations first, so that any definition may refer to any of them. */
   for (GlobalValue *g : w.order) {
      bool define = define_in_part(g, own) && (functions || !isa<Function>(g));
      GlobalValue *ng;
      if (auto *f = dyn_cast<Function>(g)) {
         Function *nf = Function::Create(f->getFunctionType(), f->getLinkage(),
                                         f->getAddressSpace(), f->getName(), part.get());
         nf->copyAttributesFrom(f);
         ng = nf;
      } else if (auto *gv = dyn_cast<GlobalVariable>(g)) {
         auto *ngv = new GlobalVariable(*part, gv->getValueType(), gv->isConstant(),
                                        gv->getLinkage(), nullptr, gv->getName(), nullptr,
                                        gv->getThreadLocalMode(), gv->getAddressSpace());
         ngv->copyAttributesFrom(gv);
         ng = ngv;
      } else {
         return nullptr; /* aliases and ifuncs: OpenCL C makes none */
      }
      if (!define) {
         /* Defined elsewhere: in the common part or the process. */
         ng->setLinkage(GlobalValue::ExternalLinkage);
         if (auto *ngo = dyn_cast<GlobalObject>(ng))
            ngo->setComdat(nullptr);
         if (auto *nf = dyn_cast<Function>(ng))
            nf->setPersonalityFn(nullptr);
      }
      vmap[g] = ng;
   }
   for (GlobalValue *g : w.order) {
      bool define = define_in_part(g, own) && (functions || !isa<Function>(g));
      if (!define)
         continue;
      if (auto *gv = dyn_cast<GlobalVariable>(g)) {
         auto *ngv = cast<GlobalVariable>(vmap[gv]);
         if (gv->hasInitializer())
            ngv->setInitializer(MapValue(gv->getInitializer(), vmap));
         SmallVector<std::pair<unsigned, MDNode *>, 1> mds;
         gv->getAllMetadata(mds);
         for (auto &md : mds)
            ngv->addMetadata(md.first, *MapMetadata(md.second, vmap));
         continue;
      }
      auto *f = cast<Function>(g);
      auto *nf = cast<Function>(vmap[f]);
      auto dst = nf->arg_begin();
      for (Argument &a : f->args()) {
         dst->setName(a.getName());
         vmap[&a] = &*dst++;
      }
      SmallVector<ReturnInst *, 8> returns;
      CloneFunctionInto(nf, f, vmap, CloneFunctionChangeType::DifferentModule, returns);
      if (f->hasPersonalityFn())
         nf->setPersonalityFn(MapValue(f->getPersonalityFn(), vmap));
   }
   return wrap(part.release());
}

extern "C" LLVMModuleRef kiln_cpu_read_lazy(LLVMContextRef ctx, const void *data, size_t size)
{
   MemoryBufferRef buf(StringRef(static_cast<const char *>(data), size), "kiln-lowered");
   Expected<std::unique_ptr<Module>> m = getLazyBitcodeModule(buf, *unwrap(ctx));
   if (!m) {
      consumeError(m.takeError());
      return nullptr;
   }
   return wrap(m->release());
}
