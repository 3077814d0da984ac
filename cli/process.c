#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct capture {
    int fd;
    char *data;
    size_t len, cap;
} capture;

static double process_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Appends what fd has; closes it at end of file. Beyond PROCESS_KEEP the
 * bytes are read and dropped, so that a chatty child never blocks. */
static int capture_read(capture *c, sam_error *err)
{
    char buf[65536];
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : error_set(err, "read: %s", strerror(errno));
    if (n == 0) {
        close(c->fd);
        c->fd = -1;
        return 0;
    }
    size_t keep = c->len + (size_t)n > PROCESS_KEEP ? PROCESS_KEEP - c->len : (size_t)n;
    if (c->len + keep + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + keep + 1)
            cap *= 2;
        char *grown = realloc(c->data, cap);
        if (!grown)
            return error_set(err, "out of memory");
        c->data = grown;
        c->cap = cap;
    }
    memcpy(c->data + c->len, buf, keep);
    c->len += keep;
    c->data[c->len] = '\0';
    return 0;
}

/* The child: its pipes in place of 0, 1 and 2, then the program. A failed
 * exec reports its errno on the report pipe, which a successful one
 * closes. */
static void process_child(const char *const *argv, int in, int out, int errfd, int report)
{
    if (in >= 0)
        dup2(in, 0);
    else {
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
    }
    dup2(out, 1);
    dup2(errfd, 2);
    execvp(argv[0], (char *const *)argv);
    int e = errno;
    ssize_t unused = write(report, &e, sizeof e);
    (void)unused;
    _exit(127);
}

typedef struct pipes {
    int in[2], out[2], err[2], report[2];
} pipes;

static void pipes_close(int *fd)
{
    for (int i = 0; i < 2; i++)
        if (fd[i] >= 0) {
            close(fd[i]);
            fd[i] = -1;
        }
}

