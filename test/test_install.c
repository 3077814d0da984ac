/* make install and the bash completion: what a user who installs samsim
 * gets, and what pressing tab offers. The tested binary (SAMSIM_BIN) is
 * installed as it is, without a rebuild. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

/* Runs a shell command; returns its standard output (malloc'd) and sets
 * *status to its exit status. */
static char *shell(const char *command, int *status)
{
    FILE *p = popen(command, "r");
    assert_non_null(p);
    size_t n = 0, cap = 4096;
    char *out = malloc(cap);
    for (size_t got; (got = fread(out + n, 1, cap - n - 1, p)) > 0;) {
        n += got;
        if (n + 1 == cap)
            out = realloc(out, cap *= 2);
    }
    out[n] = '\0';
    *status = pclose(p);
    return out;
}

static const char *binary(void)
{
    const char *bin = getenv("SAMSIM_BIN");
    assert_non_null(bin);
    return bin;
}

static void assert_file_mode(const char *path, mode_t mode)
{
    struct stat st;
    if (stat(path, &st) != 0)
        fail_msg("%s was not installed", path);
    assert_int_equal(st.st_mode & 0777, mode);
}

/* DESTDIR and PREFIX place the binary, the man page and the completion,
 * blanks in their names included. */
static void test_install_prefix_destdir(void **state)
{
    (void)state;
    char *dir = test_tmpdir(), cmd[8192], path[4400];
    snprintf(cmd, sizeof cmd,
             "make -s install BIN='%s' -o '%s' DESTDIR='%s/st age' PREFIX='/opt/sam sim' 2>&1",
             binary(), binary(), dir);
    int status;
    char *out = shell(cmd, &status);
    if (status != 0)
        fail_msg("make install: %s", out);
    free(out);
    snprintf(path, sizeof path, "%s/st age/opt/sam sim/bin/samsim", dir);
    assert_file_mode(path, 0755);
    snprintf(cmd, sizeof cmd, "'%s' --version", path);
    out = shell(cmd, &status);
    assert_int_equal(status, 0);
    assert_true(strncmp(out, "samsim ", 7) == 0);
    free(out);
    snprintf(path, sizeof path, "%s/st age/opt/sam sim/share/man/man1/samsim.1", dir);
    assert_file_mode(path, 0644);
    snprintf(path, sizeof path, "%s/st age/opt/sam sim/share/bash-completion/completions/samsim",
             dir);
    assert_file_mode(path, 0644);
    test_tmpdir_remove(dir);
}

/* What the completion offers for the words typed so far (the last one is
 * being completed; "" for a word not begun), with the tested binary first
 * on PATH. */
static char *complete(const char *words)
{
    char bindir[4096], cmd[8192];
    snprintf(bindir, sizeof bindir, "%s", binary());
    *strrchr(bindir, '/') = '\0';
    snprintf(cmd, sizeof cmd,
             "PATH='%s':\"$PATH\" bash -c 'source scripts/samsim-completion.bash; "
             "COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _samsim; "
             "printf \"%%s\\n\" \"${COMPREPLY[@]}\" | sort | tr \"\\n\" \" \"'",
             bindir, words);
    int status;
    char *out = shell(cmd, &status);
    assert_int_equal(status, 0);
    return out;
}

static void expect_completion(const char *words, const char *offered)
{
    char *got = complete(words);
    if (strcmp(got, offered))
        fail_msg("completing '%s': offered '%s', expected '%s'", words, got, offered);
    free(got);
}

/* Commands, options from each command's help, implementations from
 * `samsim blocks`, engines and generators. */
static void test_bash_completion(void **state)
{
    (void)state;
    expect_completion("samsim ru", "run ");
    expect_completion("samsim co", "compile convert ");
    expect_completion("samsim run g.gv --ch", "--check ");
    expect_completion("samsim run g.gv --impl intersect=",
                      "intersect=bitvector intersect=skip intersect=twofinger ");
    expect_completion("samsim run g.gv --engine \"\"", "cycle event step ");
    expect_completion("samsim gen r", "rmat runs ");
    expect_completion("samsim help st", "stats ");
    expect_completion("samsim pl", "plot ");
    expect_completion("samsim sw", "sweep ");
    expect_completion("samsim sweep s.sweep --sl", "--slurm ");
    expect_completion("samsim plot t.csv --lo", "--logx --logy ");
    expect_completion("samsim ti", "timeline ");
    expect_completion("samsim timeline t.json --t", "--title --to ");
    expect_completion("samsim stats --s", "--stalls ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_install_prefix_destdir),
        cmocka_unit_test(test_bash_completion),
    };
    return cmocka_run_group_tests_name("install", tests, NULL, NULL);
}
