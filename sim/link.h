/* A memory's link toward the processing elements: one transfer at a time,
 * each booked when it is asked for, in the first stretch of free time
 * after its data is ready that is long enough. So a transfer that must
 * wait (for room in its buffer, for its parent tile) leaves the link to
 * the transfers of other buffers meanwhile, as an arbiter that serves
 * whichever request is ready would. Free stretches far behind the latest
 * booking are forgotten (LINK_MAX_GAPS are kept), which can only delay. */
#ifndef SAMSIM_LINK_H
#define SAMSIM_LINK_H

#define LINK_MAX_GAPS 256

typedef struct link_gap {
    double start, end;
} link_gap;

typedef struct mem_link {
    double free_from;           /* busy up to here, then free for good */
    link_gap gap[LINK_MAX_GAPS];    /* free stretches before free_from, in order */
    int ngaps;
} mem_link;

/* Books a transfer of `occupy` cycles, its data ready at `ready`: the
 * cycle it starts. */
double link_book(mem_link *l, double ready, double occupy);

#endif
