#include "link.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void link_init(mem_link *l, int interleave)
{
    memset(l, 0, sizeof *l);
    l->interleave = interleave;
}

void link_free(mem_link *l)
{
    free(l->gap);
    l->gap = NULL;
    l->ngaps = l->capgaps = 0;
}

/* The most free stretches the link keeps: an interleaving link fills
 * them as transfers come, so it can keep more for the same cost. */
static int max_gaps(const mem_link *l)
{
    return l->interleave ? LINK_MAX_GAPS_INTERLEAVED : LINK_MAX_GAPS;
}

/* Whether the link has room for one more free stretch, its array grown
 * up to max_gaps; not when it is full or memory runs out, and then the
 * oldest stretch is forgotten, which can only delay. */
static int room_for_gap(mem_link *l)
{
    if (l->ngaps < l->capgaps)
        return 1;
    if (l->capgaps >= max_gaps(l))
        return 0;
    int cap = l->capgaps ? 2 * l->capgaps : 16;
    cap = cap < max_gaps(l) ? cap : max_gaps(l);
    link_gap *g = realloc(l->gap, (size_t)cap * sizeof *g);
    if (!g)
        return 0;
    l->gap = g;
    l->capgaps = cap;
    return 1;
}

static void drop_gap(mem_link *l, int k)
{
    memmove(&l->gap[k], &l->gap[k + 1], (size_t)(l->ngaps - k - 1) * sizeof l->gap[0]);
    l->ngaps--;
}

/* The free stretch [start, end) behind free_from, the oldest forgotten
 * when there are too many. */
static void add_gap(mem_link *l, double start, double end)
{
    if (!room_for_gap(l)) {
        if (!l->ngaps)
            return;
        drop_gap(l, 0);
    }
    l->gap[l->ngaps++] = (link_gap){start, end};
}

/* Takes [start, start + occupy) out of gap k. */
static void take_from_gap(mem_link *l, int k, double start, double occupy)
{
    link_gap g = l->gap[k];
    double end = start + occupy;
    if (start > g.start && end < g.end) {
        if (!room_for_gap(l)) {
            l->gap[k].end = start;
            return;
        }
        memmove(&l->gap[k + 1], &l->gap[k], (size_t)(l->ngaps - k) * sizeof l->gap[0]);
        l->ngaps++;
        l->gap[k].end = start;
        l->gap[k + 1].start = end;
    } else if (start > g.start) {
        l->gap[k].end = start;
    } else if (end < g.end) {
        l->gap[k].start = end;
    } else {
        drop_gap(l, k);
    }
}

/* The first gap that ends at or after `end`, or ngaps: gaps are disjoint
 * and in order, so their ends increase, and no gap before it can hold a
 * transfer that ends at `end` at the earliest. */
static int first_ending_after(const mem_link *l, double end)
{
    int lo = 0, hi = l->ngaps;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (l->gap[mid].end < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Books `occupy` cycles from `ready` on after free_from, the stretch
 * before left free: the cycle it starts. */
static double book_at_end(mem_link *l, double ready, double occupy)
{
    double start = ready > l->free_from ? ready : l->free_from;
    if (start > l->free_from)
        add_gap(l, l->free_from, start);
    l->free_from = start + occupy;
    return start;
}

/* An interleaving link: the transfer takes the free stretches from
 * `ready` on in turn, each as far as it needs, the rest after free_from.
 * Fractions of a cycle below `tiny` left over are rounding, not data. */
static double book_interleaved(mem_link *l, double ready, double occupy)
{
    double left = occupy, end = ready, tiny = 1e-9 * (occupy > 1 ? occupy : 1);
    int k = first_ending_after(l, ready);
    while (left > tiny && k < l->ngaps) {
        double start = ready > l->gap[k].start ? ready : l->gap[k].start;
        double take = fmin(left, l->gap[k].end - start);
        int head_stays = start > l->gap[k].start;
        if (take > 0) {
            take_from_gap(l, k, start, take);
            left -= take;
            end = start + take;
        }
        /* Gap k is used up, its head left free or not: the next is after. */
        k += head_stays || take <= 0;
    }
    if (left > tiny)
        end = book_at_end(l, ready, left) + left;
    return end - occupy;
}

double link_book(mem_link *l, double ready, double occupy)
{
    if (l->interleave)
        return book_interleaved(l, ready, occupy);
    for (int k = first_ending_after(l, ready + occupy); k < l->ngaps; k++) {
        double start = ready > l->gap[k].start ? ready : l->gap[k].start;
        if (start + occupy <= l->gap[k].end) {
            take_from_gap(l, k, start, occupy);
            return start;
        }
    }
    return book_at_end(l, ready, occupy);
}
