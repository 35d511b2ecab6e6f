/*
** th_lua_readline.c: the th session's line editor (torch._C.readline) and
** its Ctrl-C handling (torch._C.sigint).
** GNU readline is found at run time, never linked: first in the running
** process (Debian's lua5.4 links it), else by loading libreadline.so.8, so
** core.so loads into any host and 'available()' says whether editing is
** there (the session then reads plain lines).
** Lines are read through readline's callback interface around select(),
** so that a Ctrl-C (SIGINT, caught here, never by readline) ends the wait:
** the line is dropped and the caller gets false. Completion calls a Lua
** function kept in the registry with the word before the cursor.
** Invariant: one session per process; completion runs on the thread that
** is inside 'read', the Ctrl-C hook is set on the main thread (as lua.c).
*/
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <readline/readline.h>
#include <readline/history.h>
#include "th_lua.h"

/* readline's functions and variables, resolved once by 'resolve'; typeof
   takes their types from the header without referencing the symbols */
static struct {
  int tried, ok;
  typeof(&rl_callback_handler_install) handler_install;
  typeof(&rl_callback_handler_remove) handler_remove;
  typeof(&rl_callback_read_char) read_char;
  typeof(&rl_free_line_state) free_line_state;
  typeof(&rl_callback_sigcleanup) sigcleanup;
  typeof(&rl_cleanup_after_signal) cleanup_after_signal;
  typeof(&rl_completion_matches) completion_matches;
  typeof(&add_history) add_history;
  typeof(&rl_attempted_completion_function) attempted_completion;
  typeof(&rl_attempted_completion_over) completion_over;
  typeof(&rl_completion_append_character) append_character;
  typeof(&rl_basic_word_break_characters) word_break;
  typeof(&rl_completer_quote_characters) quote_characters;
  typeof(&rl_catch_signals) catch_signals;
  typeof(&rl_catch_sigwinch) catch_sigwinch;
  typeof(&rl_readline_name) readline_name;
  typeof(&rl_line_buffer) line_buffer;
} rl;

static void *sym(void *lib, const char *name, int *missing) {
  void *p = dlsym(lib, name);
  if (p == NULL) *missing = 1;
  return p;
}

/* POSIX's way to turn dlsym's object pointer into a function pointer */
#define SYM(lib, field, name) (*(void **)(&rl.field) = sym(lib, name, &missing))

static int resolve(void) {
  void *lib;
  int missing = 0;
  if (rl.tried) return rl.ok;
  rl.tried = 1;
  lib = dlopen(NULL, RTLD_LAZY);
  if (lib == NULL || dlsym(lib, "rl_callback_read_char") == NULL) {
    if (lib != NULL) dlclose(lib);
    lib = dlopen("libreadline.so.8", RTLD_LAZY | RTLD_GLOBAL);
  }
  if (lib == NULL) return 0;
  SYM(lib, handler_install, "rl_callback_handler_install");
  SYM(lib, handler_remove, "rl_callback_handler_remove");
  SYM(lib, read_char, "rl_callback_read_char");
  SYM(lib, free_line_state, "rl_free_line_state");
  SYM(lib, sigcleanup, "rl_callback_sigcleanup");
  SYM(lib, cleanup_after_signal, "rl_cleanup_after_signal");
  SYM(lib, completion_matches, "rl_completion_matches");
  SYM(lib, add_history, "add_history");
  SYM(lib, attempted_completion, "rl_attempted_completion_function");
  SYM(lib, completion_over, "rl_attempted_completion_over");
  SYM(lib, append_character, "rl_completion_append_character");
  SYM(lib, word_break, "rl_basic_word_break_characters");
  SYM(lib, quote_characters, "rl_completer_quote_characters");
  SYM(lib, catch_signals, "rl_catch_signals");
  SYM(lib, catch_sigwinch, "rl_catch_sigwinch");
  SYM(lib, readline_name, "rl_readline_name");
  SYM(lib, line_buffer, "rl_line_buffer");
  /* the library stays loaded (the process's own, or loaded for good) */
  rl.ok = !missing;
  return rl.ok;
}

/* --- completion ---------------------------------------------------------- */

static lua_State *session;          /* the thread inside 'read' (completion runs there) */
static const char COMPLETER[] = "th.readline.completer";
static int ncand, nextcand;         /* candidates in the registry table */
static const char CANDIDATES[] = "th.readline.candidates";

/* readline's generator: state 0 starts, then one malloc'ed match per call */
static char *generator(const char *text, int state) {
  const char *s;
  char *copy = NULL;
  (void)text;
  if (state == 0) nextcand = 1;
  if (nextcand > ncand) return NULL;
  lua_getfield(session, LUA_REGISTRYINDEX, CANDIDATES);
  lua_rawgeti(session, -1, nextcand++);
  s = lua_tostring(session, -1);
  if (s != NULL) {
    size_t n = strlen(s) + 1;
    copy = malloc(n);   /* readline frees it */
    if (copy != NULL) memcpy(copy, s, n);
  }
  lua_pop(session, 2);
  return copy;
}

static int callcompleter(lua_State *L) {
  const char *text = lua_tostring(L, 1), *before = lua_tostring(L, 2);
  lua_getfield(L, LUA_REGISTRYINDEX, COMPLETER);
  lua_pushstring(L, text);
  lua_pushstring(L, before);
  lua_call(L, 2, 1);
  return 1;
}

/* the Lua completer gets (word, line before the word) and returns a list of
   whole replacements for the word, or nil for readline's file names. An
   error in it completes nothing rather than reaching readline's C frames. */
