/* tagop's own Valgrind tool: the instruction and memory trace of a program
   (and of its forked children and exec'd programs) as compact binary
   records written to a pipe that `tagop emulate` reads.

   Built from Debian's valgrind package (the pub_tool_*.h headers and the
   static core), the way Valgrind's own tools are; loaded with VALGRIND_LIB
   pointing at a folder holding this tool beside the system's core files.
   It instruments as Lackey's --trace-mem=yes does (the same IR events in
   the same order, a load and a store of the same address merged into a
   modify), so the model sees the same accesses; but it writes 10 or 11
   bytes per event into a buffer instead of printing a text line.

   The stream is a sequence of frames, each written with one write(2) of at
   most PIPE_BUF bytes, so that processes of one family writing to the one
   pipe never interleave inside a frame. The layout is declared in
   lib/emulate/tagop/emulate/tool_trace.hpp (the reader), frame by frame:
     header  u32 magic "TGP2", u32 length (header included), u32 pid, u32 tid
     records 'I' u8 size_exits, u64 ip        an instruction executed: its
                                              size in the low 5 bits, its
                                              translation's conditional
                                              exits in the top 3
             'L'/'S'/'M' u16 size, u64 addr   its load, store, modify
             'T' u32 tid                      another thread runs from here
             'X' u32 ppid, u16 n, n bytes     a program starts (its path)
             'F' u32 child                    this process forked child here
             'P' u64 start, u64 len, u64 pgoff, u16 n, n bytes
                                              an executable file mapping
   The kernel's thread ids (gettid), not Valgrind's own numbers. */

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vkiscnums.h"

/* --- options --------------------------------------------------------- */

static Long clo_fd = -1; /* --tagop-fd=N: the pipe */

static Bool tg_process_cmd_line_option(const HChar* arg) {
  if VG_INT_CLO(arg, "--tagop-fd", clo_fd) {}
  else return False;
  return True;
}

static void tg_print_usage(void) {
  VG_(printf)("    --tagop-fd=<n>            write the binary trace to file descriptor n\n");
}

static void tg_print_debug_usage(void) {}

/* --- the frame buffer ---------------------------------------------------- */

#define FRAME_SIZE 4096 /* PIPE_BUF: a write of this many bytes is atomic */
#define HEADER_SIZE 16

static UChar frame[FRAME_SIZE];
static UInt used = HEADER_SIZE;
static UInt pid;         /* this process */
static UInt current_tid; /* the kernel thread whose events are being written */
static UInt frame_tid;   /* the one at the start of the frame: its header's */
static ThreadId current_vg_tid = 0; /* none: Valgrind numbers threads from 1 */

static void put32(UChar* p, UInt v) { *(UInt*)p = v; }
static void put64(UChar* p, ULong v) { *(ULong*)p = v; }

static void flush(void) {
  if (used == HEADER_SIZE || clo_fd < 0) return;
  put32(frame, 0x32504754); /* "TGP2" */
  put32(frame + 4, used);
  put32(frame + 8, pid);
  put32(frame + 12, frame_tid);
  const UChar* p = frame;
  Int left = (Int)used;
  while (left > 0) {
    Int n = VG_(write)((Int)clo_fd, p, left);
    if (n <= 0) break; /* the reader is gone: nothing to do but go on */
    p += n;
    left -= n;
  }
  used = HEADER_SIZE;
  frame_tid = current_tid; /* the next frame goes on with the thread running now */
}

static inline UChar* room(UInt n) {
  if (used + n > FRAME_SIZE) flush();
  UChar* p = frame + used;
  used += n;
  return p;
}

/* Paths are cut to what fits a frame with the record around them. */
static UInt bounded_length(const HChar* s) {
  UInt n = s ? VG_(strlen)(s) : 0;
  return n > 1024 ? 1024 : n;
}

/* --- the records the instrumented code writes ----------------------------- */

enum { K_INSTRUCTION = 'I', K_LOAD = 'L', K_STORE = 'S', K_MODIFY = 'M' };

static VG_REGPARM(2) void tg_ins(Addr ip, UWord size) {
  UChar* p = room(10);
  p[0] = K_INSTRUCTION;
  p[1] = (UChar)size;
  put64(p + 2, ip);
}

/* size_kind: the size in the low 16 bits, the kind above. */
static VG_REGPARM(2) void tg_data(Addr addr, UWord size_kind) {
  UChar* p = room(11);
  p[0] = (UChar)(size_kind >> 16);
  *(UShort*)(p + 1) = (UShort)size_kind;
  put64(p + 3, addr);
}

