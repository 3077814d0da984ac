#include "link.h"

#include <string.h>

static void drop_gap(mem_link *l, int k)
{
    memmove(&l->gap[k], &l->gap[k + 1], (size_t)(l->ngaps - k - 1) * sizeof l->gap[0]);
    l->ngaps--;
}

/* The free stretch [start, end) behind free_from, the oldest forgotten
 * when there are too many. */
static void add_gap(mem_link *l, double start, double end)
{
    if (l->ngaps == LINK_MAX_GAPS)
        drop_gap(l, 0);
    l->gap[l->ngaps++] = (link_gap){start, end};
}

/* Takes [start, start + occupy) out of gap k. */
static void take_from_gap(mem_link *l, int k, double start, double occupy)
{
    link_gap g = l->gap[k];
    double end = start + occupy;
    if (start > g.start && end < g.end) {
        if (l->ngaps == LINK_MAX_GAPS) {
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

double link_book(mem_link *l, double ready, double occupy)
{
    for (int k = first_ending_after(l, ready + occupy); k < l->ngaps; k++) {
        double start = ready > l->gap[k].start ? ready : l->gap[k].start;
        if (start + occupy <= l->gap[k].end) {
            take_from_gap(l, k, start, occupy);
            return start;
        }
    }
    double start = ready > l->free_from ? ready : l->free_from;
    if (start > l->free_from)
        add_gap(l, l->free_from, start);
    l->free_from = start + occupy;
    return start;
}
