/* flock is a BSD function. */
#define _DEFAULT_SOURCE
#include "sweep_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int sweep_lock_take(const char *dir, int *fd, sam_error *err)
{
    char path[4096];
    *fd = -1;
    if (snprintf(path, sizeof path, "%s/sweep.lock", dir) >= (int)sizeof path)
        return error_at(err, dir, 0, "path too long");
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (f < 0)
        return error_at(err, path, 0, "cannot open: %s", strerror(errno));
    int rc;
    while ((rc = flock(f, LOCK_EX | LOCK_NB)) && errno == EINTR)
        ;
    if (rc) {
        int e = errno;
        close(f);
        return e == EWOULDBLOCK ? error_at(err, dir, 0, "another sweep is running there (it "
                                           "holds sweep.lock); wait for it or stop it")
                                : error_at(err, path, 0, "cannot lock: %s", strerror(e));
    }
    *fd = f;
    return 0;
}

void sweep_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
