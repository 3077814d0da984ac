/* The command line a C user expects, and wrong results made impossible to
 * miss: operands that disagree on an index's size, bindings the graph does
 * not have, outputs that would replace inputs, options that would swallow
 * the next one, standard output as a file, full devices, help and version,
 * and the statistics of runs that cannot finish. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../hwmodel/hw.h"
#include "test_util.h"

extern char **environ;

static const char matrix_2x3[] = "%%MatrixMarket matrix coordinate real general\n"
                                 "2 3 2\n1 1 1\n2 3 2\n";
static const char matrix_5x2[] = "%%MatrixMarket matrix coordinate real general\n"
                                 "5 2 2\n1 1 1\n5 2 4\n";
static const char matrix_5x3[] = "%%MatrixMarket matrix coordinate real general\n"
                                 "5 3 2\n1 1 1\n5 2 4\n";

/* NAME=path, malloc'd. */
static char *binding(const char *name, const char *path)
{
    size_t n = strlen(name) + strlen(path) + 2;
    char *b = malloc(n);
    assert_non_null(b);
    snprintf(b, n, "%s=%s", name, path);
    return b;
}

/* Compiles expr into dir/name.gv and returns its path. */
static char *compiled(const char *dir, const char *name, const char *expr)
{
    char *g = test_graph_path(dir, name);
    assert_int_equal(test_run_samsim(NULL, NULL, "compile", expr, "-o", g, NULL), 0);
    return g;
}

static void test_index_sizes_must_agree(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *c = test_write_file(dir, "C.mtx", matrix_5x2);
    char *c53 = test_write_file(dir, "C53.mtx", matrix_5x3);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *add = compiled(dir, "add", "X(i,j)=B(i,j)+C(i,j)");
    char *tb = binding("B", b), *tc = binding("C", c), *tb53 = binding("B", c53);
    char *tc23 = binding("C", b);
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "-t", tc, NULL), 1);
    assert_contains(se, "index k has size 3 in B (mode 1) but 5 in C (mode 0)");
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "run", add, "-t", tb53, "-t", tc23, NULL), 1);
    assert_contains(se, "index i has size 5 in B (mode 0) but 2 in C (mode 0)");
    free(se);
    /* --data for one operand, -t for the other. */
    char *data = test_path(dir, "data");
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", c, data, "--tensor", "C", NULL), 0);
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "--data", data, "-t", tb, NULL), 1);
    assert_contains(se, "index k has size 3 in B");
    free(se);
    /* A derived operand agrees by construction, also on a reference graph
     * (which records no expression). */
    assert_int_equal(test_run_samsim(NULL, NULL, "run", mm, "-t", tb, "--shift", "--check", NULL),
                     0);
    char *graphs = test_shared_dir() ? test_require_shared("sam-graphs/matmul_ijk.gv") : NULL;
    if (graphs) {
        assert_int_equal(test_run_samsim(NULL, &se, "run", graphs, "-t", tb, "-t", tc, NULL), 1);
        assert_contains(se, "index k has size 3 in B");
        free(se);
    }
    free(graphs), free(data), free(b), free(c), free(c53), free(mm), free(add);
    free(tb), free(tc), free(tb53), free(tc23);
    test_tmpdir_remove(dir);
}

static void test_unknown_binding_refused(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *tb = binding("B", b), *tc = binding("c", b);
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "-t", tc, "--shift",
                                     "--check", NULL), 1);
    assert_contains(se, "-t c: the graph has no operand c (its operands: B, C)");
    free(se);
    free(b), free(mm), free(tb), free(tc);
    test_tmpdir_remove(dir);
}

static void test_outputs_never_replace_inputs(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *graph_before = test_read_file(mm);
    char *tb = binding("B", b), *x = test_path(dir, "x.csv"), *link = test_path(dir, "L.mtx");
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "--shift", "--stats", mm,
                                     NULL), 1);
    assert_contains(se, "is the same file as the input graph");
    free(se);
    char *graph_after = test_read_file(mm);
    assert_string_equal(graph_before, graph_after);
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "--shift", "--stats", x,
                                     "-o", x, NULL), 1);
    assert_contains(se, "is the same file as the output");
    free(se);
    assert_false(test_exists(x));
    assert_int_equal(symlink(b, link), 0);
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "--shift", "-o", link,
                                     NULL), 1);
    assert_contains(se, "is the same file as the input -t");
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "convert", b, link, NULL), 1);
    assert_contains(se, "is the same file as the input");
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "render", mm, "-o", mm, NULL), 1);
    free(se);
    char *v = test_path(dir, "v.mtx");
    assert_int_equal(test_run_samsim(NULL, &se, "gen", "runs", "--shape", "10", "--nnz", "3",
                                     "-o", v, "--second", v, NULL), 1);
    free(se);
    assert_false(test_exists(v));
    free(v);
    free(b), free(mm), free(tb), free(x), free(link), free(graph_before), free(graph_after);
    test_tmpdir_remove(dir);
}

