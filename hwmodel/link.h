/* A memory's link toward the processing elements: one transfer at a time,
 * each booked when it is asked for, in the first stretch of free time
 * after its data is ready that is long enough. So a transfer that must
 * wait (for room in its buffer, for its parent tile) leaves the link to
 * the transfers of other buffers meanwhile, as an arbiter that serves
 * whichever request is ready would. Free stretches far behind the latest
 * booking are forgotten (LINK_MAX_GAPS are kept), which can only delay.
 *
 * An interleaving link (dram.interleave, llb.interleave) serves the
 * transfers that are ready a burst at a time, as a memory controller with
 * many requests in flight does: a transfer takes the free stretches from
 * its ready cycle on in turn, as much of each as it needs, instead of
 * waiting for one long enough, and ends where its last piece does. It
 * keeps up to LINK_MAX_GAPS_INTERLEAVED stretches. */
#ifndef SAMSIM_LINK_H
#define SAMSIM_LINK_H

#define LINK_MAX_GAPS 256
#define LINK_MAX_GAPS_INTERLEAVED 4096

typedef struct link_gap {
    double start, end;
} link_gap;

typedef struct mem_link {
    double free_from;           /* busy up to here, then free for good */
    link_gap *gap;              /* free stretches before free_from, in order */
    int ngaps, capgaps;
    int interleave;             /* 1: transfers split across free stretches */
} mem_link;

/* An idle link, interleaving or not; freed with link_free. A link of all
 * zero bytes is an idle one that does not interleave. */
void link_init(mem_link *l, int interleave);

void link_free(mem_link *l);

/* Books a transfer of `occupy` cycles, its data ready at `ready`: the
 * cycle it starts, or on an interleaving link the cycle it would have
 * started to end where its last piece does. */
double link_book(mem_link *l, double ready, double occupy);

#endif