/* An instruction and its one access: one call instead of two. */
static VG_REGPARM(3) void tg_ins_data(Addr ip, UWord size, Addr addr, UWord size_kind) {
  UChar* p = room(21);
  p[0] = K_INSTRUCTION;
  p[1] = (UChar)size;
  put64(p + 2, ip);
  p[10] = (UChar)(size_kind >> 16);
  *(UShort*)(p + 11) = (UShort)size_kind;
  put64(p + 13, addr);
}

/* --- threads, processes, mappings ---------------------------------------- */

static void tg_start_client_code(ThreadId tid, ULong blocks) {
  (void)blocks;
  if (tid == current_vg_tid) return;
  current_vg_tid = tid;
  /* Valgrind runs each client thread on a kernel thread of its own: the
     one that starts running client code now. */
  UInt os_tid = (UInt)VG_(gettid)();
  if (os_tid == current_tid) return;
  if (used + 5 > FRAME_SIZE) flush();
  if (used == HEADER_SIZE) { /* a frame not yet begun takes it in its header */
    current_tid = frame_tid = os_tid;
    return;
  }
  UChar* p = room(5);
  p[0] = 'T';
  put32(p + 1, os_tid);
  current_tid = os_tid;
}

static void program_start(void) {
  const HChar* path = VG_(args_the_exename);
  UInt n = bounded_length(path);
  UChar* p = room(7 + n);
  p[0] = 'X';
  put32(p + 1, (UInt)VG_(getppid)());
  *(UShort*)(p + 5) = (UShort)n;
  VG_(memcpy)(p + 7, path, n);
}

/* An executable mapping of a file: the reader decodes the instructions
   from the file itself, and writes the capture's MMAP2 records. */
static void tell_mapping(Addr a, SizeT len, Bool xx) {
  if (!xx || len == 0) return;
  NSegment const* seg = VG_(am_find_nsegment)(a);
  const HChar* path = seg ? VG_(am_get_filename)(seg) : NULL;
  if (!path || path[0] != '/') return; /* anonymous code: the reader reads /proc/PID/mem */
  UInt n = bounded_length(path);
  UChar* p = room(27 + n);
  p[0] = 'P';
  put64(p + 1, a);
  put64(p + 9, len);
  put64(p + 17, (ULong)(seg->offset + (Off64T)(a - seg->start)));
  *(UShort*)(p + 25) = (UShort)n;
  VG_(memcpy)(p + 27, path, n);
}

static void tg_new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di) {
  (void)rr;
  (void)ww;
  (void)di;
  tell_mapping(a, len, xx);
}

static void tg_new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di) {
  (void)rr;
  (void)ww;
  (void)di;
  tell_mapping(a, len, xx);
}

static void tg_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx) {
  (void)rr;
  (void)ww;
  tell_mapping(a, len, xx);
}

/* What is buffered goes out before the process is copied (or the child
   would write it again) and before exec replaces it (or it would be lost). */
static void tg_pre_syscall(ThreadId tid, UInt no, UWord* args, UInt n) {
  (void)tid;
  (void)args;
  (void)n;
  if (no == __NR_execve || no == __NR_execveat || no == __NR_fork || no == __NR_vfork || no == __NR_clone
      || no == __NR_exit_group)
    flush();
}

/* A fork, told in the parent's stream at the point where it happened: the
   reader starts the child from the parent's state there. Sent at once, as
   the child's first frames may already be on their way. */
static void tg_post_syscall(ThreadId tid, UInt no, UWord* args, UInt n, SysRes res) {
  (void)tid;
  (void)n;
  const Bool forks = no == __NR_fork || no == __NR_vfork || (no == __NR_clone && !(args[0] & 0x00010000 /* CLONE_THREAD */));
  if (!forks || sr_isError(res) || sr_Res(res) == 0) return;
  UChar* p = room(5);
  p[0] = 'F';
  put32(p + 1, (UInt)sr_Res(res));
  flush();
}

static void tg_atfork_pre(ThreadId tid) {
  (void)tid;
  flush();
}

static void tg_atfork_child(ThreadId tid) {
  (void)tid;
  used = HEADER_SIZE;
  pid = (UInt)VG_(getpid)();
  current_tid = frame_tid = (UInt)VG_(gettid)();
}

/* --- instrumentation: Lackey's events, in its order ------------------------- */

