/* Replays a fuzz corpus without libFuzzer, so that every input found so
 * far runs in `make test` under the sanitizers of an ordinary build: the
 * program replay-NAME runs harness NAME on every file of the directories
 * given, by default test/fuzz/corpus/NAME, and reports as cmocka does, one
 * test per directory (an input that trips a sanitizer ends the program,
 * which test/run counts as a failure). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap && !(data = realloc(data, cap *= 2)))
            break;
    }
    int rc = data && !ferror(f) ? 0 : -1;
    fclose(f);
    if (rc == 0)
        LLVMFuzzerTestOneInput(data, n);
    free(data);
    return rc;
}

/* 0 when every file of dir was replayed; an empty corpus is a failure. */
static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("[  ERROR   ] %s: cannot open the corpus\n", dir);
        return -1;
    }
    char path[4096];
    int inputs = 0, rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (replay_file(path)) {
            printf("[  ERROR   ] %s: cannot read\n", path);
            rc = -1;
        }
        inputs++;
    }
    closedir(d);
    printf("[ %s ] %s: %d inputs replayed\n", rc || !inputs ? "FAILED" : "    OK", dir, inputs);
    return rc || !inputs ? -1 : 0;
}

int main(int argc, char **argv)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    const char *name = strncmp(base, "replay-", 7) ? base : base + 7;
    char corpus[512];
    snprintf(corpus, sizeof corpus, "test/fuzz/corpus/%s", name);
    char *fallback[] = {argv[0], corpus};
    if (argc < 2) {
        argv = fallback;
        argc = 2;
    }
    int failed = 0;
    for (int i = 1; i < argc; i++)
        failed += replay_dir(argv[i]) != 0;
    int passed = argc - 1 - failed;
    printf("[==========] %d test(s) run.\n", passed + failed);
    printf("[  PASSED  ] %d test(s).\n", passed);
    if (failed)
        printf("[  FAILED  ] %d test(s).\n", failed);
    return failed ? 1 : 0;
}
