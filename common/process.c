#include "process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "strbuf.h"

typedef struct capture {
    int fd;
    strbuf text;
} capture;

double process_seconds(void)
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
    size_t len = c->text.len;
    size_t keep = len + (size_t)n > PROCESS_KEEP ? PROCESS_KEEP - len : (size_t)n;
    return strbuf_add(&c->text, buf, keep, err);
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
            double left = deadline - process_seconds();
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
    double start = process_seconds();
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
    capture cap[2] = {{p.out[0], {0}}, {p.err[0], {0}}};
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
    r->seconds = process_seconds() - start;
    for (int i = 0; i < 2; i++)
        if (cap[i].fd >= 0)
            close(cap[i].fd);
    pipes_close(p.in);
    pipes_close(p.report);
    r->out = cap[0].text.s ? cap[0].text.s : strdup("");
    r->err = cap[1].text.s ? cap[1].text.s : strdup("");
    r->out_len = cap[0].text.len;
    r->err_len = cap[1].text.len;
    if (rc)
        process_result_free(r);
    return rc;
}

/* ---- streaming -------------------------------------------------------- */

/* Hands every whole line of what fd has to on_line, keeping in b what is
 * not a whole line yet; at end of file the rest too, and 1. */
static int stream_read(int fd, strbuf *b, process_line_fn *on_line, void *ctx, sam_error *err)
{
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : error_set(err, "read: %s", strerror(errno));
    if (strbuf_add(b, chunk, (size_t)n, err))
        return -1;
    size_t start = 0;
    for (size_t i = 0; i < b->len; i++)
        if (b->s[i] == '\n') {
            b->s[i] = '\0';
            on_line(ctx, b->s + start);
            start = i + 1;
        }
    memmove(b->s, b->s + start, b->len - start);
    b->len -= start;
    if (n == 0 && b->len) {
        b->s[b->len] = '\0';
        on_line(ctx, b->s);
        b->len = 0;
    }
    return n == 0;
}

/* ---- what the program leaves behind ----------------------------------- */

/* The program streamed and how it ended. Its own children (GNU
 * parallel's jobs, each the leader of a process group) become the
 * keeper's (below) when it ends before them, the keeper being their
 * subreaper: a job parallel started as it was told to stop would run on
 * otherwise. */
typedef struct streamed {
    pid_t pid;
    int ended, wstatus;
    int stop;               /* the first stop signal samsim received */
} streamed;

/* Collects whatever child has ended, noting the program's status. */
static int reap(streamed *p)
{
    int n = 0, wstatus;
    for (pid_t k; (k = waitpid(-1, &wstatus, WNOHANG)) > 0; n++)
        if (k == p->pid) {
            p->ended = 1;
            p->wstatus = wstatus;
        }
    return n;
}

/* This process's children other than the program: those adopted. */
static int adopted(const streamed *p, pid_t *kids, int max)
{
    DIR *d = opendir("/proc");
    int n = 0;
    for (struct dirent *e; d && n < max && (e = readdir(d));) {
        char path[300], stat[512];
        pid_t k = (pid_t)atoi(e->d_name);
        if (k <= 0 || k == p->pid)
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
        if (f)
            fclose(f);
        stat[len] = '\0';
        /* pid (comm) state ppid ...: the name may hold blanks and ')'. */
        const char *close = strrchr(stat, ')');
        int ppid;
        if (close && sscanf(close + 1, " %*c %d", &ppid) == 1 && ppid == getpid())
            kids[n++] = k;
    }
    if (d)
        closedir(d);
    return n;
}

/* Rounds of stop_adopted, a second each at most: a process that a
 * SIGKILL does not end within them waits in the kernel (on a hung file
 * system, say) and goes when that returns, its SIGKILL pending. */
#define STOP_ROUNDS 30

/* Stops every adopted job: SIGTERM to its process group, then SIGKILL to
 * what is left after a second, again until none is left (a process
 * killed may leave children of its own, adopted in turn). */
static void stop_adopted(streamed *p)
{
    struct timespec tick = {0, 10000000};
    pid_t kids[256];
    for (int round = 0, n; round < STOP_ROUNDS && (n = adopted(p, kids, 256)); round++) {
        for (int k = 0; k < n; k++) {
            kill(-kids[k], round ? SIGKILL : SIGTERM);
            kill(kids[k], round ? SIGKILL : SIGTERM);
        }
        for (int waited = 0; waited < 100 && adopted(p, kids, 1); waited++) {
            reap(p);
            nanosleep(&tick, NULL);
        }
        reap(p);
    }
}

/* The signals that came: a stop signal is kept (the first) and passed on
 * to the program as SIGINT while it runs; a child's end is collected, and
 * once the program has ended, what it left is stopped. */