typedef enum { EV_INS, EV_LOAD, EV_STORE, EV_MODIFY } EventKind;

typedef struct {
  EventKind kind;
  IRExpr* addr;
  Int size;
  IRExpr* guard; /* NULL: always */
} Event;

#define N_EVENTS 4
static Event events[N_EVENTS];
static Int events_used = 0;

static UWord size_kind(const Event* e) {
  UWord kind = e->kind == EV_LOAD ? K_LOAD : e->kind == EV_STORE ? K_STORE : K_MODIFY;
  return (UWord)e->size | kind << 16;
}

static void flush_events(IRSB* sb) {
  Int i = 0;
  while (i < events_used) {
    const Event* e = &events[i];
    IRDirty* di;
    if (e->kind == EV_INS && i + 1 < events_used && events[i + 1].kind != EV_INS && !events[i + 1].guard) {
      const Event* d = &events[i + 1];
      IRExpr** args = mkIRExprVec_4(e->addr, mkIRExpr_HWord((HWord)e->size), d->addr, mkIRExpr_HWord(size_kind(d)));
      di = unsafeIRDirty_0_N(3, "tg_ins_data", VG_(fnptr_to_fnentry)(tg_ins_data), args);
      i += 2;
    } else if (e->kind == EV_INS) {
      IRExpr** args = mkIRExprVec_2(e->addr, mkIRExpr_HWord((HWord)e->size));
      di = unsafeIRDirty_0_N(2, "tg_ins", VG_(fnptr_to_fnentry)(tg_ins), args);
      i += 1;
    } else {
      IRExpr** args = mkIRExprVec_2(e->addr, mkIRExpr_HWord(size_kind(e)));
      di = unsafeIRDirty_0_N(2, "tg_data", VG_(fnptr_to_fnentry)(tg_data), args);
      if (e->guard) di->guard = e->guard;
      i += 1;
    }
    addStmtToIRSB(sb, IRStmt_Dirty(di));
  }
  events_used = 0;
}

static void add_event(IRSB* sb, EventKind kind, IRExpr* addr, Int size, IRExpr* guard) {
  if (events_used == N_EVENTS) flush_events(sb);
  events[events_used] = (Event){.kind = kind, .addr = addr, .size = size, .guard = guard};
  ++events_used;
}

static void add_ins(IRSB* sb, IRExpr* ip, Int size) { add_event(sb, EV_INS, ip, size, NULL); }

static void add_load(IRSB* sb, IRExpr* addr, Int size, IRExpr* guard) {
  add_event(sb, EV_LOAD, addr, size, guard);
}

/* A store of what the event before loaded, same address and size: a
   modify (Lackey's 'M'). */
static void add_store(IRSB* sb, IRExpr* addr, Int size, IRExpr* guard) {
  if (!guard && events_used > 0) {
    Event* last = &events[events_used - 1];
    if (last->kind == EV_LOAD && !last->guard && last->size == size && eqIRAtom(last->addr, addr)) {
      last->kind = EV_MODIFY;
      return;
    }
  }
  add_event(sb, EV_STORE, addr, size, guard);
}

/* The instruction of the mark at `mark`: its size, and in the top 3 bits
   the conditional exits its translation kept, the side exits that
   Cachegrind counts as conditional branches (Boring, Call, Ret: not the
   exits to signals, emulation warnings or the like). The tool sees the
   superblock after VEX's first optimisation, as Cachegrind does: an exit
   whose guard the optimiser decided is gone (`mov $52,%ecx; rep stosq` in
   one superblock: the first iteration's exit on rcx == 0 folds to false
   and is removed; were rcx 0, it would become the superblock's end), and
   the instruction runs no conditional branch there for Cachegrind,
   though the classifier, seeing only its bytes, expects one. */
static Int size_exits(const IRSB* in, Int mark) {
  Int len = (Int)in->stmts[mark]->Ist.IMark.len;
  Int exits = 0;
  for (Int j = mark + 1; j < in->stmts_used; ++j) {
    const IRStmt* st = in->stmts[j];
    if (st && st->tag == Ist_IMark) break;
    if (!st || st->tag != Ist_Exit) continue;
    IRJumpKind jk = st->Ist.Exit.jk;
    exits += jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret;
  }
  tl_assert(len < 32); /* an x86 instruction is at most 15 bytes */
  return len | (exits < 7 ? exits : 7) << 5;
}

