/*
** th_map_guard.c: the SIGBUS guard of shared file mappings (see the
** header). The registry is a fixed table: the signal handler reads it
** without a lock (a slot is published by storing its start last, with
** release order), so it never sees a half-written slot and never
** allocates. Registration and removal take a mutex among themselves.
** Only shared mappings are guarded: private storages read their file at
** construction (th_storage_map.c) and cannot fault.
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "th_error.h"
#include "th_map_guard.h"

typedef struct slot {
  uintptr_t start;    /* 0: free (atomic: the handler reads it) */
  size_t len;
  void *owner;
  char *filename;
  size_t cut;         /* bytes still mapped from the file after a fault */
  int faults;         /* atomic: counted by the handler */
  int reported;       /* faults reported */
} slot;

static slot slots[TH_MAP_GUARD_SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous;
static int installed;
static uintptr_t pagemask;
static void (*notify)(void *owner);

/* a SIGBUS outside our mappings: what would have happened without us */
static void chain(int sig, siginfo_t *si, void *ctx) {
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, si, ctx);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
  } else {
    /* returning re-runs the access, which now gets the default action */
    sigaction(SIGBUS, &previous, NULL);
  }
}

/* the file behind s->start shrank: zero pages from the first one past
   its new end (stat is async-signal-safe; the faulting page if the name
   now names another file) to the end of the mapping, so the access
   completes and no other page of the mapping can fault again */
static int patch(slot *s, uintptr_t addr) {
  uintptr_t page = addr & pagemask;
  struct stat st;
  if (stat(s->filename, &st) == 0 && st.st_size >= 0) {
    uintptr_t end = ((uintptr_t)st.st_size + ~pagemask) & pagemask;
    if (end < page - s->start) page = s->start + end;
  }
  if (mmap((void *)page, s->start + s->len - page, PROT_READ | PROT_WRITE,
           MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
    return 0;
  if (page - s->start < s->cut) s->cut = page - s->start;
  __atomic_add_fetch(&s->faults, 1, __ATOMIC_RELEASE);
  return 1;
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx) {
  uintptr_t addr = (uintptr_t)si->si_addr;
  int i;
  for (i = 0; i < TH_MAP_GUARD_SLOTS; i++) {
    slot *s = &slots[i];
    uintptr_t start = __atomic_load_n(&s->start, __ATOMIC_ACQUIRE);
    if (start == 0 || addr < start || addr - start >= s->len) continue;
    if (!patch(s, addr)) break;
    if (notify != NULL && s->owner != NULL) notify(s->owner);
    return;
  }
  chain(sig, si, ctx);
}

static int install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  pagemask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
  if (sigaction(SIGBUS, &sa, &previous) != 0) return th_error_set("cannot install the SIGBUS guard of shared mappings");
  installed = 1;
  return TH_OK;
}

int th_map_guard_add(void *data, size_t bytes, const char *filename) {
  int i, rc = TH_OK;
  char *copy = strdup(filename);
  if (copy == NULL) return th_error_set("out of memory mapping '%s'", filename);
  pthread_mutex_lock(&lock);
  if (!installed) rc = install();
  for (i = 0; rc == TH_OK && i < TH_MAP_GUARD_SLOTS; i++) {
    slot *s = &slots[i];
    if (__atomic_load_n(&s->start, __ATOMIC_RELAXED) != 0) continue;
    s->len = bytes;
    s->owner = NULL;
    s->filename = copy;
    s->cut = bytes;
    s->faults = 0;
    s->reported = 0;
    __atomic_store_n(&s->start, (uintptr_t)data, __ATOMIC_RELEASE);
    break;
  }
  if (rc == TH_OK && i == TH_MAP_GUARD_SLOTS)
    rc = th_error_set("cannot map '%s' shared: %d shared mappings are alive already", filename, TH_MAP_GUARD_SLOTS);
  pthread_mutex_unlock(&lock);
  if (rc != TH_OK) free(copy);
  return rc;
}

static slot *find(void *data) {
  int i;
  for (i = 0; i < TH_MAP_GUARD_SLOTS; i++)
    if (__atomic_load_n(&slots[i].start, __ATOMIC_RELAXED) == (uintptr_t)data) return &slots[i];
  return NULL;
}

void th_map_guard_remove(void *data) {
  slot *s;
  pthread_mutex_lock(&lock);
  s = find(data);
  if (s != NULL) {
    __atomic_store_n(&s->start, 0, __ATOMIC_RELEASE);
    free(s->filename);
    s->filename = NULL;
  }
  pthread_mutex_unlock(&lock);
}

void th_map_guard_set_owner(void *data, void *owner) {
  slot *s;
  pthread_mutex_lock(&lock);
  s = find(data);
  if (s != NULL) s->owner = owner;
  pthread_mutex_unlock(&lock);
}

void th_map_guard_set_notify(void (*fn)(void *owner)) {
  notify = fn;
}

int th_map_guard_report(void *owner) {
  int i, found = 0;
  pthread_mutex_lock(&lock);
  /* one error says the first; the others pending for this owner are
     counted as said (the error unwinds the call that met them all) */
  for (i = 0; i < TH_MAP_GUARD_SLOTS; i++) {
    slot *s = &slots[i];
    struct stat st;
    char now[48] = "";
    int faults = __atomic_load_n(&s->faults, __ATOMIC_ACQUIRE);
    if (s->start == 0 || s->owner != owner || s->reported == faults) continue;
    s->reported = faults;
    if (found++) continue;
    if (stat(s->filename, &st) == 0) snprintf(now, sizeof now, " to %lld bytes", (long long)st.st_size);
    th_error_set("the file '%s' mapped shared (%zu bytes) was cut%s while mapped: "
                 "the storage's bytes from byte %zu on now read 0 and no longer reach the file",
                 s->filename, s->len, now, s->cut);
  }
  pthread_mutex_unlock(&lock);
  return found > 0;
}