static void take_signals(int sfd, streamed *p)
{
    struct signalfd_siginfo info;
    while (read(sfd, &info, sizeof info) == (ssize_t)sizeof info) {
        if (info.ssi_signo == SIGCHLD) {
            if (reap(p) && p->ended)
                stop_adopted(p);
            continue;
        }
        if (!p->stop)
            p->stop = (int)info.ssi_signo;
        if (!p->ended)
            kill(p->pid, SIGINT);
    }
}

/* Reads the program's lines until its output ends, taking signals as
 * they come. */
static int stream_lines(streamed *p, int out, int sfd, process_line_fn *on_line, void *ctx,
                        sam_error *err)
{
    strbuf b = {0};
    int rc = 0;
    while (!rc) {
        struct pollfd fds[2] = {{out, POLLIN, 0}, {sfd, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            rc = errno == EINTR ? 0 : error_set(err, "poll: %s", strerror(errno));
            continue;
        }
        if (fds[1].revents)
            take_signals(sfd, p);
        if (fds[0].revents)
            rc = stream_read(out, &b, on_line, ctx, err);
    }
    strbuf_free(&b);
    return rc < 0 ? -1 : 0;
}

/* The program: signals blocked as samsim found them (SIGINT and SIGCHLD
 * at their defaults, from the keeper), and SIGINT should the keeper die
 * first. */
static void stream_child(const char *const *argv, const sigset_t *mask, pid_t parent, int out,
                         int report)
{
    sigprocmask(SIG_SETMASK, mask, NULL);
    prctl(PR_SET_PDEATHSIG, SIGINT);
    if (getppid() != parent)
        _exit(127);
    process_child(argv, -1, out, 2, report);
}

/* The child of process_stream, between samsim and the program, so that
 * samsim's death, even by SIGKILL, leaves nothing running: told by SIGINT
 * (samsim's, or its death's), it passes SIGINT on to the program; once
 * the program has ended, it stops what the program left (its subreaper)
 * and exits with the program's status. The signals stay blocked, read
 * from sfd; SIGINT and SIGCHLD are not ignored even if samsim ignores
 * them (a script's background job ignores SIGINT), or they would never
 * come, and the program too is told to stop by SIGINT. */
static void stream_keeper(const char *const *argv, const sigset_t *mask, pid_t parent, int out,
                          int report, int sfd)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGCHLD, &dfl, NULL);
    prctl(PR_SET_PDEATHSIG, SIGINT);
    if (getppid() != parent)
        _exit(127);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t self = getpid();
    streamed k = {.pid = fork()};
    if (k.pid == 0)
        stream_child(argv, mask, self, out, report);
    if (k.pid < 0) {
        int e = errno;
        ssize_t unused = write(report, &e, sizeof e);
        (void)unused;
        _exit(127);
    }
    close(out);
    close(report);
    while (!k.ended) {
        struct pollfd f = {sfd, POLLIN, 0};
        if (poll(&f, 1, -1) > 0)
            take_signals(sfd, &k);
    }
    process_result r = {0};
    process_status(k.wstatus, &r);
    _exit(r.status);
}

/* Waits for the program, stops what it left, and takes the signals that
 * came meanwhile. */
static void stream_end(streamed *p, int sfd)
{
    while (!p->ended && waitpid(p->pid, &p->wstatus, 0) < 0 && errno == EINTR)
        ;
    p->ended = 1;
    stop_adopted(p);
    take_signals(sfd, p);
}

int process_stream(const char *const *argv, process_line_fn *on_line, void *ctx, int *stop,
                   sam_error *err)
{
    int out[2], report[2];
    sigset_t caught, old;
    sigemptyset(&caught);
    sigaddset(&caught, SIGINT);
    sigaddset(&caught, SIGTERM);
    sigaddset(&caught, SIGHUP);
    sigaddset(&caught, SIGCHLD);
    *stop = 0;
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
    /* Blocked, the signals wait in the signalfd instead of ending samsim
     * at once. */
    sigprocmask(SIG_BLOCK, &caught, &old);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int sfd = signalfd(-1, &caught, SFD_CLOEXEC | SFD_NONBLOCK);
    pid_t parent = getpid();
    streamed p = {.pid = sfd < 0 ? -1 : fork()};
    if (p.pid == 0)
        stream_keeper(argv, &old, parent, out[1], report[1], sfd);
    int start_errno = errno;
    close(out[1]);
    close(report[1]);
    int rc = p.pid < 0 ? -1 : stream_lines(&p, out[0], sfd, on_line, ctx, err);
    close(out[0]);
    if (rc && p.pid > 0 && !p.ended)
        kill(p.pid, SIGINT);
    if (p.pid > 0)
        stream_end(&p, sfd);
    if (sfd >= 0)
        close(sfd);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    sigprocmask(SIG_SETMASK, &old, NULL);
    *stop = p.stop;
    int e = p.pid > 0 ? exec_errno(report[0]) : start_errno;
    close(report[0]);
    if (e)
        return error_set(err, "cannot run %s: %s", argv[0], strerror(e));
    if (rc)
        return -1;
    process_result r = {0};
    process_status(p.wstatus, &r);
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