static void test_values_never_swallow_options(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *x = test_path(dir, "x.gv");
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "compile", "X(i,j)=B(i,j)", "-f", "-o", x, NULL),
                     1);
    assert_contains(se, "option -f needs a value, not the option '-o'");
    free(se);
    assert_false(test_exists(x));
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "--shift", "--expr",
                                     "X(i,j)=B(i,k)*C(k,j)", NULL), 1);
    assert_contains(se, "--expr");
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "--max-cycles", "0", NULL), 1);
    assert_contains(se, "--max-cycles must be at least 1");
    free(se);
    free(x), free(mm);
    test_tmpdir_remove(dir);
}

/* The options `samsim help CMD` lists, each looked for in the man page. */
static void assert_documented(const char *cmd, const char *man)
{
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "help", cmd, NULL), 0);
    int options = 0;
    for (const char *p = strstr(out, "\n\n"); p && *p; p++) {
        if (*p != '-' || (p[-1] != ' ' && p[-1] != '[') || p[1] == ' ')
            continue;
        size_t n = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
        char opt[64], escaped[128];
        snprintf(opt, sizeof opt, "%.*s", (int)n, p);
        size_t k = 0;
        for (const char *q = opt; *q && k + 3 < sizeof escaped; q++) {
            if (*q == '-')
                escaped[k++] = '\\';
            escaped[k++] = *q;
        }
        escaped[k] = '\0';
        if (!strstr(man, escaped))
            fail_msg("samsim %s: option %s is not in samsim.1", cmd, opt);
        options++;
    }
    free(out);
    if (strcmp(cmd, "blocks"))
        assert_true(options > 0);
}

static void test_help_version_and_man_page(void **state)
{
    (void)state;
    char *out = NULL, *se = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "--version", NULL), 0);
    assert_int_equal(strncmp(out, "samsim ", 7), 0);
    assert_true(out[7] >= '0' && out[7] <= '9');
    free(out);
    char *man = test_read_file("samsim.1");
    assert_non_null(man);
    /* The man page and the hardware keys' table are written from the
     * declarations: `make docs`. */
    assert_int_equal(test_run_samsim(&out, NULL, "help", "--man", NULL), 0);
    if (strcmp(out, man))
        fail_msg("samsim.1 is stale: run make docs");
    free(out);
    char *hw_doc = test_read_file("doc/hardware.md");
    assert_non_null(hw_doc);
    const char *begin = "<!-- the keys: written by scripts/gen-docs from samsim help --hw -->\n";
    char *keys = strstr(hw_doc, begin), *end = strstr(hw_doc, "<!-- end of the keys -->");
    assert_true(keys && end && end > keys);
    *end = '\0';
    assert_int_equal(test_run_samsim(&out, NULL, "help", "--hw", NULL), 0);
    if (strcmp(out, keys + strlen(begin)))
        fail_msg("doc/hardware.md's keys are stale: run make docs");
    free(out), free(hw_doc);
    assert_int_equal(test_run_samsim(&out, NULL, "run", "--help", NULL), 0);
    assert_contains(out, "usage: samsim run GRAPH.dot");
    assert_contains(out, "--max-cycles N");
    for (const param *p = hw_params; p->name; p++) {
        char line[64], entry[64];
        snprintf(line, sizeof line, "\n  %-19s %s; default ", p->name, p->unit);
        snprintf(entry, sizeof entry, ".B %s\n", p->name);
        assert_contains(out, line);
        assert_contains(man, entry);
    }
    free(out);
    assert_int_equal(test_run_samsim(NULL, &se, "help", "nosuch", NULL), 1);
    assert_contains(se, "unknown command 'nosuch'");
    free(se);
    static const char *const cmds[] = {"compile", "run", "blocks", "convert", "info", "gen",
                                       "stats", "render", "plot", "timeline", "template",
                                       "sweep"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char section[64];
        snprintf(section, sizeof section, ".SS samsim %s", cmds[i]);
        assert_contains(man, section);
        assert_documented(cmds[i], man);
    }
    free(man);
}