static int pipes_open(pipes *p, int with_input, sam_error *err)
{
    int *all[4] = {p->in, p->out, p->err, p->report};
    for (int i = 0; i < 4; i++)
        all[i][0] = all[i][1] = -1;
    if ((with_input && pipe(p->in)) || pipe(p->out) || pipe(p->err) || pipe(p->report)) {
        for (int i = 0; i < 4; i++)
            pipes_close(all[i]);
        return error_set(err, "pipe: %s", strerror(errno));
    }
    /* dup2 clears the flag on the child's 0, 1 and 2; every other end must
     * close on exec, or the child would hold its own input open. */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            if (all[i][j] >= 0)
                fcntl(all[i][j], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Feeds input while the child reads it; a child that exits without
 * reading all of it (EPIPE) just ends the feed. */
static void feed_input(int *fd, const char *input, size_t *done)
{
    size_t len = strlen(input);
    ssize_t n = write(*fd, input + *done, len - *done);
    if (n > 0)
        *done += (size_t)n;
    if ((n < 0 && errno != EINTR && errno != EAGAIN) || *done == len) {
        close(*fd);
        *fd = -1;
    }
}

/* Reads both outputs (and feeds input) until the child closes them or the
 * deadline passes, when it is killed and its outputs drained. */
static int process_collect(pid_t pid, pipes *p, const char *input, double deadline,
                           capture *cap, process_result *r, sam_error *err)
{
    size_t fed = 0;
    while (cap[0].fd >= 0 || cap[1].fd >= 0) {
        struct pollfd fds[3] = {{cap[0].fd, POLLIN, 0}, {cap[1].fd, POLLIN, 0},
                                {p->in[1], POLLOUT, 0}};
        int wait_ms = -1;
        if (deadline > 0 && !r->timed_out) {
            double left = deadline - process_now();
            if (left <= 0) {
                kill(pid, SIGKILL);
                r->timed_out = 1;
            }
            wait_ms = left <= 0 ? -1 : (int)(left * 1000) + 1;
        }
        if (poll(fds, input ? 3 : 2, wait_ms) < 0 && errno != EINTR)
            return error_set(err, "poll: %s", strerror(errno));
        for (int i = 0; i < 2; i++)
            if (cap[i].fd >= 0 && fds[i].revents && capture_read(&cap[i], err))
                return -1;
        if (input && p->in[1] >= 0 && fds[2].revents)
            feed_input(&p->in[1], input, &fed);
    }
    return 0;
}

static void process_status(int wstatus, process_result *r)
{
    if (WIFSIGNALED(wstatus)) {
        r->signal = WTERMSIG(wstatus);
        r->status = 128 + r->signal;
    } else
        r->status = WEXITSTATUS(wstatus);
}

/* What the child's report pipe says: 0 when exec worked (the pipe closed
 * empty), else the errno of the failed exec. */
static int exec_errno(int fd)
{
    int e = 0;
    ssize_t n;
    do
        n = read(fd, &e, sizeof e);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof e ? e : 0;
}

int process_run(const char *const *argv, const char *input, double timeout_s,
                process_result *r, sam_error *err)
{
    memset(r, 0, sizeof *r);
    pipes p;
    if (pipes_open(&p, input != NULL, err))
        return -1;
    double start = process_now();
    pid_t pid = fork();
    if (pid == 0)
        process_child(argv, p.in[0], p.out[1], p.err[1], p.report[1]);
    int fork_errno = errno;
    close(p.out[1]);
    close(p.err[1]);
    close(p.report[1]);
    if (p.in[0] >= 0)
        close(p.in[0]);
    p.out[1] = p.err[1] = p.report[1] = p.in[0] = -1;
    capture cap[2] = {{p.out[0], NULL, 0, 0}, {p.err[0], NULL, 0, 0}};
    int rc = 0;
    if (pid < 0)
        rc = error_set(err, "cannot start %s: %s", argv[0], strerror(fork_errno));
    else {
        if (p.in[1] >= 0)
            fcntl(p.in[1], F_SETFL, O_NONBLOCK);
        struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
        sigaction(SIGPIPE, &ignore, &old);
        rc = process_collect(pid, &p, input, timeout_s > 0 ? start + timeout_s : 0, cap, r, err);
        sigaction(SIGPIPE, &old, NULL);
        if (rc)
            kill(pid, SIGKILL);
        int wstatus = 0;
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
            ;
        process_status(wstatus, r);
        int e = exec_errno(p.report[0]);
        if (!rc && e)
            rc = error_set(err, "cannot run %s: %s", argv[0], strerror(e));
    }
    r->seconds = process_now() - start;
    for (int i = 0; i < 2; i++)
        if (cap[i].fd >= 0)
            close(cap[i].fd);
    pipes_close(p.in);
    pipes_close(p.report);
    r->out = cap[0].data ? cap[0].data : strdup("");
    r->err = cap[1].data ? cap[1].data : strdup("");
    r->out_len = cap[0].len;
    r->err_len = cap[1].len;
    if (rc)
        process_result_free(r);
    return rc;
}

int process_stream(const char *const *argv, process_line_fn *on_line, void *ctx,
                   sam_error *err)
{
    int out[2], report[2];
    if (pipe(out))
        return error_set(err, "pipe: %s", strerror(errno));
    if (pipe(report)) {
        close(out[0]);
        close(out[1]);
        return error_set(err, "pipe: %s", strerror(errno));
    }
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    fcntl(report[0], F_SETFD, FD_CLOEXEC);
    fcntl(report[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0)
        process_child(argv, -1, out[1], 2, report[1]);
    int fork_errno = errno;
    close(out[1]);
    close(report[1]);
    FILE *f = pid > 0 ? fdopen(out[0], "r") : NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while (f && (n = getline(&line, &cap, f)) >= 0) {
        if (n && line[n - 1] == '\n')
            line[n - 1] = '\0';
        on_line(ctx, line);
    }
    free(line);
    f ? fclose(f) : close(out[0]);
    int wstatus = 0;
    while (pid > 0 && waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    int e = pid > 0 ? exec_errno(report[0]) : fork_errno;
    close(report[0]);
    if (e)
        return error_set(err, "cannot run %s: %s", argv[0], strerror(e));
    process_result r = {0};
    process_status(wstatus, &r);
    return r.status;
}

const char *process_first_error(const process_result *r, char *buf, size_t size)
{
    const char *s = r->err ? r->err : "";
    size_t n = strcspn(s, "\n");
    snprintf(buf, size, "%.*s", (int)n, s);
    return buf;
}

void process_result_free(process_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
