/* Running gnuplot (gnuplot.h): the script goes into a pipe to its standard
 * input, the picture comes out of its standard output into a temporary
 * file, its messages into another, whose last line explains a failure. */
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/atomic_file.h"
#include "../graph/render.h"

extern char **environ;

void gnuplot_put_quoted(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputs("''", f);
        else
            putc(c < 0x20 || c == 0x7f ? ' ' : c, f);
    }
}

void gnuplot_put_string(FILE *f, const char *s)
{
    putc('\'', f);
    gnuplot_put_quoted(f, s);
    putc('\'', f);
}

void gnuplot_put_terminal(FILE *f, const char *out, int width, int height)
{
    fprintf(f, "set encoding utf8\nset terminal %s size %d,%d noenhanced\n",
            !strcmp(graph_render_format(out), "png") ? "pngcairo" : "svg", width, height);
}

/* gnuplot reads the script from in and writes the picture on out and its
 * messages on errfd; -d keeps a user's ~/.gnuplot out of the figure. */
static int spawn_gnuplot(int in, int out, int errfd, const char *who, pid_t *pid, sam_error *err)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa))
        return error_set(err, "out of memory");
    char *argv[] = {"gnuplot", "-d", NULL};
    int rc = posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, errfd, STDERR_FILENO);
    if (!rc)
        rc = posix_spawnp(pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == ENOENT)
        return error_set(err, "%s: gnuplot not found (scripts/install-deps installs "
                              "gnuplot-nox)", who);
    if (rc)
        return error_set(err, "%s: cannot start gnuplot: %s", who, strerror(rc));
    return 0;
}

/* Writes the script into the pipe and closes it: 0 or the errno of the
 * failure. gnuplot may stop reading at an error, which its exit status
 * then tells, so a broken pipe must not end the process. */
static int feed(int fd, gnuplot_script *script, const void *figure)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    FILE *f = fdopen(fd, "w");
    int e = f ? 0 : errno;
    if (f) {
        script(f, figure);
        e = ferror(f) ? errno : 0;
        if (fclose(f) && !e)
            e = errno;
    } else {
        close(fd);
    }
    sigaction(SIGPIPE, &old, NULL);
    return e;
}

/* The last line gnuplot wrote on standard error, blanks trimmed. */
static void last_message(FILE *log, char *buf, size_t size)
{
    char line[256];
    buf[0] = '\0';
    rewind(log);
    while (fgets(line, sizeof line, log)) {
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        if (*p)
            snprintf(buf, size, "%s", p);
    }
}

static int gnuplot_status(pid_t pid, FILE *log, const char *out, const char *who, int fed,
                          sam_error *err)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error_set(err, "%s: waiting for gnuplot: %s", who, strerror(errno));
    char msg[200];
    last_message(log, msg, sizeof msg);
    if (WIFSIGNALED(status))
        return error_at(err, out, 0, "gnuplot was killed by signal %d", WTERMSIG(status));
    if (WEXITSTATUS(status) != 0)
        return error_at(err, out, 0, "gnuplot failed (exit %d): %s", WEXITSTATUS(status),
                        *msg ? msg : "no message");
    if (fed)
        return error_at(err, out, 0, "cannot write gnuplot's script: %s", strerror(fed));
    return 0;
}

static int open_pipe(int p[2], const char *who, sam_error *err)
{
    if (pipe(p) != 0)
        return error_set(err, "%s: cannot make a pipe: %s", who, strerror(errno));
    /* Neither end may stay open in gnuplot, or it would never see the end
     * of the script. */
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

static int run(atomic_file *af, const char *who, gnuplot_script *script, const void *figure,
               sam_error *err)
{
    FILE *log = tmpfile();
    if (!log)
        return error_set(err, "%s: cannot make a temporary file: %s", who, strerror(errno));
    int p[2];
    pid_t pid;
    int rc = open_pipe(p, who, err);
    if (rc == 0) {
        rc = spawn_gnuplot(p[0], fileno(af->f), fileno(log), who, &pid, err);
        close(p[0]);
        if (rc)
            close(p[1]);
        else
            rc = gnuplot_status(pid, log, af->path, who, feed(p[1], script, figure), err);
    }
    fclose(log);
    return rc;
}

int gnuplot_draw(const char *out, const char *who, gnuplot_script *script, const void *figure,
                 sam_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, out, err))
        return -1;
    int rc = run(&af, who, script, figure, err);
    if (rc == 0)
        rc = atomic_file_close(&af, err) || atomic_file_publish(&af, err) ? -1 : 0;
    atomic_file_discard(&af);
    return rc;
}
