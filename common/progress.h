/* A status line on a terminal for work that takes seconds: one line,
 * rewritten in place ("\rsamsim: ..."), at most once an interval and not
 * before a first delay, so that a quick job shows nothing and a slow one
 * does not flood the terminal; cleared before anything else is printed.
 * Time comes from a clock the caller may inject (the monotonic clock
 * unless it does), so the timing can be tested without waiting. Not
 * thread-safe: a caller with threads holds its own lock around calls. */
#ifndef SAMSIM_PROGRESS_H
#define SAMSIM_PROGRESS_H

#include <stdio.h>

/* Seconds from any fixed origin, never going back; ctx is the caller's. */
typedef double (*progress_clock)(void *ctx);

typedef struct progress {
    FILE *out;              /* NULL: nothing is ever shown */
    double interval;        /* seconds between two lines at the least */
    double first;           /* seconds from the start before the first */
    progress_clock clock;
    void *clock_ctx;
    double start;           /* when the display, or its stage, began */
    double shown_at;        /* when the last line was shown */
    int width;              /* of the longest line on show, 0 while none is */
} progress;

/* CLOCK_MONOTONIC in seconds; ctx is unused. */
double progress_monotonic(void *ctx);

/* Starts a display on out (NULL: a display that shows nothing) whose
 * lines come at least interval seconds apart, the first after first
 * seconds; clock NULL is progress_monotonic. */
void progress_init(progress *p, FILE *out, double interval, double first, progress_clock clock,
                   void *clock_ctx);

/* Starts the first delay and the elapsed time over, for a new stage of
 * the work; a line on show stays until the next one overwrites it. */
void progress_restart(progress *p);

/* Seconds since progress_init or the last progress_restart. */
double progress_elapsed(const progress *p);

/* Shows "\rsamsim: " and the formatted text when a line is due, padded
 * with blanks to the longest line on show so that none of it remains. */
__attribute__((format(printf, 2, 3)))
void progress_show(progress *p, const char *fmt, ...);

/* Blanks out the line on show and returns the cursor to its start;
 * nothing when no line was shown. */
void progress_clear(progress *p);

#endif
