#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_stdout(const char *path)
{
    return !strcmp(path, "-");
}

int atomic_file_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int open_in_place(atomic_file *af, const char *path, sam_error *err)
{
    const char *name = is_stdout(path) ? "standard output" : path;
    af->path = strdup(name);
    if (!af->path)
        return error_set(err, "out of memory");
    af->f = is_stdout(path) ? stdout : fopen(path, "w");
    if (!af->f) {
        int e = errno;
        atomic_file_discard(af);
        return error_at(err, path, 0, "cannot open: %s", strerror(e));
    }
    return 0;
}

int atomic_file_open(atomic_file *af, const char *path, sam_error *err)
{
    memset(af, 0, sizeof *af);
    if (is_stdout(path) || atomic_file_special(path))
        return open_in_place(af, path, err);
    size_t n = strlen(path);
    af->path = malloc(n + 1);
    af->tmp_path = malloc(n + 16);
    if (!af->path || !af->tmp_path) {
        atomic_file_discard(af);
        return error_set(err, "out of memory");
    }
    memcpy(af->path, path, n + 1);
    snprintf(af->tmp_path, n + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        int e = errno;
        free(af->tmp_path);
        af->tmp_path = NULL;
        atomic_file_discard(af);
        return error_at(err, path, 0, "cannot create: %s", strerror(e));
    }
    /* mkstemp creates 0600; give the file the mode a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    af->f = fdopen(fd, "w");
    if (!af->f) {
        close(fd);
        atomic_file_discard(af);
        return error_at(err, path, 0, "cannot create: %s", strerror(errno));
    }
    return 0;
}

/* Standard output is flushed, not closed: later messages still go there. */
int atomic_file_close(atomic_file *af, sam_error *err)
{
    int failed = ferror(af->f);
    if ((af->f == stdout ? fflush(af->f) : fclose(af->f)) != 0)
        failed = 1;
    af->f = NULL;
    if (failed)
        return error_at(err, af->path, 0, "write error: %s", strerror(errno));
    return 0;
}

int atomic_file_publish(atomic_file *af, sam_error *err)
{
    if (!af->tmp_path)
        return 0;
    if (rename(af->tmp_path, af->path) != 0)
        return error_at(err, af->path, 0, "cannot rename into place: %s", strerror(errno));
    free(af->tmp_path);
    af->tmp_path = NULL;
    return 0;
}

void atomic_file_discard(atomic_file *af)
{
    if (af->f && af->f != stdout)
        fclose(af->f);
    if (af->tmp_path)
        unlink(af->tmp_path);
    free(af->tmp_path);
    free(af->path);
    memset(af, 0, sizeof *af);
}
