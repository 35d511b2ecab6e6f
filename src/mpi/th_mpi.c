/*
** th_mpi.c: MPI's life cycle for Lua: init, rank, size, barrier, abort,
** finalize. Invariant: once mpi.init() ran, the process ends through
** MPI_Finalize or MPI_Abort, chosen by its exit status (on_exit):
** - status 0 (the script ran to its end, or os.exit(true)): MPI_Finalize,
**   as mpi4py does, when the script did not call mpi.finalize() itself;
** - any other status (a Lua error: the interpreter printed it and exits 1):
**   MPI_Abort, so the whole job ends at once and the other ranks never wait
**   in a collective for a peer that is gone.
** MPI_Finalize waits for every rank to finalize. A rank that exits normally
** while another still waits in a collective this one never called (the
** ranks ran different numbers of steps) would wait forever: a watchdog
** (alarm) ends this rank after TH_MPI_FINALIZE_TIMEOUT seconds (default
** 300, 0 = wait forever), which makes mpirun end the job.
*/
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <lauxlib.h>
#include "th_mpi.h"

static int rank_ = -1, size_ = 0;
static int finalized_ = 0;

void th_mpi_check(lua_State *L, int rc, const char *fname) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (rc == MPI_SUCCESS) return;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = snprintf(msg, sizeof msg, "MPI error %d", rc);
  msg[len < (int)sizeof msg ? len : (int)sizeof msg - 1] = '\0';
  luaL_error(L, "%s: %s", fname, msg);
}

void th_mpi_need(lua_State *L, const char *fname) {
  if (rank_ < 0) luaL_error(L, "%s: call mpi.init() first", fname);
  if (finalized_) luaL_error(L, "%s: MPI was finalized (mpi.finalize() ran)", fname);
}

int th_mpi_rank(void) { return rank_; }
int th_mpi_size(void) { return size_; }

/* the finalize watchdog fired: the other ranks did not finalize in time */
static void finalize_timeout(int sig) {
  static const char msg[] = "mpi: the other ranks did not finish within TH_MPI_FINALIZE_TIMEOUT seconds of this "
                            "rank's normal exit (one still waits in a collective this rank never called?): "
                            "ending the job\n";
  (void)sig;
  if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
  _exit(1);
}

static unsigned finalize_seconds(void) {
  const char *s = getenv("TH_MPI_FINALIZE_TIMEOUT");
  char *end;
  long v;
  if (!s || !*s) return 300;
  v = strtol(s, &end, 10);
  return (*end || v < 0) ? 300 : (unsigned)(v > 86400 ? 86400 : v);
}

/* MPI_Finalize under the watchdog (the file head) */
static int finalize_guarded(void) {
  unsigned secs = finalize_seconds();
  int rc;
  finalized_ = 1;
  if (secs > 0) {
    signal(SIGALRM, finalize_timeout);
    alarm(secs);
  }
  rc = MPI_Finalize();
  alarm(0);
  return rc;
}

/* exit without mpi.finalize(): finalize when the script ended well, abort
   the job when it ended on an error */
static void at_exit(int status, void *arg) {
  (void)arg;
  if (rank_ < 0 || finalized_) return;
  if (status != 0) {
    fprintf(stderr, "mpi: rank %d of %d exits without mpi.finalize() (the error above?): "
                    "aborting the job\n", rank_, size_);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
    return;
  }
  finalize_guarded();
}

/* Open MPI loads its components with dlopen and they expect libmpi's
   symbols to be global; Lua loaded us (and so libmpi) RTLD_LOCAL. */
static void promote_libmpi(void) {
  const char *names[] = {"libmpi.so.40", "libmpi.so", NULL};
  int i;
  for (i = 0; names[i]; i++)
    if (dlopen(names[i], RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD)) return;
}

static int l_init(lua_State *L) {
  int inited = 0, provided = 0;
  if (finalized_) return luaL_error(L, "mpi.init: MPI was finalized and cannot start again");
  if (rank_ < 0) {
    MPI_Initialized(&inited);
    if (!inited) {
      promote_libmpi();
      /* a rank waiting in MPI polls; on a machine with other work (or
         ranks sharing cores) it should give its time slice away while it
         does, as blocking waits would. The environment's choice wins. */
      setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
      /* the nonblocking allreduce of gradient buckets (megabytes): libnbc's
         ring (reduce-scatter then allgather) ran it in half the time of
         its default choice on 2 ranks, as fast as the blocking one */
      setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", 0);
      th_mpi_check(L, MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided), "mpi.init");
    }
    /* errors come back as codes (then Lua errors), never abort silently */
    th_mpi_check(L, MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "mpi.init");
    th_mpi_check(L, MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "mpi.init");
    th_mpi_check(L, MPI_Comm_size(MPI_COMM_WORLD, &size_), "mpi.init");
    if (on_exit(at_exit, NULL) != 0) return luaL_error(L, "mpi.init: on_exit failed");
  }
  lua_pushinteger(L, rank_);
  lua_pushinteger(L, size_);
  return 2;
}

static int l_initialized(lua_State *L) {
  lua_pushboolean(L, rank_ >= 0 && !finalized_);
  return 1;
}

static int l_rank(lua_State *L) {
  th_mpi_need(L, "mpi.rank");
  lua_pushinteger(L, rank_);
  return 1;
}

static int l_size(lua_State *L) {
  th_mpi_need(L, "mpi.size");
  lua_pushinteger(L, size_);
  return 1;
}

static int l_barrier(lua_State *L) {
  th_mpi_need(L, "mpi.barrier");
  th_mpi_check(L, MPI_Barrier(MPI_COMM_WORLD), "mpi.barrier");
  return 0;
}

static int l_wtime(lua_State *L) {
  lua_pushnumber(L, MPI_Wtime());
  return 1;
}

static int l_finalize(lua_State *L) {
  if (rank_ < 0 || finalized_) return 0;
  th_mpi_check(L, finalize_guarded(), "mpi.finalize");
  return 0;
}

/* mpi.abort([message [, code]]): message on stderr, then the whole job ends */
static int l_abort(lua_State *L) {
  const char *msg = luaL_optstring(L, 1, "mpi.abort called");
  int code = (int)luaL_optinteger(L, 2, 1);
  fprintf(stderr, "mpi: rank %d aborts the job: %s\n", rank_, msg);
  fflush(stderr);
  if (rank_ < 0 || finalized_) exit(code);
  finalized_ = 1;  /* at_exit has nothing more to do */
  MPI_Abort(MPI_COMM_WORLD, code);
  return 0;
}

static const luaL_Reg funcs[] = {
  {"init", l_init}, {"initialized", l_initialized}, {"rank", l_rank}, {"size", l_size},
  {"barrier", l_barrier}, {"wtime", l_wtime}, {"finalize", l_finalize}, {"abort", l_abort},
  {NULL, NULL}
};

int luaopen_mpi_core(lua_State *L);
int luaopen_mpi_core(lua_State *L) {
  luaL_newlib(L, funcs);
  th_mpi_open_coll(L);
  return 1;
}
