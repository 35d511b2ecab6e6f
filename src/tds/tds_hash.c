/*
** tds_hash.c: the hash table behind tds.Hash. Open addressing with linear
** probing over a power-of-two slot array; removed keys leave tombstones
** (TDS_DEAD) so that neither a lookup chain nor a running iteration is
** broken by a removal. The table grows (or compacts, dropping tombstones)
** only on insertion, when live keys + tombstones pass 3/4 of the slots.
*/
#include <string.h>
#include "tds.h"

tds_hash *tds_hash_new(void) {
  tds_hash *h = tds_mem_alloc(sizeof *h);
  if (h == NULL) return NULL;
  tds_obj_init(&h->hdr, TDS_HASH);
  h->slots = NULL;
  h->cap = h->count = h->used = 0;
  return h;
}

size_t tds_hash_size(const tds_hash *h) { return h->count; }

/* the slot holding key, or NULL */
static tds_hash_slot *find(const tds_hash *h, const tds_elem *key, uint64_t hv) {
  size_t mask, i;
  if (h->cap == 0) return NULL;
  mask = h->cap - 1;
  for (i = hv & mask;; i = (i + 1) & mask) {
    tds_hash_slot *s = &h->slots[i];
    if (s->key.type == TDS_NIL) return NULL;
    if (s->hash == hv && s->key.type != TDS_DEAD && tds_elem_equal(&s->key, key)) return s;
  }
}

const tds_elem *tds_hash_get(const tds_hash *h, const tds_elem *key) {
  tds_hash_slot *s = find(h, key, tds_elem_hash(key));
  return s ? &s->val : NULL;
}

/* moves every live entry into a new array of 'cap' slots */
static int rehash(tds_hash *h, size_t cap) {
  tds_hash_slot *slots = tds_mem_alloc(cap * sizeof *slots);
  size_t i, mask = cap - 1;
  if (slots == NULL) return -1;
  for (i = 0; i < cap; i++) slots[i].key.type = TDS_NIL;
  for (i = 0; i < h->cap; i++) {
    tds_hash_slot *s = &h->slots[i];
    size_t j;
    if (s->key.type == TDS_NIL || s->key.type == TDS_DEAD) continue;
    for (j = s->hash & mask; slots[j].key.type != TDS_NIL; j = (j + 1) & mask) {}
    slots[j] = *s;
  }
  tds_mem_free(h->slots, h->cap * sizeof *h->slots);
  h->slots = slots;
  h->cap = cap;
  h->used = h->count;
  return 0;
}

int tds_hash_set(tds_hash *h, const tds_elem *key, tds_elem *val) {
  uint64_t hv = tds_elem_hash(key);
  tds_hash_slot *s = find(h, key, hv);
  size_t mask, i;
  tds_elem owned;
  if (s != NULL) {  /* replace the value; the stored key stays */
    tds_elem_clear(&s->val);
    s->val = *val;
    return 0;
  }
  if ((h->used + 1) * 4 > h->cap * 3) {
    size_t cap = 8;
    while (cap * 3 < (h->count + 1) * 2 * 4) cap *= 2;  /* at most 3/8 full after the rehash */
    if (cap > SIZE_MAX / sizeof(tds_hash_slot) || rehash(h, cap) != 0) return -1;
  }
  if (tds_elem_copy(&owned, key) != 0) return -1;
  mask = h->cap - 1;
  /* the first free slot of the chain: a tombstone is reused */
  for (i = hv & mask; h->slots[i].key.type != TDS_NIL && h->slots[i].key.type != TDS_DEAD; i = (i + 1) & mask) {}
  s = &h->slots[i];
  if (s->key.type == TDS_NIL) h->used++;
  s->key = owned;
  s->val = *val;
  s->hash = hv;
  h->count++;
  return 0;
}

void tds_hash_remove(tds_hash *h, const tds_elem *key) {
  tds_hash_slot *s = find(h, key, tds_elem_hash(key));
  if (s == NULL) return;
  tds_elem_clear(&s->key);
  tds_elem_clear(&s->val);
  s->key.type = TDS_DEAD;
  h->count--;
}

const tds_hash_slot *tds_hash_next(const tds_hash *h, size_t *pos) {
  size_t i;
  for (i = *pos; i < h->cap; i++) {
    const tds_hash_slot *s = &h->slots[i];
    if (s->key.type != TDS_NIL && s->key.type != TDS_DEAD) {
      *pos = i + 1;
      return s;
    }
  }
  *pos = h->cap;
  return NULL;
}

void tds_hash_destroy(tds_hash *h, tds_obj **dead) {
  size_t i;
  for (i = 0; i < h->cap; i++) {
    tds_hash_slot *s = &h->slots[i];
    if (s->key.type == TDS_NIL || s->key.type == TDS_DEAD) continue;
    tds_elem_clear_into(&s->key, dead);
    tds_elem_clear_into(&s->val, dead);
  }
  tds_mem_free(h->slots, h->cap * sizeof *h->slots);
  tds_mem_free(h, sizeof *h);
}
