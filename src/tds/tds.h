/*
** tds.h: the containers of the tds package: a hash table and a vector of
** tds_elem (tds_elem.h), and an atomic counter. Plain C: no Lua here (the
** binding is tds_lua.c). Functions returning int give 0 on success and -1
** when memory ran out, leaving the container as it was.
** Indices are 0-based.
*/
#ifndef TDS_H
#define TDS_H

#include "tds_elem.h"

/* --- hash: open addressing, linear probing, tombstones for removed keys.
   A removal never moves an entry, so an iteration survives removals of the
   keys it has passed or is at (Lua's rule for next); an insertion may
   rehash and is undefined during an iteration, as for Lua tables. --- */
typedef struct tds_hash_slot {
  tds_elem key, val;  /* key TDS_NIL: never used; TDS_DEAD: removed */
  uint64_t hash;
} tds_hash_slot;

typedef struct tds_hash {
  tds_obj hdr;
  tds_hash_slot *slots;
  size_t cap;   /* 0 or a power of two */
  size_t count; /* live keys */
  size_t used;  /* live keys + tombstones */
} tds_hash;

tds_hash *tds_hash_new(void);
size_t tds_hash_size(const tds_hash *h);
/* the value at key, or NULL */
const tds_elem *tds_hash_get(const tds_hash *h, const tds_elem *key);
/* stores val at key: 'key' is borrowed (a new key is copied in), 'val'
   is owned and moves into the hash on success (on failure it is still the
   caller's). An existing key's old value is freed. */
int tds_hash_set(tds_hash *h, const tds_elem *key, tds_elem *val);
/* removes key if present */
void tds_hash_remove(tds_hash *h, const tds_elem *key);
/* the next live slot at or after *pos (advancing *pos past it), or NULL at the end */
const tds_hash_slot *tds_hash_next(const tds_hash *h, size_t *pos);

/* --- vec: a growable array of elements, nil included --- */
typedef struct tds_vec {
  tds_obj hdr;
  tds_elem *data;
  size_t size, cap;
} tds_vec;

tds_vec *tds_vec_new(void);
/* grows with nils or shrinks (freeing the dropped elements) */
int tds_vec_resize(tds_vec *v, size_t size);
/* moves val into slot idx, growing with nils when idx >= size */
int tds_vec_set(tds_vec *v, size_t idx, tds_elem *val);
/* moves val in before idx (idx >= size: at idx, growing with nils) */
int tds_vec_insert(tds_vec *v, size_t idx, tds_elem *val);
/* moves element idx out into *out (nil beyond the end) and closes the gap */
void tds_vec_remove(tds_vec *v, size_t idx, tds_elem *out);
/* reorders the elements: slot i receives the element at perm[i] (a permutation of 0..size-1) */
int tds_vec_permute(tds_vec *v, const size_t *perm);

/* --- atomic counter --- */
typedef struct tds_atomic {
  tds_obj hdr;
  atomic_llong value;
} tds_atomic;

tds_atomic *tds_atomic_new(void);
/* adds one; returns the value before (Torch7's tds: THAtomicAddLong) */
int64_t tds_atomic_inc(tds_atomic *a);
int64_t tds_atomic_get(tds_atomic *a);
void tds_atomic_set(tds_atomic *a, int64_t value);
/* starts 'nthreads' (1..64) threads that each call tds_atomic_inc 'n' times
   and waits for them: the spec's check of atomicity; -1 if a thread could
   not start (the others still ran) */
int tds_atomic_selftest(tds_atomic *a, int nthreads, int64_t n);

/* --- for tds_elem.c: frees a dead container's contents, queuing the
   containers that die with it on *dead instead of recursing --- */
void tds_elem_clear_into(tds_elem *e, tds_obj **dead);
void tds_obj_drop_into(tds_obj *o, tds_obj **dead);
void tds_hash_destroy(tds_hash *h, tds_obj **dead);
void tds_vec_destroy(tds_vec *v, tds_obj **dead);

#endif