static void test_blocks_declares_one_default_per_type(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "blocks", NULL), 0);
    int types = 0, defaults = 0, in_type = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] >= 'a' && line[0] <= 'z' && !strchr(line, ' ')) {
            assert_true(types == 0 || in_type == 1);
            types++;
            in_type = 0;
        } else if (!strncmp(line, "    ", 4) && line[4] != ' ' && strstr(line, "[default]")) {
            in_type++;
            defaults++;
        }
    }
    assert_int_equal(in_type, 1);
    assert_int_equal(defaults, types);
    assert_true(types >= 10);
    free(out);
}

static void test_standard_output_as_file(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *tb = binding("B", b);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *out = NULL, *se = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "compile", "X(i)=b(i)", "-o", "-", NULL), 0);
    assert_contains(out, "digraph");
    free(out);
    assert_int_equal(test_run_samsim(&out, &se, "run", mm, "-t", tb, "--shift", "-o", "-", NULL),
                     0);
    assert_contains(out, "%%MatrixMarket matrix coordinate real general\n% written by samsim\n"
                         "2 2 1\n1 2 2.0\n");
    assert_contains(se, "cycles: ");
    free(out), free(se);
    assert_int_equal(test_run_samsim(&out, NULL, "run", mm, "-t", tb, "--shift", NULL), 0);
    assert_contains(out, "result: X, 1 nonzeros, not written");
    assert_contains(out, "  X(0,1) = 2.0\n");
    free(out);
    assert_int_equal(test_run_samsim(&out, NULL, "convert", b, "-", NULL), 0);
    assert_contains(out, "2 3 2\n1 1 1.0\n2 3 2.0\n");
    free(out);
    assert_int_equal(test_run_samsim(&out, NULL, "gen", "urandom", "--shape", "4x4x2", "--nnz",
                                     "3", "-o", "-", NULL), 0);
    assert_contains(out, "# shape: 4 4 2\n");
    free(out);
    free(b), free(tb), free(mm);
    test_tmpdir_remove(dir);
}

/* What `samsim convert in /dev/stdout` writes when standard output is a
 * pipe (malloc'd); the command must succeed. */
static char *convert_into_pipe(const char *in)
{
    char command[8192];
    snprintf(command, sizeof command, "'%s' convert '%s' /dev/stdout", getenv("SAMSIM_BIN"), in);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, p);
    text[n] = '\0';
    assert_int_equal(pclose(p), 0);
    return strdup(text);
}

/* A device or a pipe cannot hold a SAM directory: a tensor written to one
 * goes there as text (Matrix Market for a matrix, FROSTT beyond). */
static void test_tensor_into_device(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *tb = binding("B", b);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    char *out = NULL;
    assert_int_equal(test_run_samsim(&out, NULL, "run", mm, "-t", tb, "--shift", "-o",
                                     "/dev/null", NULL), 0);
    assert_contains(out, "cycles: ");
    free(out);
    out = convert_into_pipe(b);
    assert_contains(out, "%%MatrixMarket matrix coordinate real general\n% written by samsim\n"
                         "2 3 2\n1 1 1.0\n2 3 2.0\n");
    free(out);
    char *t3 = test_write_file(dir, "t3.tns", "# shape: 2 2 2\n1 2 2 4.5\n");
    out = convert_into_pipe(t3);
    assert_contains(out, "# shape: 2 2 2\n1 2 2 4.5\n");
    free(out);
    free(b), free(tb), free(mm), free(t3);
    test_tmpdir_remove(dir);
}

