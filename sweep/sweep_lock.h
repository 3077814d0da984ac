/* A sweep directory's lock: one sweep at a time runs or prepares jobs in
 * a directory, or gathers its rows. Two sweeps in one directory would
 * remove each other's work files and write each other's results; the
 * second is refused at once instead of waiting.
 *
 * The lock is flock(2) on DIR/sweep.lock, which the kernel releases when
 * the process ends however it ends; the file is closed on exec, so the
 * programs a sweep starts never hold it. The jobs (`samsim sweep --job`)
 * take no lock: a sweep's own jobs run while it holds it. */
#ifndef SAMSIM_SWEEP_LOCK_H
#define SAMSIM_SWEEP_LOCK_H

#include "../common/error.h"

/* Locks dir (which exists) into *fd; -1 with err set when another process
 * holds its lock or it cannot be made. */
int sweep_lock_take(const char *dir, int *fd, sam_error *err);

/* Releases a lock taken; -1 (none) is let be. */
void sweep_lock_release(int fd);

#endif
