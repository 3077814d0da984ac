#include "hash_table.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SLOTS 64

static uint64_t key_at(const unsigned char *entry)
{
    uint64_t k;
    memcpy(&k, entry, sizeof k);
    return k;
}

/* The slot holding key, or the free one where it would go. */
static unsigned char *slot_of(unsigned char *slots, size_t cap, size_t size, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h ^ (h >> 29)) & (cap - 1);
    for (;;) {
        unsigned char *e = slots + i * size;
        uint64_t k = key_at(e);
        if (k == key || k == HASH_TABLE_FREE)
            return e;
        i = (i + 1) & (cap - 1);
    }
}

static void mark_free(unsigned char *slots, size_t cap, size_t size)
{
    uint64_t free_key = HASH_TABLE_FREE;
    for (size_t i = 0; i < cap; i++)
        memcpy(slots + i * size, &free_key, sizeof free_key);
}

void hash_table_init(hash_table *t, size_t entry_size)
{
    *t = (hash_table){.entry_size = entry_size};
}

void hash_table_free(hash_table *t)
{
    free(t->slots);
    hash_table_init(t, t->entry_size);
}

void *hash_table_find(const hash_table *t, uint64_t key)
{
    if (!t->cap)
        return NULL;
    unsigned char *e = slot_of(t->slots, t->cap, t->entry_size, key);
    return key_at(e) == key ? e : NULL;
}

/* Twice the slots once the next entry would fill more than half. */
int hash_table_reserve(hash_table *t, sam_error *err)
{
    if (2 * (t->used + 1) <= t->cap)
        return 0;
    size_t cap = t->cap ? 2 * t->cap : FIRST_SLOTS, size = t->entry_size;
    unsigned char *slots = malloc(cap * size);
    if (!slots)
        return error_set(err, "out of memory");
    mark_free(slots, cap, size);
    for (size_t i = 0; i < t->cap; i++) {
        const unsigned char *e = t->slots + i * size;
        if (key_at(e) != HASH_TABLE_FREE)
            memcpy(slot_of(slots, cap, size, key_at(e)), e, size);
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

void *hash_table_add(hash_table *t, uint64_t key, int *added, sam_error *err)
{
    unsigned char *e = hash_table_find(t, key);
    *added = e == NULL;
    if (e)
        return e;
    if (hash_table_reserve(t, err))
        return NULL;
    e = slot_of(t->slots, t->cap, t->entry_size, key);
    memset(e, 0, t->entry_size);
    memcpy(e, &key, sizeof key);
    t->used++;
    return e;
}

void *hash_table_slot(const hash_table *t, size_t i)
{
    unsigned char *e = t->slots + i * t->entry_size;
    return key_at(e) == HASH_TABLE_FREE ? NULL : e;
}