static IRSB* tg_instrument(VgCallbackClosure* closure, IRSB* in, const VexGuestLayout* layout,
                           const VexGuestExtents* vge, const VexArchInfo* archinfo, IRType gWordTy,
                           IRType hWordTy) {
  (void)closure;
  (void)layout;
  (void)vge;
  (void)archinfo;
  if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
  IRTypeEnv* tyenv = in->tyenv;
  IRSB* out = deepCopyIRSBExceptStmts(in);
  Int i = 0;
  /* The preamble before the first instruction mark, as it is. */
  for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; ++i) addStmtToIRSB(out, in->stmts[i]);
  events_used = 0;
  for (; i < in->stmts_used; ++i) {
    IRStmt* st = in->stmts[i];
    if (!st || st->tag == Ist_NoOp) continue;
    switch (st->tag) {
      case Ist_IMark:
        add_ins(out, mkIRExpr_HWord((HWord)st->Ist.IMark.addr), size_exits(in, i));
        break;
      case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
          IRExpr* e = st->Ist.WrTmp.data;
          add_load(out, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), NULL);
        }
        break;
      case Ist_Store:
        add_store(out, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)), NULL);
        break;
      case Ist_StoreG: {
        IRStoreG* sg = st->Ist.StoreG.details;
        add_store(out, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard);
        break;
      }
      case Ist_LoadG: {
        IRLoadG* lg = st->Ist.LoadG.details;
        IRType type = Ity_INVALID, widened = Ity_INVALID;
        typeOfIRLoadGOp(lg->cvt, &widened, &type);
        add_load(out, lg->addr, sizeofIRType(type), lg->guard);
        break;
      }
      case Ist_Dirty: {
        IRDirty* d = st->Ist.Dirty.details;
        if (d->mFx != Ifx_None) {
          if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) add_load(out, d->mAddr, d->mSize, NULL);
          if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) add_store(out, d->mAddr, d->mSize, NULL);
        }
        break;
      }
      case Ist_CAS: {
        IRCAS* cas = st->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
        if (cas->dataHi) size *= 2; /* a doubleword CAS */
        add_load(out, cas->addr, size, NULL);
        add_store(out, cas->addr, size, NULL);
        break;
      }
      case Ist_LLSC: {
        IRType type;
        if (st->Ist.LLSC.storedata == NULL) {
          type = typeOfIRTemp(tyenv, st->Ist.LLSC.result);
          add_load(out, st->Ist.LLSC.addr, sizeofIRType(type), NULL);
        } else {
          type = typeOfIRExpr(tyenv, st->Ist.LLSC.storedata);
          add_store(out, st->Ist.LLSC.addr, sizeofIRType(type), NULL);
        }
        break;
      }
      case Ist_Exit:
        /* What happened before a side exit is written before it is taken. */
        flush_events(out);
        break;
      default: break;
    }
    addStmtToIRSB(out, st);
  }
  flush_events(out);
  return out;
}

/* --- start and end --------------------------------------------------------- */

static void tg_post_clo_init(void) {
  if (clo_fd < 0) VG_(fmsg_bad_option)("--tagop-fd", "tagop's tool needs the descriptor of its trace pipe\n");
  pid = (UInt)VG_(getpid)();
  current_tid = frame_tid = (UInt)VG_(gettid)();
  program_start();
}

static void tg_fini(Int exitcode) {
  (void)exitcode;
  flush();
}

static void tg_pre_clo_init(void) {
  VG_(details_name)("tagop");
  VG_(details_version)(NULL);
  VG_(details_description)("tagop emulate's instruction and memory trace");
  VG_(details_copyright_author)("tagop");
  VG_(details_bug_reports_to)("tagop");
  VG_(details_avg_translation_sizeB)(200);

  VG_(basic_tool_funcs)(tg_post_clo_init, tg_instrument, tg_fini);
  VG_(needs_command_line_options)(tg_process_cmd_line_option, tg_print_usage, tg_print_debug_usage);
  VG_(needs_syscall_wrapper)(tg_pre_syscall, tg_post_syscall);
  VG_(track_start_client_code)(tg_start_client_code);
  VG_(track_new_mem_startup)(tg_new_mem_startup);
  VG_(track_new_mem_mmap)(tg_new_mem_mmap);
  VG_(track_change_mem_mprotect)(tg_mprotect);
  VG_(atfork)(tg_atfork_pre, NULL, tg_atfork_child);
}

VG_DETERMINE_INTERFACE_VERSION(tg_pre_clo_init)