/* Runs samsim with its standard output on /dev/full; the exit status. */
static int run_into_full(const char *const *args)
{
    const char *bin = getenv("SAMSIM_BIN");
    assert_non_null(bin);
    const char *argv[16] = {bin};
    for (int n = 0; args[n]; n++) {
        assert_true(n < 14);
        argv[n + 1] = args[n];
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/full", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, (char **)argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_full_device_fails(void **state)
{
    (void)state;
    if (!test_exists("/dev/full"))
        skip();
    char *dir = test_tmpdir();
    char *b = test_write_file(dir, "B.mtx", matrix_2x3);
    char *tb = binding("B", b);
    char *mm = compiled(dir, "mm", "X(i,j)=B(i,k)*C(k,j)");
    /* Through a link of our own: a writer that renamed a temporary file over
     * its target would replace the link, not the device every program
     * shares. */
    char *full = test_path(dir, "full");
    assert_int_equal(symlink("/dev/full", full), 0);
    char *se = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "compile", "X(i)=b(i)", "-o", full, NULL), 1);
    assert_contains(se, "full: write error");
    free(se);
    assert_int_equal(test_run_samsim(NULL, &se, "run", mm, "-t", tb, "--shift", "--stats",
                                     full, NULL), 1);
    assert_contains(se, "full: cannot write the statistics: No space left on device");
    free(se);
    assert_int_equal(test_run_samsim(NULL, NULL, "convert", b, full, NULL), 1);
    const char *const printing[][12] = {
        {"compile", "X(i)=b(i)", NULL},
        {"run", mm, "-t", tb, "--shift", NULL},
        {"run", mm, "-t", tb, "--shift", "-o", "-", NULL},
        {"convert", b, "-", NULL},
        {"info", b, NULL},
        {"blocks", NULL},
        {"help", NULL},
        {"--version", NULL},
        {"render", mm, "-o", "-", NULL},
        {"template", NULL},
    };
    for (size_t i = 0; i < sizeof printing / sizeof printing[0]; i++)
        if (run_into_full(printing[i]) != 1)
            fail_msg("samsim %s %s: exit status not 1 with standard output on /dev/full",
                     printing[i][0], printing[i][1] ? printing[i][1] : "");
    free(b), free(tb), free(mm), free(full);
    test_tmpdir_remove(dir);
}

static void test_stalled_run_keeps_statistics(void **state)
{
    (void)state;
    char *dir = test_tmpdir();
    char *graph = test_write_stuck_graph(dir);
    char *b = test_write_file(dir, "b.tns", "1 1.0\n3 2.0\n");
    char *tb = binding("B", b), *csv = test_path(dir, "s.csv");
    char *se = NULL, *out = NULL;
    assert_int_equal(test_run_samsim(NULL, &se, "run", graph, "-t", tb, "--stats", csv, NULL), 2);
    assert_contains(se, "deadlock at cycle 1\n  node 2 (fiberwrite) waits on empty input crd\n");
    free(se);
    char *text = test_read_file(csv);
    assert_contains(text, "\"run\",\"\",\"\",\"\",\"\",\"\",\"deadlock\"");
    free(text);
    assert_int_equal(test_run_samsim(&out, NULL, "stats", csv, NULL), 0);
    assert_contains(out, "run: 1 cycles, 0 token moves (incomplete: deadlock)\n");
    free(out);

    /* A run cut short by --max-cycles is marked stopped. */
    char *ok = test_write_file(dir, "ok.gv",
        "digraph SAM {\n comment=\"X=s0,B=s0\"\n"
        " 1 [type=fiberlookup index=i tensor=B mode=0 format=compressed root=true]\n"
        " 2 [type=fiberwrite index=i tensor=X mode=0 format=compressed sink=true]\n"
        " 1 -> 2 [label=crd type=crd]\n}\n");
    assert_int_equal(test_run_samsim(NULL, NULL, "run", ok, "-t", tb, "--max-cycles", "2",
                                     "--stats", csv, NULL), 2);
    assert_int_equal(test_run_samsim(&out, NULL, "stats", csv, NULL), 0);
    assert_contains(out, "(incomplete: stopped)\n");
    free(out);

    /* Any other word there is not a run row samsim wrote. */
    text = test_read_file(csv);
    char *kind = strstr(text, "\"stopped\"");
    assert_non_null(kind);
    memcpy(kind + 1, "stalled", 7);
    char *bad = test_write_file(dir, "bad.csv", text);
    assert_int_equal(test_run_samsim(NULL, &se, "stats", bad, NULL), 1);
    assert_contains(se, "bad.csv:2:");
    assert_contains(se, "is not empty, deadlock or stopped");
    free(se), free(text), free(bad), free(ok);
    free(graph), free(b), free(tb), free(csv);
    test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_sizes_must_agree),
        cmocka_unit_test(test_unknown_binding_refused),
        cmocka_unit_test(test_outputs_never_replace_inputs),
        cmocka_unit_test(test_values_never_swallow_options),
        cmocka_unit_test(test_help_version_and_man_page),
        cmocka_unit_test(test_blocks_declares_one_default_per_type),
        cmocka_unit_test(test_standard_output_as_file),
        cmocka_unit_test(test_tensor_into_device),
        cmocka_unit_test(test_full_device_fails),
        cmocka_unit_test(test_stalled_run_keeps_statistics),
    };
    return cmocka_run_group_tests_name("cli_conventions", tests, NULL, NULL);
}
