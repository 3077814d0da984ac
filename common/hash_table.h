/* An open-addressing hash table of fixed-size entries, each beginning
 * with its 64-bit key (an int64_t or uint64_t member first): linear
 * probing from a mixed key, the table doubled once half full. The key
 * HASH_TABLE_FREE (as an int64_t, -1) marks a free slot and cannot be
 * stored. Entries move when the table grows: a pointer to one holds until
 * the next add. */
#ifndef SAMSIM_HASH_TABLE_H
#define SAMSIM_HASH_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define HASH_TABLE_FREE UINT64_MAX

typedef struct hash_table {
    unsigned char *slots;
    size_t entry_size;
    size_t cap, used;
} hash_table;

/* An empty table of entries of entry_size bytes; it allocates on the
 * first add. */
void hash_table_init(hash_table *t, size_t entry_size);
void hash_table_free(hash_table *t);

/* Key's entry, or NULL. */
void *hash_table_find(const hash_table *t, uint64_t key);

/* Key's entry, added with every byte after the key zero when it was not
 * there (*added then 1); NULL with err set when out of memory. */
void *hash_table_add(hash_table *t, uint64_t key, int *added, sam_error *err);

/* Room for one more entry: the next add allocates nothing and cannot
 * fail. 0, or -1 with err set. */
int hash_table_reserve(hash_table *t, sam_error *err);

/* Slot i (< t->cap): its entry, or NULL when free; for a walk over all. */
void *hash_table_slot(const hash_table *t, size_t i);

#endif
