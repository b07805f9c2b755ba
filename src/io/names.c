/* The loader's name tables: an open-addressing hash (linear probing, FNV-1a, at most half
 * full) from a name to an int, so that finding a link or a joint by name and refusing a
 * duplicate cost O(1) and a file loads in time linear in its links and joints. Keys are
 * borrowed: they point into the document, which outlives the table. */
#include "io/io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of key: where it is, or the empty slot where it would go (cap a power of 2, never
   full). */
static io_name_slot *slot_of(const io_names *t, const char *key)
{
    size_t i = (size_t)fnv1a(key) & (size_t)(t->cap - 1);
    while (t->slots[i].key && strcmp(t->slots[i].key, key)) i = (i + 1) & (size_t)(t->cap - 1);
    return &t->slots[i];
}

/* Double the table (or make its first 64 slots); -1 out of memory. */
static int grow(io_names *t)
{
    if (t->cap > (1 << 29)) return -1;
    const int cap = t->cap ? 2 * t->cap : 64;
    io_names bigger = {calloc((size_t)cap, sizeof(io_name_slot)), cap, t->n};
    if (!bigger.slots) return -1;
    for (int i = 0; i < t->cap; ++i)
        if (t->slots[i].key) *slot_of(&bigger, t->slots[i].key) = t->slots[i];
    free(t->slots);
    *t = bigger;
    return 0;
}

int io_names_find(const io_names *t, const char *key)
{
    if (!t->cap) return -1;
    const io_name_slot *s = slot_of(t, key);
    return s->key ? s->value : -1;
}

int io_names_add(io_names *t, const char *key, int value)
{
    if (2 * (t->n + 1) > t->cap && grow(t) != 0) return -1;
    io_name_slot *s = slot_of(t, key);
    if (s->key) return 0;
    s->key = key, s->value = value;
    t->n++;
    return 1;
}

void io_names_free(io_names *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
