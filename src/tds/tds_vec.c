/*
** tds_vec.c: the growable element array behind tds.Vec. Slots past 'size'
** up to 'cap' are unused; slots below 'size' are owned elements, nil
** included (a vector has no holes: nil is a value). Growth is by 1.5x.
*/
#include <string.h>
#include "tds.h"

tds_vec *tds_vec_new(void) {
  tds_vec *v = tds_mem_alloc(sizeof *v);
  if (v == NULL) return NULL;
  tds_obj_init(&v->hdr, TDS_VEC);
  v->data = NULL;
  v->size = v->cap = 0;
  return v;
}

static int reserve(tds_vec *v, size_t n) {
  size_t cap;
  tds_elem *data;
  if (n <= v->cap) return 0;
  cap = v->cap + v->cap / 2;
  if (cap < n) cap = n;
  if (cap < 4) cap = 4;
  if (cap > SIZE_MAX / sizeof(tds_elem)) return -1;
  data = tds_mem_realloc(v->data, v->cap * sizeof(tds_elem), cap * sizeof(tds_elem));
  if (data == NULL) return -1;
  v->data = data;
  v->cap = cap;
  return 0;
}

int tds_vec_resize(tds_vec *v, size_t size) {
  size_t k;
  if (size > v->size) {
    if (reserve(v, size) != 0) return -1;
    for (k = v->size; k < size; k++) v->data[k].type = TDS_NIL;
    v->size = size;
  } else {
    /* shrink first, then free: a freed element cannot see a half-dropped tail */
    size_t old = v->size;
    v->size = size;
    for (k = size; k < old; k++) tds_elem_clear(&v->data[k]);
  }
  return 0;
}

int tds_vec_set(tds_vec *v, size_t idx, tds_elem *val) {
  tds_elem old;
  if (idx >= v->size && tds_vec_resize(v, idx + 1) != 0) return -1;
  old = v->data[idx];
  v->data[idx] = *val;
  tds_elem_clear(&old);
  return 0;
}

int tds_vec_insert(tds_vec *v, size_t idx, tds_elem *val) {
  if (idx >= v->size) return tds_vec_set(v, idx, val);
  if (v->size == SIZE_MAX || reserve(v, v->size + 1) != 0) return -1;
  memmove(v->data + idx + 1, v->data + idx, (v->size - idx) * sizeof(tds_elem));
  v->data[idx] = *val;
  v->size++;
  return 0;
}

void tds_vec_remove(tds_vec *v, size_t idx, tds_elem *out) {
  if (idx >= v->size) { out->type = TDS_NIL; return; }
  *out = v->data[idx];
  memmove(v->data + idx, v->data + idx + 1, (v->size - idx - 1) * sizeof(tds_elem));
  v->size--;
}

int tds_vec_permute(tds_vec *v, const size_t *perm) {
  tds_elem *data;
  size_t i;
  if (v->size == 0) return 0;
  data = tds_mem_alloc(v->cap * sizeof(tds_elem));
  if (data == NULL) return -1;
  for (i = 0; i < v->size; i++) data[i] = v->data[perm[i]];
  tds_mem_free(v->data, v->cap * sizeof(tds_elem));
  v->data = data;
  return 0;
}

void tds_vec_destroy(tds_vec *v, tds_obj **dead) {
  size_t k;
  for (k = 0; k < v->size; k++) tds_elem_clear_into(&v->data[k], dead);
  tds_mem_free(v->data, v->cap * sizeof(tds_elem));
  tds_mem_free(v, sizeof *v);
}