static char **complete(const char *text, int start, int end) {
  lua_State *L = session;
  int top = lua_gettop(L);
  char **matches = NULL;
  (void)end;
  *rl.completion_over = 1;
  lua_pushcfunction(L, callcompleter);
  lua_pushstring(L, text);
  lua_pushlstring(L, *rl.line_buffer, (size_t)start);
  if (lua_pcall(L, 2, 1, 0) == LUA_OK) {
    if (lua_istable(L, -1)) {
      /* raw: a __len that raises would longjmp through readline's frames */
      ncand = (int)lua_rawlen(L, -1);
      lua_setfield(L, LUA_REGISTRYINDEX, CANDIDATES);
      *rl.append_character = '\0';
      if (ncand > 0) matches = rl.completion_matches(text, generator);
    } else if (lua_isnil(L, -1)) {
      *rl.completion_over = 0;   /* readline completes a file name */
    }
  }
  lua_settop(L, top);
  return matches;
}

/* --- reading a line ------------------------------------------------------ */

static volatile sig_atomic_t interrupted;
static char *gotline;
static int linedone;

static void online(char *line) {
  gotline = line;
  linedone = 1;
  rl.handler_remove();
}

static void onsigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* C.readline.read(prompt) -> line | nil (end of input) | false (Ctrl-C) */
static int rl_read(lua_State *L) {
  const char *prompt = luaL_checkstring(L, 1);
  struct sigaction sa, old;
  int status = 0;   /* 0 reading, 1 line or EOF, 2 interrupted */
  if (!resolve()) return luaL_error(L, "torch._C.readline.read: no GNU readline in this process");
  session = L;   /* the running thread: the completer runs on it, above this call */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onsigint;   /* no SA_RESTART: select() returns EINTR */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  interrupted = 0;
  linedone = 0;
  gotline = NULL;
  *rl.catch_signals = 0;
  rl.handler_install(prompt, online);
  while (status == 0) {
    fd_set fds;
    int n;
    FD_ZERO(&fds);
    FD_SET(STDIN_FILENO, &fds);
    n = select(STDIN_FILENO + 1, &fds, NULL, NULL, NULL);
    if (interrupted) {
      rl.free_line_state();
      rl.sigcleanup();
      rl.cleanup_after_signal();
      rl.handler_remove();
      status = 2;
    } else if (n > 0) {
      rl.read_char();
      if (linedone) status = 1;
    } else if (n < 0 && errno != EINTR) {
      rl.handler_remove();
      status = 1;   /* stdin unusable: end of input */
    }
  }
  sigaction(SIGINT, &old, NULL);
  if (status == 2) {
    fputs("\n", stdout);
    fflush(stdout);
    lua_pushboolean(L, 0);
  } else if (gotline == NULL) {
    lua_pushnil(L);
  } else {
    lua_pushstring(L, gotline);
    free(gotline);
  }
  return 1;
}

/* C.readline.available() -> whether GNU readline was found */
static int rl_available(lua_State *L) {
  lua_pushboolean(L, resolve());
  return 1;
}

/* C.readline.addhistory(line) */
static int rl_addhistory(lua_State *L) {
  const char *line = luaL_checkstring(L, 1);
  if (resolve()) rl.add_history(line);
  return 0;
}

/* C.readline.setcompleter(fn | nil): fn(word, before) -> list | nil; also
   sets what separates words: Lua's operators and brackets, not '.' or ':',
   so 'x:na' and 'a.b.c' reach the completer whole */
static int rl_setcompleter(lua_State *L) {
  static char breaks[] = " \t\n\"\\'`><=;+-*/%^~#&|{}()[],";
  static char quotes[] = "\"'";
  int set = !lua_isnoneornil(L, 1);
  if (set) luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, COMPLETER);
  if (!resolve()) return 0;
  *rl.readline_name = "th";
  *rl.word_break = breaks;
  *rl.quote_characters = quotes;
  *rl.attempted_completion = set ? complete : NULL;
  return 0;
}

/* --- Ctrl-C while a statement runs ------------------------------------- */

static lua_State *running;   /* main thread while armed */

static void stophook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  luaL_error(L, "interrupted!");
}

/* as lua.c: the handler only sets a hook (safe in a signal handler) that
   raises at the next Lua instruction; a second Ctrl-C before that (a long
   C call) gets the default action and ends the process */
static void onsigint_run(int sig) {
  signal(sig, SIG_DFL);
  lua_sethook(running, stophook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* C.sigint(true | false): Ctrl-C interrupts the running statement with the
   error "interrupted!" (true), or has its default action again (false) */
static int sys_sigint(lua_State *L) {
  luaL_checktype(L, 1, LUA_TBOOLEAN);
  if (lua_toboolean(L, 1)) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    running = lua_tothread(L, -1);
    lua_pop(L, 1);
    signal(SIGINT, onsigint_run);
  } else {
    signal(SIGINT, SIG_DFL);
    if (running != NULL) lua_sethook(running, NULL, 0, 0);
  }
  return 0;
}

static const luaL_Reg rl_funcs[] = {
    {"read", rl_read}, {"available", rl_available}, {"addhistory", rl_addhistory},
    {"setcompleter", rl_setcompleter}, {NULL, NULL}};

void th_lua_open_readline(lua_State *L, int C) {
  C = lua_absindex(L, C);
  lua_newtable(L);
  luaL_setfuncs(L, rl_funcs, 0);
  lua_setfield(L, C, "readline");
  lua_pushcfunction(L, sys_sigint);
  lua_setfield(L, C, "sigint");
}
